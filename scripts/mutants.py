"""A small, dependency-free mutation-testing run over sinpe/ (GitHub issues 16 and 38).

Each entry of :data:`MUTANTS` (this list, then those a test file declares, see
:func:`declared_in_tests`) is one plausible bug, anchored by syntax, not text
(scripts/locate.py): a file of sinpe/, the qualified name of the function or class it
changes, an original pattern -- an expression or statements, matched against that
scope's syntax tree, local variable names aside, exactly once -- its mutated replacement
and a short description. Renaming a local variable or moving functions around breaks no
mutant; a mutant that no longer locates is a bad mutant (exit status 2).

Each mutant runs in a temporary copy of the repository (one per worker, ``-j``, 2 by
default): its file is mutated there, the module's tests and doctests run against the
copy (``PYTHONPATH`` points at it, so the shared working tree is never modified), and
the file is restored. A mutant is *killed* when the tests fail (or time out), *survives*
when they pass. The test that killed each mutant is kept in ``tests/data/mutant_killers.json``
(committed) and run alone first next time (the whole set runs when it no longer kills).

    python -m scripts.mutants               # run every mutant (make mutants)
    python -m scripts.mutants --only rope   # mutants whose file, scope or description match
    python -m scripts.mutants --only alibi --only psnr   # several patterns
    python -m scripts.mutants --list        # list them, run nothing
    python -m scripts.mutants -j 4          # four workers

A kill means something only if the tests that make it pass unmutated. So the killers
of the last run first run together, once, on an unmutated copy (if one fails or is gone,
the run goes on without them), and before a module's tests first judge a mutant they run
once on the unmutated copy: if they fail there, the run stops. With every killer known,
the module baselines are skipped: a full run costs one pytest run per mutant.

Exit status: 0 when every mutant is killed, 1 when any survives, 2 on a bad mutant
or a failing baseline.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scripts.changed_chapters import imported_modules
from scripts.declared import declared
from scripts.locate import BadMutant, Mutant, apply, locate

ROOT = Path(__file__).resolve().parent.parent

#: Independent-oracle tests written against the mutants below (one file, all modules).
ORACLES = "tests/test_oracles.py"

#: Test files never run for a mutant: the sweep of every module (too slow per mutant),
#: checks of the wheel and the docs rather than of one module's code, and the check
#: of these mutants' own snippets (a mutated copy fails it by construction).
NOT_PER_MUTANT = {
    "tests/test_hostile.py",
    "tests/test_wheel.py",
    "tests/test_api_reference.py",
    "tests/test_lists.py",
}


def modules_used(text: str) -> set[str]:
    """The ``sinpe`` modules (``"rope"``, ``"_validation"``) a test file uses: imports
    it, reaches it as ``sinpe.<module>`` or uses a name the package re-exports from it
    (``scripts/changed_chapters.py`` reads the chapters the same way)."""
    return set(_modules_used(text))


@functools.cache
def _modules_used(text: str) -> frozenset[str]:
    # Parsed once per text: test_files asks of every test file for every module.
    found = imported_modules(ast.parse(text))
    return frozenset(name.removeprefix("sinpe.") for name in found if name != "sinpe")


def test_files(module: str) -> list[str]:
    """The test files run for a mutant of ``sinpe/<module>`` (``"lab/nn.py"``), found, not
    listed: every ``tests/test_*.py`` that uses the module (:func:`modules_used`) -- or,
    for a private module without a test file of its own (``_trig.py``), that
    uses a module importing it -- its own file first, then the independent oracles, then
    the rest from the smallest (``-x`` stops at the first failure, so a killed mutant
    costs little)."""
    dotted = module.removesuffix(".py").replace("/", ".")
    stem = dotted.rpartition(".")[2]
    own = f"test_{stem.lstrip('_')}.py"
    wanted = {dotted}
    if stem.startswith("_") and not (ROOT / "tests" / own).is_file():
        wanted |= {
            path.relative_to(ROOT / "sinpe").with_suffix("").as_posix().replace("/", ".")
            for path in (ROOT / "sinpe").rglob("*.py")
            if dotted in modules_used(path.read_text())
        }
    found = [
        path
        for path in sorted((ROOT / "tests").glob("test_*.py"))
        if f"tests/{path.name}" not in NOT_PER_MUTANT and wanted & modules_used(path.read_text())
    ]
    found.sort(
        key=lambda path: (path.name != own, path.name != "test_oracles.py", path.stat().st_size)
    )
    return [f"tests/{path.name}" for path in found]


KILLERS = "tests/test_mutants_killed.py"
TIMEOUT = 600  # seconds per mutant; a mutant that hangs the tests counts as killed


M = Mutant
MUTANTS: list[Mutant] = [
    M(
        "core.py",
        "positional_encoding",
        "table[..., 0::2] = sines\ntable[..., 1::2] = cosines",
        "table[..., 0::2] = cosines\ntable[..., 1::2] = cosines",
        "positional_encoding: cos in the sine columns (interleaved)",
    ),
    M(
        "core.py",
        "positional_encoding",
        "table[..., :angular.size] = sines\ntable[..., angular.size:] = cosines",
        "table[..., :angular.size] = cosines\ntable[..., angular.size:] = cosines",
        "positional_encoding: cos in the sine columns (concat)",
    ),
    M(
        "core.py",
        "positional_encoding",
        "layout == 'interleaved'",
        "layout != 'interleaved'",
        "positional_encoding: interleaved and concat swapped",
    ),
    M(
        "core.py",
        "frequencies",
        "-2",
        "-1",
        "frequencies: exponent i/d instead of 2i/d",
    ),
    M(
        "core.py",
        "frequencies",
        "base",
        "10000.0",
        "frequencies: base ignored",
    ),
    M(
        "core.py",
        "wavelengths",
        "2.0 * np.pi",
        "np.pi",
        "wavelengths: factor 2 dropped",
    ),
    M(
        "core.py",
        "component",
        "index % 2 == 0",
        "index % 2 == 1",
        "component: sin/cos swapped (0-indexed)",
    ),
    M(
        "core.py",
        "component",
        "(index + 1) // 2 - 1",
        "(index + 1) // 2",
        "component: off-by-one pair (1-indexed)",
    ),
    M(
        "core.py",
        "component",
        "first_index <= index < d_model + first_index",
        "first_index <= index <= d_model + first_index",
        "component: index range check < vs <=",
    ),
    M(
        "core.py",
        "add_positional_encoding",
        "np.sqrt(width) if scale else 1.0",
        "1.0",
        "add_positional_encoding: sqrt(d) scaling dropped",
    ),
    M(
        "core.py",
        "add_positional_encoding",
        "positional_encoding(start + np.arange(seq), width, base=base, dtype=np.float64)",
        "positional_encoding(np.arange(seq), width, base, dtype=np.float64)",
        "add_positional_encoding: start ignored",
    ),
    M(
        "core.py",
        "shift_matrix",
        "-sin",
        "sin",
        "shift_matrix: sign flip",
    ),
    M(
        "core.py",
        "layout_permutation",
        "'concat'",
        "'interleaved'",
        "layout_permutation: permutation and its inverse swapped",
    ),
    M(
        "core.py",
        "table",
        "(place(anchor_sin, anchor_cos), place(anchor_cos, -anchor_sin))",
        "(place(anchor_cos, anchor_sin), place(anchor_sin, -anchor_cos))",
        "table: sin/cos swapped in the anchors (every path)",
    ),
    M(
        "core.py",
        "table",
        "out[top:top + size] = target",
        "out[top:top + size] = target[:, ::-1]",
        "table: sin/cos swapped on the float16 (non-direct interleaved) path",
    ),
    M(
        "core.py",
        "table",
        "layout_permutation(2 * half, 'concat', layout)",
        "layout_permutation(2 * half, 'concat', 'interleaved')",
        "table: the concat layout written interleaved",
    ),
    M(
        "core.py",
        "table",
        "[float(start), float(start) + rows - 1]",
        "[float(start)]",
        "table: precision warnings check only the first position",
    ),
    M(
        "core.py",
        "table",
        "float(start) + block * np.arange(-(-rows // block))",
        "float(start) + 1 + block * np.arange(-(-rows // block))",
        "table: positions start at start + 1",
    ),
    M(
        "core.py",
        "table",
        "out_dtype == np.float64",
        "out_dtype != np.float16",
        "table: float32 computed in float32 (rounded twice, not once)",
    ),
    M(
        "core.py",
        "wavelengths",
        "constrained(d_model=D_MODEL, base=BASE)",
        "lambda function: function",
        "wavelengths: d_model and base checked (by frequencies) but not declared",
    ),
    M(
        "_validation.py",
        "",
        "v % 2 == 0",
        "True",
        "Width: odd widths accepted",
    ),
    M(
        "_validation.py",
        "Base.__init__",
        "super().__init__(MIN_BASE, None, closed='left', hint='a float such as 10000.0', conditions=(_NOT_ONE,))",
        "super().__init__(0.0, None, closed='neither', hint='a float such as 10000.0', conditions=(_NOT_ONE,))",
        "Base: a subnormal base accepted (its frequencies overflow)",
    ),
    M(
        "_validation.py",
        "",
        "v != 1.0",
        "True",
        "Base: base 1 accepted",
    ),
    M(
        "_validation.py",
        "Base.__init__",
        "super().__init__(MIN_BASE, None, closed='left', hint='a float such as 10000.0', conditions=(_NOT_ONE,))",
        "super().__init__(0.0, None, closed='both', hint='a float such as 10000.0', conditions=(_NOT_ONE,))",
        "Base: base 0 accepted (< vs <=)",
    ),
    M(
        "_precision.py",
        "warn_if_unresolvable",
        "largest > limit",
        "largest >= limit",
        "warn_if_unresolvable: warns at exactly 2 / eps (> vs >=)",
    ),
    M(
        "_precision.py",
        "warn_if_unresolvable",
        "2.0",
        "4.0",
        "warn_if_unresolvable: limit doubled",
    ),
    M(
        "_precision.py",
        "warn_if_imprecise",
        "abs(np.log(base))",
        "np.log(base)",
        "warn_if_imprecise: |ln base| without abs (bases below 1)",
    ),
    M(
        "rope.py",
        "apply_rope",
        "_ladder(width, base=base)",
        "_ladder(width)",
        "apply_rope: base ignored",
    ),
    M(
        "rope.py",
        "apply_rope",
        "first * cos - second * sin",
        "first * cos + second * sin",
        "apply_rope: sign flip",
    ),
    M(
        "rope.py",
        "apply_rope",
        "out[..., :width // 2], out[..., width // 2:] = (rotated_first, rotated_second)",
        "out[..., :width // 2], out[..., width // 2:] = (rotated_second, rotated_first)",
        "apply_rope: halves swapped (half layout)",
    ),
    M(
        "rope.py",
        "apply_rope",
        "if layout == 'interleaved':\n    first, second = (vectors[..., 0::2], vectors[..., 1::2])\nelse:\n    first, second = (vectors[..., :width // 2], vectors[..., width // 2:])",
        "if layout == 'interleaved':\n    first, second = (vectors[..., :width // 2], vectors[..., width // 2:])\nelse:\n    first, second = (vectors[..., :width // 2], vectors[..., width // 2:])",
        "apply_rope: interleaved input read as half",
    ),
    M(
        "rope.py",
        "convert_qk_weight",
        "(1, 2)",
        "(1, 2, 3)",
        "convert_qk_weight: 3-D weights accepted",
    ),
    M(
        "rope.py",
        "convert_qk_weight",
        "'concat'",
        "'interleaved'",
        "convert_qk_weight: permutation and inverse swapped",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "factor ** (d_model / (d_model - 2))",
        "factor",
        "scaled_frequencies: NTK base without the d/(d-2) exponent",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "frequencies(d_model, base=base) / factor",
        "frequencies(d_model, base=base) * factor",
        "scaled_frequencies: interpolation multiplies",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "(1.0 - gamma) * theta / factor + gamma * theta",
        "gamma * theta / factor + (1.0 - gamma) * theta",
        "scaled_frequencies: YaRN ramp reversed",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "llama3_frequencies(d_model, factor, base=base, original_length=original_length)",
        "llama3_frequencies(d_model, factor, original_length=original_length)",
        "scaled_frequencies: Llama 3.1's rule from its own base 500000, not base",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "llama3_frequencies(d_model, factor, base=base, original_length=original_length)",
        "llama3_frequencies(d_model, factor, base=base)",
        "scaled_frequencies: Llama 3.1's bands set by its 8192 tokens, not original_length",
    ),
    M(
        "rope.py",
        "",
        "Real(1.0, hint='e.g. 8.0 (how many times longer the context is)')",
        "Real(1.0, closed='right', hint='e.g. 8.0 (how many times longer the context is)')",
        "factor: factor 1 rejected (closed vs open)",
    ),
    M(
        "rope.py",
        "yarn_temperature",
        "(0.1 * math.log(factor) + 1.0) ** 2",
        "0.1 * math.log(factor) + 1.0",
        "yarn_temperature: square dropped",
    ),
    M(
        "rope.py",
        "apply_rope",
        "first * sin + second * cos",
        "first * sin - second * cos",
        "apply_rope: second entry of each pair reflected instead of rotated",
    ),
    M(
        "rope.py",
        "apply_rope",
        "out[..., 0::2], out[..., 1::2] = (rotated_first, rotated_second)",
        "out[..., 0::2], out[..., 1::2] = (rotated_second, rotated_first)",
        "apply_rope: rotated pair written back swapped (interleaved)",
    ),
    M(
        "rope.py",
        "apply_rope",
        "theta = check_real_array(frequencies, name='frequencies')\nif theta.shape != (width // 2,):\n    wanted = 'rotary_dim' if rotary_dim is not None else 'x'\n    raise ValueError(f'frequencies must have shape ({width // 2},) for {wanted} of width {width}, got {theta.shape}')",
        "theta = _ladder(width, base)\nif theta.shape != (width // 2,):\n    wanted = 'rotary_dim' if rotary_dim is not None else 'x'\n    raise ValueError(f'frequencies must have shape ({width // 2},) for {wanted} of width {width}, got {theta.shape}')",
        "apply_rope: custom frequencies ignored",
    ),
    M(
        "rope.py",
        "apply_rope",
        "vectors.ndim == 0 or vectors.shape[-1] % 2",
        "vectors.ndim == 0",
        "apply_rope: odd width accepted with custom frequencies",
    ),
    M(
        "_validation.py",
        "Options.inside",
        "value in self.choices",
        "True",
        "Options: unknown choices accepted (RoPE layouts read as concat)",
    ),
    M(
        "rope.py",
        "",
        "{'half': 'concat'}",
        "{'half': 'interleaved'}",
        "_check_rope_layout: 'half' read as interleaved",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "d_model == 2",
        "False",
        "scaled_frequencies: NTK at d = 2 divides by d - 2 = 0",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "2 * np.pi",
        "np.pi",
        "scaled_frequencies: YaRN ratio L / (wavelength / 2)",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "beta - alpha",
        "beta",
        "scaled_frequencies: YaRN ramp divided by beta instead of beta - alpha",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "alpha < beta",
        "alpha <= beta",
        "scaled_frequencies: YaRN alpha == beta accepted (< vs <=)",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "Integer(hint='such as 4096')",
        "Integer(0, hint='such as 4096')",
        "scaled_frequencies: YaRN original_length 0 accepted",
    ),
    M(
        "rope.py",
        "scaled_frequencies",
        "Options(*SCALING_METHODS)",
        "Options(*SCALING_METHODS, 'unknown')",
        "scaled_frequencies: unknown method falls through to YaRN",
    ),
    M(
        "rope.py",
        "yarn_temperature",
        "math.log",
        "math.log10",
        "yarn_temperature: log10 instead of ln",
    ),
    M(
        "rope.py",
        "convert_qk_weight",
        "rows.shape[0] % n_heads",
        "rows.shape[0] < n_heads",
        "convert_qk_weight: rows not a multiple of n_heads accepted",
    ),
    M(
        "rope.py",
        "convert_qk_weight",
        "rows.copy()",
        "rows",
        "convert_qk_weight: same layout returns the caller's array, not a copy",
    ),
    M(
        "rope.py",
        "rope_permutation",
        "layout_permutation(head_width, 'interleaved', 'concat')",
        "layout_permutation(head_width, 'concat', 'interleaved')",
        "rope_permutation: the inverse permutation",
    ),
    M(
        "alibi.py",
        "_power_of_two_slopes",
        "start * start ** index",
        "start ** index",
        "alibi_slopes: off-by-one (first slope 1)",
    ),
    M(
        "alibi.py",
        "alibi_slopes",
        "0",
        "1",
        "alibi_slopes: odd instead of even slopes for extra heads",
    ),
    M(
        "alibi.py",
        "alibi_bias",
        "np.abs(np.arange(length)[:, None] - np.arange(length)[None, :])",
        "np.arange(length)[:, None] - np.arange(length)[None, :]",
        "alibi_bias: signed distance",
    ),
    M(
        "alibi.py",
        "_power_of_two_slopes",
        "3",
        "2",
        "alibi_slopes: ratio 2^(-4/n) instead of 2^(-8/n)",
    ),
    M(
        "alibi.py",
        "alibi_slopes",
        "math.floor",
        "math.ceil",
        "alibi_slopes: closest power of two rounded up",
    ),
    M(
        "alibi.py",
        "alibi_slopes",
        "[_power_of_two_slopes(closest), extra]",
        "[extra, _power_of_two_slopes(closest)]",
        "alibi_slopes: extra heads first",
    ),
    M(
        "alibi.py",
        "alibi_slopes",
        "math.log2(n_heads).is_integer()",
        "n_heads % 2 == 0",
        "alibi_slopes: every even count treated as a power of two",
    ),
    M(
        "alibi.py",
        "alibi_slopes",
        "alibi_slopes(2 * closest)[0::2][:n_heads - closest]",
        "alibi_slopes(2 * closest)[0::2][-(n_heads - closest):]",
        "alibi_slopes: the last instead of the first interleaved slopes",
    ),
    M(
        "alibi.py",
        "alibi_bias",
        "Integer(hint='such as 16 (the sequence length)')",
        "Integer(0, hint='such as 16 (the sequence length)')",
        "alibi_bias: length 0 accepted",
    ),
    M(
        "alibi.py",
        "alibi_bias",
        "-alibi_slopes(n_heads)[:, None, None]",
        "alibi_slopes(n_heads)[:, None, None]",
        "alibi_bias: a reward instead of a penalty (sign)",
    ),
    M(
        "alibi.py",
        "",
        "MAX_HEADS",
        "None",
        "alibi_slopes: no upper limit on n_heads",
    ),
    M(
        "alibi.py",
        "_power_of_two_slopes",
        "range(n_heads)",
        "range(n_heads - 1)",
        "alibi_slopes: one slope short (range off by one)",
    ),
    M(
        "conventions.py",
        "encode",
        "table.astype(out_dtype, copy=False)",
        "table",
        "encode: dtype ignored for non-paper conventions",
    ),
    M(
        "conventions.py",
        "encode",
        "positional_encoding(positions, d_model, base=base, dtype=dtype)",
        "positional_encoding(positions, d_model, dtype=dtype)",
        "encode: base ignored for the paper convention",
    ),
    M(
        "conventions.py",
        "encode",
        "cosines = all_cosines[..., :cos_count]\nblocks = [cosines, sines] if rule.layout == 'concat-cos-first' else [sines, cosines]",
        "cosines = sines[..., :cos_count]\nblocks = [cosines, sines] if rule.layout == 'concat-cos-first' else [sines, cosines]",
        "encode: sines in the cosine block",
    ),
    M(
        "conventions.py",
        "encode",
        "[cosines, sines] if rule.layout == 'concat-cos-first' else [sines, cosines]",
        "[sines, cosines] if rule.layout == 'concat-cos-first' else [cosines, sines]",
        "encode: column order swapped",
    ),
    M(
        "conventions.py",
        "_spaced_frequencies",
        "count - 1",
        "count",
        "encode: n-1 spacing replaced by n",
    ),
    M(
        "conventions.py",
        "encode",
        "((width + 1) // 2, width // 2)",
        "(width // 2, (width + 1) // 2)",
        "encode: odd width gives the extra column to cos",
    ),
    M(
        "conventions.py",
        "encode",
        "where == padding_idx",
        "where == padding_idx + 1",
        "encode: fairseq zeroes the wrong row",
    ),
    M(
        "conventions.py",
        "fairseq_positions",
        "-1",
        "0",
        "fairseq_positions: cumulative sum over the wrong axis",
    ),
    M(
        "conventions.py",
        "_spaced_frequencies",
        "_rational_powers(base, count, -1, count)",
        "_rational_powers(base, count, -2, count)",
        "encode: paper spacing base^(-2k/n) instead of base^(-k/n)",
    ),
    M(
        "conventions.py",
        "_spaced_frequencies",
        "count == 1 and convention != 'tensor2tensor'",
        "count == 1",
        "encode: tensor2tensor's max(n - 1, 1) guard lost (d = 2 raises)",
    ),
    M(
        "conventions.py",
        "_spaced_frequencies",
        "count == 1",
        "count == 0",
        "encode: whisper/fairseq at d = 2 silently use n - 1 -> 1",
    ),
    M(
        "conventions.py",
        "encode",
        "-2",
        "-1",
        "encode: hf-marian exponent j/d instead of 2(j//2)/d",
    ),
    M(
        "conventions.py",
        "encode",
        "Width.paired(d_model) if rule.odd_width == 'raise' else d_model",
        "d_model",
        "encode: odd widths accepted where the source raises",
    ),
    M(
        "conventions.py",
        "encode",
        "[table, np.zeros((*where.shape, 1))]",
        "[np.zeros((*where.shape, 1)), table]",
        "encode: the zero column of odd widths comes first",
    ),
    M(
        "conventions.py",
        "encode",
        "rule.name == 'fairseq'",
        "rule.spacing == 'n-1'",
        "encode: every n-1 convention zeroes row padding_idx",
    ),
    M(
        "conventions.py",
        "encode",
        "warn_if_unresolvable(where, out_dtype)",
        "pass",
        "encode: no precision warning for non-paper conventions",
    ),
    M(
        "conventions.py",
        "encode",
        "constrained(convention=_CONVENTION, padding_idx=Optional(_PADDING_IDX), min_timescale=Optional(Real(0.0, closed='neither', hint='e.g. 1.0')), base=BASE, dtype=DTYPE, positions=POSITIONS, d_model=_ANY_WIDTH)",
        "constrained(convention=_CONVENTION, padding_idx=Optional(_PADDING_IDX), min_timescale=Optional(Real(0.0, closed='neither', hint='e.g. 1.0')), dtype=DTYPE, positions=POSITIONS, d_model=_ANY_WIDTH)",
        "encode: base not validated for non-paper conventions",
    ),
    M(
        "conventions.py",
        "encode",
        "all_cosines[..., :cos_count]",
        "all_cosines[..., -cos_count:]",
        "encode: hf-marian odd width takes the cosines' frequencies from the end",
    ),
    M(
        "conventions.py",
        "fairseq_embedding",
        "encode(rows, d_model, 'fairseq', base=base, padding_idx=padding_idx)",
        "encode(rows, d_model, 'fairseq', padding_idx=padding_idx)",
        "fairseq_embedding: base ignored",
    ),
    M(
        "conventions.py",
        "fairseq_embedding",
        "encode(rows, d_model, 'fairseq', base=base, padding_idx=padding_idx)",
        "encode(rows, d_model, 'fairseq', base=base)",
        "fairseq_embedding: padding_idx not passed on (zeroes row 1)",
    ),
    M(
        "conventions.py",
        "fairseq_positions",
        "np.cumsum(mask, axis=-1) * mask",
        "np.cumsum(mask, axis=-1)",
        "fairseq_positions: padding tokens numbered too",
    ),
    M(
        "conventions.py",
        "",
        'Integer(0, hint="such as 1 (fairseq\'s dictionaries), or None")',
        'Integer(1, hint="such as 1 (fairseq\'s dictionaries), or None")',
        "fairseq_positions: padding_idx 0 rejected",
    ),
    M(
        "conventions.py",
        "fairseq_positions",
        "'iu'",
        "'iuf'",
        "fairseq_positions: float token ids accepted",
    ),
    M(
        "conventions.py",
        "encode",
        "where == padding_idx",
        "where <= padding_idx",
        "encode: fairseq zeroes every row up to padding_idx",
    ),
    M(
        "lab/nn.py",
        "LayerNorm.__init__",
        "1e-05",
        "1e-06",
        "LayerNorm: default eps 1e-6 instead of 1e-5",
    ),
    M(
        "lab/nn.py",
        "Embedding.__init__",
        "config.scale_embeddings",
        "False",
        "TokenModel: embedding sqrt(D) scaling dropped",
    ),
    M(
        "lab/nn.py",
        "PositionalEncoding.forward",
        "np.arange(length) if positions is None else positions",
        "np.arange(1, length + 1) if positions is None else positions",
        "PositionalEncoding: positions start at 1",
    ),
    M(
        "lab/nn.py",
        "PositionalEncoding.forward",
        "positional_encoding(where, self.d_model, base=self.base)",
        "positional_encoding(where, self.d_model)",
        "PositionalEncoding: base ignored",
    ),
    M(
        "lab/nn.py",
        "MultiHeadAttention.forward",
        "math.sqrt(head_width) * self.temperature",
        "self.temperature",
        "MultiHeadAttention: 1/sqrt(d_head) scaling dropped",
    ),
    M(
        "lab/nn.py",
        "MultiHeadAttention.backward",
        "dq = rotate(dq, -positions, frequencies=self.frequencies).astype(x.dtype)\ndk = rotate(dk, -positions, frequencies=self.frequencies).astype(x.dtype)",
        "dq = rotate(dq, positions, frequencies=self.frequencies).astype(x.dtype)\ndk = rotate(dk, -positions, frequencies=self.frequencies).astype(x.dtype)",
        "MultiHeadAttention: RoPE backward rotates the wrong way",
    ),
    M(
        "lab/nn.py",
        "MultiHeadAttention.__init__",
        "d_model + 3 * d_model",
        "d_model + d_model",
        "MultiHeadAttention: Xavier bound of a (D, D) instead of (3D, D) matrix",
    ),
    M(
        "lab/nn.py",
        "attention_bias",
        "padding[:, np.newaxis, np.newaxis, :]",
        "padding[:, np.newaxis, :, np.newaxis]",
        "attention_bias: padding masks queries instead of keys",
    ),
    M(
        "lab/nn.py",
        "_gelu",
        "np.asarray(_erf(x / math.sqrt(2.0)), dtype=x.dtype)",
        "_erf(x / 2.0).astype(x.dtype)",
        "gelu: erf(x / 2) instead of erf(x / sqrt 2)",
    ),
    M(
        "lab/nn.py",
        "LayerNorm.backward",
        "(dxhat * xhat).mean(axis=-1, keepdims=True)",
        "(dxhat * xhat).mean(axis=0, keepdims=True)",
        "LayerNorm.backward: mean over the wrong axis",
    ),
    M(
        "lab/training.py",
        "Adam.step",
        "np.sqrt(second / correction2)",
        "np.sqrt(second)",
        "Adam: second-moment bias correction dropped",
    ),
    M(
        "lab/nn.py",
        "_softmax",
        "np.max(scores, axis=axis, keepdims=True)",
        "np.max(scores)",
        "softmax: global instead of row-wise max (overflow/underflow)",
    ),
    M(
        "fourier.py",
        "integer_features",
        "np.arange(1, int(n_frequencies) + 1, dtype=np.float64)",
        "np.arange(int(n_frequencies), dtype=np.float64)",
        "integer_features: multiples 0..k-1 instead of 1..k",
    ),
    M(
        "fourier.py",
        "nerf_encoding",
        "np.pi * points[..., :, np.newaxis]",
        "points[..., :, np.newaxis]",
        "nerf_encoding: factor pi dropped",
    ),
    M(
        "fourier.py",
        "gaussian_features",
        "2.0 * np.pi",
        "np.pi",
        "gaussian_features: 2 pi replaced by pi",
    ),
    M(
        "fourier.py",
        "log_spaced_matrix",
        "n_per_axis - 1",
        "n_per_axis",
        "log_spaced_matrix: linspace off by one",
    ),
    M(
        "fourier.py",
        "psnr",
        "10.0",
        "20.0",
        "psnr: 20 log10 instead of 10 log10 of the MSE",
    ),
    M(
        "fourier.py",
        "integer_features",
        "np.sin",
        "np.cos",
        "integer_features: cos in the sine slots",
    ),
    M(
        "fourier.py",
        "integer_features",
        "Integer(hint='such as 8 (the highest multiple)')",
        "Integer(0, hint='such as 8 (the highest multiple)')",
        "integer_features: k = 0 accepted",
    ),
    M(
        "fourier.py",
        "nerf_encoding",
        "np.stack([np.sin(phases), np.cos(phases)], axis=-1)",
        "np.stack([np.sin(phases), np.cos(phases)], axis=-2)",
        "nerf_encoding (paper): all sines of a coordinate before its cosines",
    ),
    M(
        "fourier.py",
        "nerf_encoding",
        "np.arange(n_frequencies)",
        "np.arange(1, n_frequencies + 1)",
        "nerf_encoding: frequencies 2^1 .. 2^L instead of 2^0 .. 2^(L-1)",
    ),
    M(
        "fourier.py",
        "nerf_encoding",
        "2",
        "1",
        "nerf_encoding (official): coordinate-major instead of frequency-major blocks",
    ),
    M(
        "fourier.py",
        "nerf_encoding",
        "np.concatenate([points, blocks.reshape(*points.shape[:-1], -1)], axis=-1)",
        "blocks.reshape(*points.shape[:-1], -1)",
        "nerf_encoding (official): raw input not included",
    ),
    M(
        "fourier.py",
        "nerf_encoding",
        "1000",
        "1100",
        "nerf_encoding: frequency limit raised past float64",
    ),
    M(
        "fourier.py",
        "gaussian_matrix",
        "float(sigma)",
        "float(sigma) ** 2",
        "gaussian_matrix: sigma used as the variance",
    ),
    M(
        "fourier.py",
        "gaussian_matrix",
        "'neither'",
        "'both'",
        "gaussian_matrix: sigma 0 accepted",
    ),
    M(
        "fourier.py",
        "gaussian_features",
        "[np.sin(phases), np.cos(phases)]",
        "[np.cos(phases), np.sin(phases)]",
        "gaussian_features: cosines first",
    ),
    M(
        "fourier.py",
        "psnr",
        "(guess - truth) ** 2",
        "np.abs(guess - truth)",
        "psnr: mean absolute instead of mean squared error",
    ),
    M(
        "fourier.py",
        "log_spaced_matrix",
        "Real(-1074.0, 1023.0, hint='e.g. 10.0, as Tancik et al. (2**scale must be a float64)')",
        "Real(-1100.0, 1100.0, hint='e.g. 10.0, as Tancik et al. (2**scale must be a float64)')",
        "log_spaced_matrix: scale beyond the powers of 2 that float64 holds",
    ),
    M(
        "fourier.py",
        "",
        "Integer(hint='such as 8')",
        "Integer(0, hint='such as 8')",
        "_COUNT: 0 accepted (n_frequencies, n_features, n_per_axis)",
    ),
    M(
        "fourier.py",
        "log_spaced_matrix",
        "np.eye(n_coords)[axis]",
        "np.ones(n_coords)",
        "log_spaced_matrix: rows not axis-aligned",
    ),
    M(
        "geometry.py",
        "dot_product_by_offset",
        "-1",
        "0",
        "dot_product_by_offset: sum over the wrong axis",
    ),
    M(
        "geometry.py",
        "distance_by_offset",
        "np.asarray(offsets)[..., np.newaxis] * frequencies(d_model, base=base) / 2",
        "np.asarray(offsets)[..., np.newaxis] * frequencies(d_model, base=base)",
        "distance_by_offset: half angle not halved",
    ),
    M(
        "geometry.py",
        "dot_product_by_offset",
        "np.cos",
        "np.sin",
        "dot_product_by_offset: sin instead of cos",
    ),
    M(
        "geometry.py",
        "distance_by_offset",
        "2.0 * np.sqrt(np.sum(np.sin(half_angles) ** 2, axis=-1))",
        "np.sqrt(np.sum(np.sin(half_angles) ** 2, axis=-1))",
        "distance_by_offset: factor 2 dropped",
    ),
    M(
        "geometry.py",
        "nearest_distinct_position",
        "int(context)",
        "int(context) + 1",
        "nearest_distinct_position: offset = context included (off by one)",
    ),
    M(
        "geometry.py",
        "distance_by_offset",
        "frequencies(d_model, base=base)",
        "frequencies(d_model)",
        "distance_by_offset: base ignored",
    ),
    M(
        "geometry.py",
        "nearest_distinct_position",
        "distance_by_offset(offsets, d_model, base=base)",
        "distance_by_offset(offsets, d_model)",
        "nearest_distinct_position: base ignored",
    ),
    M(
        "geometry.py",
        "aliasing",
        "distance_by_offset(offsets, d_model, base=base)",
        "distance_by_offset(offsets, d_model)",
        "aliasing: base ignored",
    ),
    M(
        "geometry.py",
        "",
        "Integer(2, hint='such as 512')",
        "Integer(1, hint='such as 512')",
        "nearest_distinct_position: context 1 accepted (so is aliasing's)",
    ),
    M(
        "geometry.py",
        "aliasing",
        "offsets >= far",
        "offsets > far",
        "aliasing: offset far itself not a candidate (>= vs >)",
    ),
    M(
        "geometry.py",
        "aliasing",
        "distances >= distance",
        "distances > distance",
        "aliasing: looks_like needs a strictly larger distance",
    ),
    M(
        "geometry.py",
        "dimension_ranges",
        "ranges[0::2] = sine\nranges[1::2] = cosine",
        "ranges[0::2] = cosine\nranges[1::2] = sine",
        "dimension_ranges: sine and cosine ranges swapped",
    ),
    M(
        "geometry.py",
        "dimension_ranges",
        "int(context) - 1",
        "int(context)",
        "dimension_ranges: sweep over context instead of context - 1 positions",
    ),
    M(
        "geometry.py",
        "dimension_ranges",
        "sweep >= np.pi",
        "sweep >= 2.0 * np.pi",
        "dimension_ranges: cosine saturates at 2 pi instead of pi",
    ),
    M(
        "numerics.py",
        "correct_digits",
        "np.max",
        "np.mean",
        "correct_digits: mean instead of max error",
    ),
    M(
        "geometry.py",
        "principal_plane",
        "directions * signs[:, np.newaxis]",
        "directions",
        "principal_plane: direction signs not fixed",
    ),
    M(
        "geometry.py",
        "principal_plane",
        "data.mean(axis=0)",
        "data.mean(axis=1, keepdims=True)",
        "principal_plane: centred over the wrong axis",
    ),
    M(
        "binary.py",
        "binary_encoding",
        "62",
        "63",
        "binary_encoding: 63 bits accepted (int64 sign bit)",
    ),
    M(
        "binary.py",
        "binary_encoding",
        "np.floor",
        "np.round",
        "binary_encoding: positions rounded instead of floored",
    ),
    M(
        "numerics.py",
        "to_bfloat16",
        "bits + 32767 + (bits >> 16 & 1)",
        "bits + 32767",
        "to_bfloat16: ties rounded down instead of to even",
    ),
    M(
        "numerics.py",
        "low_precision_frequencies",
        "compute(d_model)",
        "compute(d_model // 2)",
        "low_precision_frequencies: pow recipe exponent over d/2",
    ),
    M(
        "numerics.py",
        "low_precision_bound",
        "low_precision_frequencies(d_model, 'float32', base=base, recipe=recipe)",
        "low_precision_frequencies(d_model, 'float32', recipe=recipe)",
        "low_precision_bound: base ignored",
    ),
    M(
        "numerics.py",
        "low_precision_bound",
        "low_precision_frequencies(d_model, 'float32', base=base, recipe=recipe)",
        "low_precision_frequencies(d_model, 'float32', base)",
        "low_precision_bound: recipe ignored",
    ),
    M(
        "numerics.py",
        "computed_in",
        "(sines, cosines)",
        "(cosines, sines)",
        "computed_in: cosines in the sine columns",
    ),
    M(
        "numerics.py",
        "computed_in",
        "where.astype(dtype)[..., np.newaxis]",
        "where[..., np.newaxis]",
        "computed_in: positions not rounded to the precision (float32/float16)",
    ),
    M(
        "numerics.py",
        "computed_in",
        "to_bfloat16(where)[..., np.newaxis]",
        "where[..., np.newaxis]",
        "computed_in: positions not rounded to bfloat16",
    ),
    M(
        "numerics.py",
        "computed_in",
        "positional_encoding(where, d_model, base=base)",
        "positional_encoding(where, d_model)",
        "computed_in: base ignored in float64",
    ),
    M(
        "numerics.py",
        "computed_in",
        "low_precision_frequencies(d_model, precision, base=base, recipe=recipe)",
        "low_precision_frequencies(d_model, precision, base)",
        "computed_in: recipe ignored",
    ),
    M(
        "numerics.py",
        "reference_encoding",
        "digits",
        "15",
        "reference_encoding: digits ignored (double precision)",
    ),
    M(
        "numerics.py",
        "ulp_error",
        "np.abs(reference).astype(dtype)",
        "np.abs(reference)",
        "ulp_error: dtype ignored",
    ),
    M(
        "geometry.py",
        "linear_map_residual",
        "np.mean",
        "np.sum",
        "linear_map_residual: root of the sum instead of the mean",
    ),
    M(
        "symbolic.py",
        "VerifiedIdentity.latex",
        "f'& {{{lhs}}} \\\\\\\\\\n&\\\\quad = {{{rhs}}}'",
        "f'& {{{lhs}}} = {{{rhs}}}'",
        "VerifiedIdentity.latex: a long stacked statement kept on one line",
    ),
    M(
        "symbolic.py",
        "VerifiedIdentity.latex",
        "stacked",
        "not stacked",
        "VerifiedIdentity.latex: stacked inverted",
        occurrence=2,
        occurrences=2,
    ),
    M(
        "symbolic.py",
        "verify_rope_layouts",
        "not _matrix_is_zero(left - right)",
        "False",
        "verify_rope_layouts: a no-op",
    ),
    M(
        "symbolic.py",
        "frequency",
        "-2 * index",
        "-index",
        "frequency: exponent i/d instead of 2i/d",
    ),
    M(
        "symbolic.py",
        "rope",
        "vector[a] * sp.cos(angle_i) - vector[b] * sp.sin(angle_i)",
        "vector[a] * sp.cos(angle_i) + vector[b] * sp.sin(angle_i)",
        "rope (symbolic): sign flip",
    ),
    M(
        "symbolic.py",
        "sinusoidal_encoding",
        "[sp.sin(position * frequency(i, d_model, base=base)), sp.cos(position * frequency(i, d_model, base=base))]",
        "[sp.cos(position * frequency(i, d_model, base=base)), sp.sin(position * frequency(i, d_model, base=base))]",
        "sinusoidal_encoding: (cos, sin) pairs",
    ),
    M(
        "symbolic.py",
        "sinusoidal_encoding",
        "[sp.sin(position * frequency(i, d_model, base=base)), sp.cos(position * frequency(i, d_model, base=base))]",
        "[sp.sin(position * frequency(i, d_model)), sp.cos(position * frequency(i, d_model))]",
        "sinusoidal_encoding: constant ignored",
    ),
    M(
        "symbolic.py",
        "one_indexed_encoding",
        "i - 1",
        "i",
        "one_indexed_encoding: exponent 2i/d instead of 2(i-1)/d",
    ),
    M(
        "symbolic.py",
        "rotation",
        "[[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]]",
        "[[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]]",
        "rotation: counterclockwise instead of clockwise",
    ),
    M(
        "symbolic.py",
        "counterclockwise",
        "[[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]]",
        "[[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]]",
        "counterclockwise: clockwise instead",
    ),
    M(
        "symbolic.py",
        "shift_matrix",
        "frequency(i, d_model, base=base)",
        "frequency(i, d_model)",
        "shift_matrix: constant ignored",
    ),
    M(
        "symbolic.py",
        "_matrix_is_zero",
        "all",
        "any",
        "_matrix_is_zero: any entry zero suffices",
    ),
    M(
        "symbolic.py",
        "derive_shift_map",
        "start.shape[0] != start.shape[1] or sp.simplify(start.det()) == 0",
        "start.shape[0] != start.shape[1]",
        "derive_shift_map: dependent entries not detected",
    ),
    M(
        "symbolic.py",
        "derive_shift_map.coefficients",
        "poly is None or poly.total_degree() > 1 or poly.coeff_monomial(1) != 0",
        "poly is None or poly.total_degree() > 1",
        "derive_shift_map: affine (constant-term) entries accepted",
    ),
    M(
        "symbolic.py",
        "derive_shift_map.coefficients",
        "poly is None or poly.total_degree() > 1 or poly.coeff_monomial(1) != 0",
        "poly is None or poly.coeff_monomial(1) != 0",
        "derive_shift_map: quadratic entries accepted",
    ),
    M(
        "symbolic.py",
        "verify_dot_product",
        "position - other_position",
        "position + other_position",
        "verify_dot_product: p + q instead of p - q",
    ),
    M(
        "symbolic.py",
        "verify_indexings_agree",
        "range(width)",
        "range(width - 1)",
        "verify_indexings_agree: last entry not compared",
    ),
    M(
        "symbolic.py",
        "verify_no_linear_shift",
        "all",
        "any",
        "verify_no_linear_shift: one zero entry of PE(k) rejects the counterexample",
    ),
    M(
        "symbolic.py",
        "integer_features",
        "range(1, n_frequencies + 1)",
        "range(n_frequencies)",
        "integer_features (symbolic): multiples 0..k-1",
    ),
    M(
        "symbolic.py",
        "verify_periodic_features",
        "2",
        "4",
        "verify_periodic_features: period 4 pi checked instead of 2 pi",
    ),
    M(
        "symbolic.py",
        "rope",
        "frequency(i, width, base=base)",
        "frequency(i, width)",
        "rope (symbolic): constant ignored",
    ),
    M(
        "symbolic.py",
        "rope",
        "layout == 'interleaved'",
        "layout != 'interleaved'",
        "rope (symbolic): layouts swapped",
    ),
    M(
        "symbolic.py",
        "verify_rope_relative",
        "sp.diff(dot, m) + sp.diff(dot, n)",
        "sp.diff(dot, m) - sp.diff(dot, n)",
        "verify_rope_relative: d/dm - d/dn",
    ),
    M(
        "symbolic.py",
        "verify_rope_norm",
        "(rotated.T * rotated)[0, 0] - (q.T * q)[0, 0]",
        "(rotated.T * q)[0, 0] - (q.T * q)[0, 0]",
        "verify_rope_norm: compares the wrong product",
    ),
    M(
        "symbolic.py",
        "",
        "_SymbolicWidth(high=MAX_SYMBOLIC_SIZE, hint='a small width such as 4 or 6')",
        "_SymbolicWidth(high=MAX_SYMBOLIC_SIZE - 2, hint='a small width such as 4 or 6')",
        "symbolic width: the largest width rejected",
    ),
    M(
        "lab/nn.py",
        "causal_mask",
        "1",
        "0",
        "causal_mask: the diagonal masked too (off by one)",
    ),
    M(
        "checkpoint/tables.py",
        "_pair_layouts",
        "slice(half, 2 * half)",
        "slice(half + 1, 2 * half + 1)",
        "inspect_table: concat pairs off by one",
    ),
    M(
        "checkpoint/tables.py",
        "_clean",
        "layout.padding is not None or not layout.cosines == layout.frequencies.size > 0",
        "not layout.cosines == layout.frequencies.size > 0",
        "inspect_table: padded layouts take the rotation shortcut",
    ),
    M(
        "checkpoint/tables.py",
        "_Generator.__init__",
        "np.cos(fine) - 1j * np.sin(fine)",
        "np.cos(fine) + 1j * np.sin(fine)",
        "inspect_table: fine rotation conjugated",
    ),
    M(
        "checkpoint/tables.py",
        "_Generator.worst",
        "expected -= np.multiply(fine_sin[:, :count], sin_a[:count], out=self.other[:rows, :count])",
        "expected += np.multiply(fine_sin[:, :count], sin_a[:count], out=self.other[:rows, :count])",
        "inspect_table: angle addition with the wrong sign",
    ),
    M(
        "checkpoint/tables.py",
        "_refine_columns",
        "3",
        "2",
        "inspect_table: equal columns compared to 2 decimals",
    ),
    M(
        "checkpoint/tables.py",
        "_distinct_rows",
        "mismatch[inverse[here][differ]] = True",
        "mismatch[inverse[here][differ]] = False",
        "inspect_table: hash collisions counted as repeats",
    ),
    M(
        "checkpoint/tables.py",
        "_distinct_rows",
        "tied_mask[:-1] |= tie",
        "tied_mask[:-1] |= False",
        "inspect_table: tied rows not compared",
    ),
    M(
        "checkpoint/tables.py",
        "_lower_bound",
        "factor[width:, width:]",
        "factor[:, width:]",
        "inspect_table: QR residual over the wrong block",
    ),
    M(
        "checkpoint/tables.py",
        "_qr_residual",
        "inputs, targets = (factor[:, :kept], factor[:, kept:])",
        "targets, inputs = (factor[:, :kept], factor[:, kept:])",
        "inspect_table: inputs and targets swapped in the QR",
    ),
    M(
        "checkpoint/tables.py",
        "_offset_dots",
        "gram[:, index, index + k]",
        "gram[:, index, index + k - 1]",
        "inspect_table: offset dot products off by one",
    ),
    M(
        "checkpoint/tables.py",
        "_Generator.worst",
        "max(worst, _extreme(block[:, layout.zeros_at]))",
        "worst",
        "inspect_table: zero columns not checked",
    ),
    M(
        "checkpoint/tables.py",
        "_Generator.worst",
        "np.flatnonzero(where == layout.padding) if layout.padding is not None else []",
        "[]",
        "inspect_table: padding rows not exempted",
    ),
    M(
        "checkpoint/tables.py",
        "_scan_basic",
        "np.minimum",
        "np.maximum",
        "inspect_table: column minimum tracks the maximum",
    ),
    M(
        "checkpoint/tables.py",
        "_refine_columns",
        "(rounded == rounded[:, where_first[classes[shared]]]).all",
        "(rounded == rounded[:, where_first[classes[shared]]]).any",
        "inspect_table: columns equal when one entry is",
    ),
    M(
        "checkpoint/tables.py",
        "_Matcher.block",
        "tolerance - generator.margin < worst <= tolerance + generator.margin",
        "False",
        "inspect_table: borderline rows not re-checked with encode",
    ),
    M(
        "claims.py",
        "judge",
        "holds",
        "as_stated",
        "judge: as_stated decides a failure",
    ),
    M(
        "claims.py",
        "judge",
        "NUANCE",
        "HOLDS",
        "judge: a nuance reported as holds",
    ),
    M(
        "_validation.py",
        "Flag.is_kind",
        "(bool, np.bool_)",
        "(bool, np.bool_, int)",
        "Flag: integers pass (judge's test results too)",
    ),
    M(
        "_validation.py",
        "Flag.is_kind",
        "(bool, np.bool_)",
        "bool",
        "Flag: NumPy booleans rejected (judge's test results too)",
    ),
    M(
        "claims.py",
        "",
        "'^[a-z0-9]+(?:-[a-z0-9]+)*$'",
        "'^[a-z0-9-]+$'",
        "Verdict: claim ids with stray hyphens accepted",
    ),
    M(
        "claims.py",
        "Verdict.__post_init__",
        "'\\n' in self.reason",
        "False",
        "Verdict: multi-line reasons accepted",
    ),
    M(
        "claims.py",
        "Verdict.__post_init__",
        "self.scope.strip()",
        "self.scope",
        "Verdict: a blank scope passes for a non-proof",
    ),
    M(
        "claims.py",
        "Verdict.__post_init__",
        "self.evidence != PROOF",
        "self.evidence == TOY",
        "Verdict: only toy experiments need a scope",
    ),
    M(
        "claims.py",
        "Verdict.__post_init__",
        "not isinstance(self.scope, str) or '\\n' in self.scope",
        "not isinstance(self.scope, str)",
        "Verdict: multi-line scopes accepted",
    ),
    M(
        "claims.py",
        "Verdict.key",
        "GLUE_PREFIX + self.claim",
        "self.claim",
        "Verdict.key: glue prefix dropped",
    ),
    M(
        "claims.py",
        "Verdict.strength",
        "f'{self.evidence} ({self.scope})' if self.scope else self.evidence",
        "f'{self.evidence} ({self.scope})'",
        "Verdict.strength: empty parentheses for a proof",
    ),
    M(
        "claims.py",
        "Verdict._repr_mimebundle_",
        "{'claim': self.claim, 'verdict': self.verdict, 'reason': self.reason, 'evidence': self.evidence, 'scope': self.scope}",
        "{'claim': self.claim, 'verdict': self.verdict, 'reason': self.reason, 'evidence': self.evidence}",
        "Verdict: scope not stored in the notebook",
    ),
    M(
        "claims.py",
        "settled",
        "value + slack",
        "value",
        "settled: value + slack not checked",
    ),
    M(
        "claims.py",
        "settled",
        "value - slack",
        "value",
        "settled: value - slack not checked",
    ),
    M(
        "claims.py",
        "settled",
        "Real(0.0, hint='how far the value may move')",
        "Real(0.0, closed='neither', hint='how far the value may move')",
        "settled: slack 0 rejected",
    ),
    M(
        "claims.py",
        "settled",
        "'neither'",
        "'both'",
        "settled: step 0 accepted",
    ),
    M(
        "claims.py",
        "settled.shown",
        "round(x / step) * step",
        "round(x / step)",
        "settled: step multiple lost",
    ),
    M(
        "claims.py",
        "read_verdicts",
        "verdict.claim in found",
        "False",
        "read_verdicts: a claim recorded twice accepted",
    ),
    M(
        "claims.py",
        "_glued_verdicts",
        "record.get('mime_prefix', '') + MIME_TYPE",
        "MIME_TYPE",
        "read_verdicts: glue's mime prefix ignored",
    ),
    M(
        "claims.py",
        "_glued_verdicts",
        "not record or not record.get('name', '').startswith(GLUE_PREFIX)",
        "not record",
        "read_verdicts: every glued value read as a verdict",
    ),
    M(
        "claims.py",
        "tally",
        "counts[verdict.verdict] += 1",
        "counts[verdict.verdict] = 1",
        "tally: counts at most one of each kind",
    ),
    M(
        "claims.py",
        "tally",
        "not isinstance(verdict, Verdict)",
        "False",
        "tally: non-verdicts accepted",
    ),
    M(
        "plotting.py",
        "",
        "100",
        "72",
        "style: figure dpi 72 instead of 100",
    ),
    M(
        "plotting.py",
        "",
        "200",
        "'figure'",
        "style: savefig dpi not fixed",
    ),
    M(
        "plotting.py",
        "animation_html",
        "html = html.replace(uid, name)",
        "",
        "animation_html: the random player id kept",
    ),
    M(
        "plotting.py",
        "animation_html",
        "html = re.sub('<link[^>]*font-awesome[^>]*>', '', html)",
        "",
        "animation_html: the CDN link kept",
    ),
    M(
        "plotting.py",
        "animation_html",
        "_AUTOPLAY % {'name': name} if autoplay else ''",
        "_AUTOPLAY % {'name': name}",
        "animation_html: autoplay always on",
    ),
    M(
        "plotting.py",
        "animation_html",
        "_drawn_buttons(html)",
        "html",
        "animation_html: Font Awesome icons kept (blank buttons in a notebook)",
    ),
    M(
        "plotting.py",
        "colorbar_in",
        "(0.1, 0.45, 0.8, 0.1)",
        "(0.1, 0.45, 2.5, 0.1)",
        "colorbar_in: the bar runs out of its cell",
    ),
    M(
        "plotting.py",
        "colorbar_in",
        "ax.set_axis_off()",
        "",
        "colorbar_in: the empty cell keeps its axes",
    ),
    M(
        "plotting.py",
        "",
        "MIN_FONT_SIZE",
        "'small'",
        "style: tick labels below the minimum size",
        occurrence=1,
        occurrences=5,
    ),
    M(
        "plotting.py",
        "",
        "11.0",
        "12",
        "style: font size 12 instead of 11",
        occurrence=1,
        occurrences=2,
    ),
    M(
        "plotting.py",
        "",
        "COLORS",
        "COLORS[:-1]",
        "style: colour cycle without black",
    ),
    M(
        "plotting.py",
        "",
        "True",
        "False",
        "style: no grid",
        occurrence=1,
        occurrences=6,
    ),
    M(
        "plotting.py",
        "",
        "'sinpe'",
        "None",
        "style: SVG ids not reproducible",
    ),
    M(
        "plotting.py",
        "figure",
        "(width, height)",
        "(7.0, 3.6)",
        "figure: width and height ignored",
    ),
    M(
        "plotting.py",
        "figure",
        "plt.subplots(nrows, ncols, figsize=(width, height), layout='constrained', squeeze=True, **kwargs)",
        "plt.subplots(ncols, nrows, figsize=(width, height), layout='constrained', squeeze=True, **kwargs)",
        "figure: rows and columns swapped",
    ),
    M(
        "plotting.py",
        "figure",
        "'constrained'",
        "'tight'",
        "figure: tight instead of constrained layout",
    ),
    M(
        "plotting.py",
        "heatmap",
        "'lower'",
        "'upper'",
        "heatmap: rows drawn top to bottom",
    ),
    M(
        "plotting.py",
        "heatmap",
        "ax.imshow(values, origin='lower', aspect='auto', extent=(extent[0], extent[1], extent[2], extent[3]), cmap=SEQUENTIAL, vmin=vmin, vmax=vmax, interpolation='nearest')",
        "ax.imshow(values, origin='lower', aspect='auto', extent=(extent[0], extent[1], extent[2], extent[3]), vmin=vmin, vmax=vmax, interpolation='nearest')",
        "heatmap: colour map left to the rcParams",
    ),
    M(
        "plotting.py",
        "heatmap",
        "ax.imshow(values, origin='lower', aspect='auto', extent=(extent[0], extent[1], extent[2], extent[3]), cmap=SEQUENTIAL, vmin=vmin, vmax=vmax, interpolation='nearest')",
        "ax.imshow(values, origin='lower', aspect='auto', extent=(extent[0], extent[1], extent[2], extent[3]), cmap=SEQUENTIAL, interpolation='nearest')",
        "heatmap: vmin and vmax ignored",
    ),
    M(
        "plotting.py",
        "heatmap",
        "ax.grid(False)",
        "",
        "heatmap: grid drawn over the image",
    ),
    M(
        "plotting.py",
        "unit_circle",
        "2.0 * np.pi",
        "np.pi",
        "unit_circle: half a circle",
    ),
    M(
        "plotting.py",
        "unit_circle",
        "'equal'",
        "'auto'",
        "unit_circle: aspect not equal",
    ),
    M(
        "plotting.py",
        "unit_circle",
        "ax.set_xlabel(horizontal)\nax.set_ylabel(vertical)",
        "ax.set_xlabel(vertical)\nax.set_ylabel(horizontal)",
        "unit_circle: axis labels swapped",
    ),
    M(
        "lab/tasks.py",
        "reversal_task",
        "tokens[:, ::-1]",
        "tokens",
        "reversal_task: targets not reversed",
    ),
    M(
        "lab/tasks.py",
        "previous_token_task",
        "[tokens[:, :1], tokens[:, :-1]]",
        "[tokens[:, 1:], tokens[:, -1:]]",
        "previous_token_task: the next token instead of the previous",
    ),
    M(
        "lab/tasks.py",
        "reversal_ceiling",
        "max(largest - 1, runner_up) if unique_top else largest",
        "largest",
        "reversal_ceiling: the token at hand counted among the others",
    ),
    M(
        "lab/pytorch_record.py",
        "recorded_layers",
        "int(arrays['n_heads'])",
        "2",
        "recorded_layers: n_heads not read from the record",
    ),
    M(
        "images.py",
        "sincos_2d",
        "(col_part, row_part) if first_half == 'column' else (row_part, col_part)",
        "(row_part, col_part) if first_half == 'column' else (col_part, row_part)",
        "sincos_2d: row and column halves swapped (MAE's column-first order lost)",
    ),
    M(
        "images.py",
        "sincos_2d",
        "half = d_model // 2\nby_row = positional_encoding(np.arange(height), half, base=base, layout='concat')",
        "half = d_model // 2\nby_row = positional_encoding(np.arange(height), d_model, base=base, layout='concat')[:, np.r_[:half // 2, d_model // 2:d_model // 2 + half // 2]]",
        "sincos_2d: frequencies of the full width instead of the half",
    ),
    M(
        "images.py",
        "sincos_2d",
        "np.repeat(by_row, width, axis=0)",
        "np.tile(by_row, (width, 1))",
        "sincos_2d: rows not in raster order",
    ),
    M(
        "fourier.py",
        "feature_regression",
        "design = np.hstack([train, np.ones((train.shape[0], 1))])",
        "design = train",
        "feature_regression: no intercept",
    ),
    M(
        "fourier.py",
        "feature_regression",
        "ridge * np.eye(design.shape[1])",
        "ridge",
        "feature_regression: the ridge added to every entry, not the diagonal",
    ),
    M(
        "fourier.py",
        "interpolation_split",
        "(slice(1, None, 2),) * 2",
        "(slice(1, None, 2), slice(None, None, 2))",
        "interpolation_split: test pixels on even columns",
    ),
    M(
        "fourier.py",
        "interpolation_split",
        "'ij'",
        "'xy'",
        "interpolation_split: coordinates in (x, y) order of a meshgrid",
    ),
    M(
        "lab/probes.py",
        "pair_blocks",
        "1j * (c - b)",
        "1j * (b - c)",
        "pair_blocks: rotation angle of the key-side map (sign of theta flipped)",
    ),
    M(
        "lab/probes.py",
        "pair_blocks",
        "d - a + 1j * (b + c)",
        "a - d + 1j * (b + c)",
        "pair_blocks: reflection part with a and d swapped",
    ),
    M(
        "lab/probes.py",
        "pair_blocks",
        "layout",
        "'interleaved'",
        "pair_blocks: the concat layout read as interleaved",
    ),
    M(
        "lab/probes.py",
        "query_key_form",
        "weight[width:2 * width]",
        "weight[2 * width:]",
        "query_key_form: the value rows read as keys",
    ),
    M(
        "lab/probes.py",
        "query_key_form",
        "math.sqrt(head_width) * attention.temperature",
        "math.sqrt(head_width)",
        "query_key_form: the temperature forgotten",
    ),
    M(
        "lab/probes.py",
        "unseen_phases",
        "turn = np.mod(omega, 2 * np.pi)\nreturn nearest > np.minimum(turn, 2 * np.pi - turn) / 2",
        "turn = np.mod(omega, 2 * np.pi)\nreturn nearest > omega / 2",
        "unseen_phases: the step not measured on the circle (a base below 1)",
    ),
    M(
        "lab/probes.py",
        "position_spectrum",
        "power[1:(rows.shape[0] + 1) // 2] *= 2",
        "pass",
        "position_spectrum: the Nyquist bin weighted like the others",
    ),
    M(
        "lab/probes.py",
        "position_spectrum",
        "rows - rows.mean(axis=0)",
        "rows",
        "position_spectrum: the mean not removed",
    ),
    M(
        "lab/probes.py",
        "shift_rotation_residual",
        "left @ right",
        "right.T @ left.T",
        "shift_rotation_residual: the transposed rotation",
    ),
    M(
        "lab/context.py",
        "extend_context",
        "yarn_temperature(factor) if method == 'yarn' else 1.0",
        "1.0",
        "extend_context: YaRN without its temperature",
    ),
    M(
        "lab/context.py",
        "extend_context",
        "copy.deepcopy(model)",
        "model",
        "extend_context: the model itself stretched, not a copy",
    ),
    M(
        "lab/nn.py",
        "MultiHeadAttention.backward",
        "dq = rotate(dq, -positions, frequencies=self.frequencies).astype(x.dtype)\ndk = rotate(dk, -positions, frequencies=self.frequencies).astype(x.dtype)",
        "dq = rotate(dq, -positions).astype(x.dtype)\ndk = rotate(dk, -positions, frequencies=self.frequencies).astype(x.dtype)",
        "MultiHeadAttention.backward: default RoPE frequencies for the query gradient",
    ),
    M(
        "lab/nn.py",
        "MultiHeadAttention.forward",
        "1.0 / (math.sqrt(head_width) * self.temperature)",
        "self.temperature / math.sqrt(head_width)",
        "MultiHeadAttention: scores multiplied by the temperature instead of divided",
    ),
    M(
        "lab/nn.py",
        "PositionalEncoding.__init__",
        "config.position_std",
        "1.0",
        "PositionalEncoding: std of the learned table ignored",
    ),
    M(
        "lab/nn.py",
        "MultiHeadAttention.forward",
        "q = rotate(q, positions, frequencies=self.frequencies).astype(x.dtype)\nk = rotate(k, positions, frequencies=self.frequencies).astype(x.dtype)",
        "q = rotate(q, -positions, frequencies=self.frequencies).astype(x.dtype)\nk = rotate(k, positions, frequencies=self.frequencies).astype(x.dtype)",
        "MultiHeadAttention: scheme hook, queries rotated the wrong way",
    ),
    M(
        "lab/nn.py",
        "MultiHeadAttention.forward",
        "scores + self.scheme.bias(heads, length).astype(x.dtype)",
        "scores - self.scheme.bias(heads, length).astype(x.dtype)",
        "MultiHeadAttention: scheme hook, the bias subtracted (a reward for distance)",
    ),
    M(
        "lab/nn.py",
        "_even_heads",
        "scheme.rotate",
        "scheme.bias",
        "ModelConfig: scheme hook, the even head width asked of a bias, not a rotation",
    ),
]


def declared_in_tests(folder: Path = ROOT / "tests") -> list[Mutant]:
    """The mutants test files declare next to the tests that kill them, so that a new
    module brings its own (no entry above): a top-level ``MUTANTS = [("file.py",
    "scope", "original", "mutated", "description"), ...]`` of literals
    (scripts/declared.py), with the occurrence and the occurrences after them when the
    pattern occurs more than once."""
    return [Mutant(*entry) for value in declared(folder, "MUTANTS") for entry in value]


MUTANTS += declared_in_tests()


def selected(patterns: list[str] | None) -> list[tuple[int, Mutant]]:
    chosen = []
    for number, mutant in enumerate(MUTANTS, 1):
        text = f"{mutant.file} {mutant.scope} {mutant.description}".lower()
        if not patterns or any(pattern.lower() in text for pattern in patterns):
            chosen.append((number, mutant))
    return chosen


def check_mutants(
    mutants: list[tuple[int, Mutant]], root: Path | None = None, *, applied: bool = True
) -> list[str]:
    """What is wrong with each mutant on the tree at ``root``: it must locate exactly
    (once, or at its declared occurrence) and, if ``applied``, apply."""
    problems = []
    trees: dict[str, tuple[str, ast.Module]] = {}
    for number, mutant in mutants:
        path = (root or ROOT) / "sinpe" / mutant.file
        try:
            if mutant.file not in trees:
                source = path.read_text(encoding="utf-8")
                trees[mutant.file] = source, ast.parse(source)
            source, tree = trees[mutant.file]
            if applied:
                apply(source, mutant)  # which locates it first
            else:
                locate(tree, mutant)
        except (BadMutant, OSError, SyntaxError) as error:
            problems.append(f"#{number} {mutant.description}: {error}")
    return problems


def copy_tree(destination: Path) -> Path:
    # book/ stays: tests/test_claims.py checks the ledger against the chapter twins.
    ignore = shutil.ignore_patterns(
        ".git", ".venv", "_build", ".jupyter_cache", "__pycache__", "benchmarks", "build"
    )
    target = destination / "repo"
    shutil.copytree(ROOT, target, ignore=ignore)
    return target


#: The test that killed each mutant last time, run alone first (most kills cost one test).
#: Committed, so that a fresh clone's first run is as quick as the next; the run rewrites
#: it when a killer changes (tests/test_mutants.py checks that every killer exists).
KILLED_BY = ROOT / "tests" / "data" / "mutant_killers.json"
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


def test_function(node: str) -> str:
    """The test function of a pytest node id: a parameter may hold spaces, which cut the
    id short in pytest's "FAILED" line, so a killer runs with all its parameters."""
    return node.split("[", 1)[0]


def key(mutant: Mutant) -> str:
    return f"{mutant.file}|{mutant.scope}|{mutant.description}"


def pytest(copy: Path, targets: list[str]) -> tuple[int | None, str]:
    """pytest's exit status on ``targets`` in ``copy`` (None on a timeout) and its output."""
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1", CI="true")
    # nbval's plugin imports nbformat and jsonschema (seconds per run): not needed here.
    plugins = ["-p", "no:cacheprovider", "-p", "no:nbval", "-p", "no:anyio"]
    command = [sys.executable, "-m", "pytest", "-x", "-q", *plugins, *targets]
    try:
        result = subprocess.run(
            command, cwd=copy, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return None, ""
    return result.returncode, result.stdout + result.stderr


def module_targets(copy: Path, module: str) -> list[str]:
    files = [f"sinpe/{module}", *test_files(module)]
    if (copy / KILLERS).exists():
        files.append(KILLERS)  # written against the mutants the rest lets survive
    return files


def killed_by(copy: Path, killer: str) -> str | None:
    """The outcome when ``killer``, the test that killed this mutant last time, fails
    alone in ``copy``; None when it passes (or no longer exists)."""
    status, _ = pytest(copy, [killer])
    if status is None:
        return "killed (timeout)"
    return "killed" if status == 1 else None


def run_tests(copy: Path, module: str) -> tuple[str, str | None]:
    """The outcome of the module's tests in ``copy`` and the test that failed first."""
    status, output = pytest(copy, module_targets(copy, module))
    if status is None:
        return "killed (timeout)", None
    failed = FAILED.search(output)
    first = test_function(failed.group(1)) if failed else None
    if status == 0:
        return "SURVIVED", None
    if status == 1:  # tests failed
        return "killed", first
    tail = output.strip().splitlines()[-3:]
    return f"killed (pytest exit {status}: {' | '.join(tail)[:80]})", first


class BaselineFailed(Exception):
    """Tests fail on the unmutated copy: a kill by them would mean nothing."""


def killers_pass(
    copies: queue.Queue[Path], cache: dict[str, str], mutants: list[tuple[int, Mutant]]
) -> bool:
    """The baseline of the tests that killed these mutants last time, all in one run on an
    unmutated copy: a kill by one of them means something only if it passes there. False
    (run without them) when one fails or no longer exists; True when there are none."""
    killers = sorted({cache[key(mutant)] for _, mutant in mutants if key(mutant) in cache})
    if not killers:
        return True
    copy = copies.get()
    try:
        begin = time.perf_counter()
        status, _ = pytest(copy, killers)
    finally:
        copies.put(copy)
    elapsed = time.perf_counter() - begin
    if status != 0:
        print(
            f"  baseline   {elapsed:5.1f}s  the killers of the last run do not all pass "
            "unmutated: the module's tests judge every mutant",
            flush=True,
        )
        return False
    print(
        f"  baseline   {elapsed:5.1f}s  the {len(killers)} killers of the last run pass unmutated",
        flush=True,
    )
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        metavar="PATTERN",
        action="append",
        help="file, scope or description substring (repeat for several)",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="parallel workers (2)")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="ignore the committed killers of the last run (tests/data/mutant_killers.json)",
    )
    args = parser.parse_args(argv)
    mutants = selected(args.only)
    problems = check_mutants(mutants, applied=not args.list)
    if problems:
        print("bad mutants:\n" + "\n".join(problems), file=sys.stderr)
        return 2
    if args.list:
        for number, mutant in mutants:
            print(f"{number:3d}  {mutant.file:22s} {mutant.description}")
        print(f"{len(mutants)} mutants")
        return 0
    cache: dict[str, str] = {}
    if KILLED_BY.is_file() and not args.fresh:
        cache = json.loads(KILLED_BY.read_text(encoding="utf-8"))
    jobs = max(1, args.jobs)
    survivors = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sinpe-mutants-") as scratch:
        copies: queue.Queue[Path] = queue.Queue()
        for worker in range(jobs):
            copies.put(copy_tree(Path(scratch) / str(worker)))
        if not killers_pass(copies, cache, mutants):
            cache = {}
        modules = {mutant.file for _, mutant in mutants}
        locks = {module: threading.Lock() for module in modules}
        baselines: dict[str, str] = {}
        stopped = threading.Event()

        def baseline(copy: Path, module: str) -> float:
            """Once per module, before its tests first judge a mutant: they must pass on
            the unmutated ``copy``. Returns the seconds it took here (0 when done)."""
            begin = time.perf_counter()
            with locks[module]:
                if module not in baselines:
                    baselines[module], _ = run_tests(copy, module)
                    if baselines[module] == "SURVIVED":  # passed
                        elapsed = time.perf_counter() - begin
                        print(f"  baseline   {elapsed:5.1f}s  {module:22s} tests pass unmutated")
            if baselines[module] != "SURVIVED":  # a timeout under load reads "killed (timeout)"
                stopped.set()
                raise BaselineFailed(
                    f"baseline: the tests of {module} fail without any mutant ({baselines[module]})"
                )
            return time.perf_counter() - begin

        def one(item: tuple[int, Mutant]) -> tuple[int, Mutant, str, float]:
            number, mutant = item
            if stopped.is_set():
                return number, mutant, "skipped", 0.0
            copy = copies.get()
            path = copy / "sinpe" / mutant.file
            original = path.read_text(encoding="utf-8")
            mutated = apply(original, mutant)
            killer = cache.get(key(mutant))
            begin = time.perf_counter()
            try:
                path.write_text(mutated, encoding="utf-8")
                outcome = killed_by(copy, killer) if killer else None
                if outcome is None:  # no killer, or it no longer kills: the module's tests
                    path.write_text(original, encoding="utf-8")
                    begin += baseline(copy, mutant.file)
                    path.write_text(mutated, encoding="utf-8")
                    outcome, killer = run_tests(copy, mutant.file)
            finally:
                path.write_text(original, encoding="utf-8")
                copies.put(copy)
            if killer:
                cache[key(mutant)] = killer
            return number, mutant, outcome, time.perf_counter() - begin

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            try:
                for number, mutant, outcome, elapsed in pool.map(one, mutants):
                    if outcome == "SURVIVED":
                        survivors.append((number, mutant))
                    print(
                        f"{number:3d}  {outcome:10s} {elapsed:5.1f}s  {mutant.file:22s} "
                        f"{mutant.description}",
                        flush=True,
                    )
            except BaselineFailed as error:
                print(error, file=sys.stderr)
                return 2
    listed = {key(mutant) for mutant in MUTANTS}
    cache = {name: killer for name, killer in cache.items() if name in listed}
    text = json.dumps(cache, indent=0, sort_keys=True) + "\n"
    if not KILLED_BY.is_file() or KILLED_BY.read_text(encoding="utf-8") != text:
        KILLED_BY.write_text(text, encoding="utf-8")
    killed = len(mutants) - len(survivors)
    total = time.perf_counter() - started
    print(
        f"\n{killed} killed, {len(survivors)} survived ({total:.0f} s, "
        f"{total / max(len(mutants), 1):.1f} s per mutant, {jobs} workers)"
    )
    for number, mutant in survivors:
        print(f"  survivor #{number}: {mutant.file}: {mutant.description}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
