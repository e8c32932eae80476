"""A small, dependency-free mutation-testing run over sinpe/ (GitHub issue 16).

Each entry of :data:`MUTANTS` (this list, then those a test file declares, see
:func:`declared_in_tests`) is one plausible one-line bug: a file of sinpe/, the
exact original snippet (it must occur exactly once), its mutated replacement and a
short description. For each mutant the repository is copied once to a temporary
directory, the snippet is replaced there, the module's tests and doctests run
against that copy (``PYTHONPATH`` points at it, so the shared working tree is
never modified), and the file is restored. A mutant is *killed* when the tests
fail (or time out), *survives* when they pass.

    python -m scripts.mutants               # run every mutant (make mutants)
    python -m scripts.mutants --only rope   # mutants whose file or description match
    python -m scripts.mutants --only alibi --only psnr   # several patterns
    python -m scripts.mutants --list        # list them, run nothing

Before the mutants, the tests of each module concerned run once on the unmutated
copy: if they fail there, the run stops (a "kill" would mean nothing).

Exit status: 0 when every mutant is killed, 1 when any survives, 2 on a bad mutant
or a failing baseline.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scripts.changed_chapters import imported_modules
from scripts.declared import declared

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
    found = imported_modules(ast.parse(text))
    return {name.removeprefix("sinpe.") for name in found if name != "sinpe"}


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


@dataclass(frozen=True)
class Mutant:
    file: str  # under sinpe/
    original: str  # exact snippet, occurring once in the file
    mutated: str
    description: str


M = Mutant
MUTANTS: list[Mutant] = [
    # --- core.py ---------------------------------------------------------------
    M(
        "core.py",
        "table[..., 0::2] = sines",
        "table[..., 0::2] = cosines",
        "positional_encoding: cos in the sine columns (interleaved)",
    ),
    M(
        "core.py",
        "table[..., : angular.size] = sines",
        "table[..., : angular.size] = cosines",
        "positional_encoding: cos in the sine columns (concat)",
    ),
    M(
        "core.py",
        'if layout == "interleaved":\n        table[..., 0::2]',
        'if layout != "interleaved":\n        table[..., 0::2]',
        "positional_encoding: interleaved and concat swapped",
    ),
    M(
        "core.py",
        "return _rational_powers(base, d_model // 2, -2, d_model)",
        "return _rational_powers(base, d_model // 2, -1, d_model)",
        "frequencies: exponent i/d instead of 2i/d",
    ),
    M(
        "core.py",
        "return _rational_powers(base, d_model // 2, -2, d_model)",
        "return _rational_powers(10000.0, d_model // 2, -2, d_model)",
        "frequencies: base ignored",
    ),
    M(
        "core.py",
        "return 2.0 * np.pi / frequencies(d_model, base=base)",
        "return np.pi / frequencies(d_model, base=base)",
        "wavelengths: factor 2 dropped",
    ),
    M(
        "core.py",
        "sine = index % 2 == 0",
        "sine = index % 2 == 1",
        "component: sin/cos swapped (0-indexed)",
    ),
    M(
        "core.py",
        "pair = (index + 1) // 2 - 1",
        "pair = (index + 1) // 2",
        "component: off-by-one pair (1-indexed)",
    ),
    M(
        "core.py",
        "if not first_index <= index < width + first_index:",
        "if not first_index <= index <= width + first_index:",
        "component: index range check < vs <=",
    ),
    M(
        "core.py",
        "factor = np.sqrt(width) if scale else 1.0",
        "factor = 1.0",
        "add_positional_encoding: sqrt(d) scaling dropped",
    ),
    M(
        "core.py",
        "table = positional_encoding(start + np.arange(seq), width, base=base, dtype=np.float64)",
        "table = positional_encoding(np.arange(seq), width, base, dtype=np.float64)",
        "add_positional_encoding: start ignored",
    ),
    M(
        "core.py",
        "matrix[even + 1, even] = -sin",
        "matrix[even + 1, even] = sin",
        "shift_matrix: sign flip",
    ),
    M(
        "core.py",
        'if source == "concat":  # target interleaved',
        'if source == "interleaved":  # target interleaved',
        "layout_permutation: permutation and its inverse swapped",
    ),
    M(
        "core.py",
        "here, turned = place(anchor_sin, anchor_cos), place(anchor_cos, -anchor_sin)",
        "here, turned = place(anchor_cos, anchor_sin), place(anchor_sin, -anchor_cos)",
        "table: sin/cos swapped in the anchors (every path)",
    ),
    M(
        "core.py",
        "        if not in_place:  # rounded once to the output dtype\n            out[top : top + size] = target",
        "        if not in_place:  # rounded once to the output dtype\n            out[top : top + size] = target[:, ::-1]",
        "table: sin/cos swapped on the float16 (non-direct interleaved) path",
    ),
    M(
        "core.py",
        'columns = layout_permutation(2 * half, "concat", chosen_layout)',
        'columns = layout_permutation(2 * half, "concat", "interleaved")',
        "table: the concat layout written interleaved",
    ),
    M(
        "core.py",
        "ends = np.array([float(start), float(start) + rows - 1])",
        "ends = np.array([float(start)])",
        "table: precision warnings check only the first position",
    ),
    M(
        "core.py",
        "coarse = (float(start) + block * np.arange(-(-rows // block)))",
        "coarse = (float(start) + 1 + block * np.arange(-(-rows // block)))",
        "table: positions start at start + 1",
    ),
    M(
        "core.py",
        "    in_place = out_dtype == np.float64\n",
        "    in_place = out_dtype != np.float16\n",
        "table: float32 computed in float32 (rounded twice, not once)",
    ),
    M(
        "core.py",
        "@constrained(d_model=D_MODEL, base=BASE)\ndef wavelengths(",
        "def wavelengths(",
        "wavelengths: d_model and base checked (by frequencies) but not declared",
    ),
    # --- _validation.py and _precision.py ----------------------------------------
    M(
        "_validation.py",
        '_PAIRS = Condition("be even", lambda v: v % 2 == 0,',
        '_PAIRS = Condition("be even", lambda v: True,',
        "Width: odd widths accepted",
    ),
    M(
        "_validation.py",
        'MIN_BASE, None, closed="left"',
        '0.0, None, closed="neither"',
        "Base: a subnormal base accepted (its frequencies overflow)",
    ),
    M(
        "_validation.py",
        "    lambda v: v != 1.0,",
        "    lambda v: True,",
        "Base: base 1 accepted",
    ),
    M(
        "_validation.py",
        'MIN_BASE, None, closed="left"',
        '0.0, None, closed="both"',
        "Base: base 0 accepted (< vs <=)",
    ),
    M(
        "_precision.py",
        "if largest > limit:",
        "if largest >= limit:",
        "warn_if_unresolvable: warns at exactly 2 / eps (> vs >=)",
    ),
    M(
        "_precision.py",
        "limit = 2.0 / float(np.finfo(dtype).eps)",
        "limit = 4.0 / float(np.finfo(dtype).eps)",
        "warn_if_unresolvable: limit doubled",
    ),
    M(
        "_precision.py",
        "bound = float(np.finfo(np.float64).eps) * (1.0 + (2.0 + abs(np.log(base))) * largest)",
        "bound = float(np.finfo(np.float64).eps) * (1.0 + (2.0 + np.log(base)) * largest)",
        "warn_if_imprecise: |ln base| without abs (bases below 1)",
    ),
    # --- rope.py -----------------------------------------------------------------
    M(
        "rope.py",
        "theta = _ladder(width, base=base)",
        "theta = _ladder(width)",
        "apply_rope: base ignored",
    ),
    M(
        "rope.py",
        "rotated_first = first * cos - second * sin",
        "rotated_first = first * cos + second * sin",
        "apply_rope: sign flip",
    ),
    M(
        "rope.py",
        "out[..., : width // 2], out[..., width // 2 :] = rotated_first, rotated_second",
        "out[..., : width // 2], out[..., width // 2 :] = rotated_second, rotated_first",
        "apply_rope: halves swapped (half layout)",
    ),
    M(
        "rope.py",
        "first, second = vectors[..., 0::2], vectors[..., 1::2]",
        "first, second = vectors[..., : width // 2], vectors[..., width // 2 :]",
        "apply_rope: interleaved input read as half",
    ),
    M(
        "rope.py",
        "if rows.ndim not in (1, 2):",
        "if rows.ndim not in (1, 2, 3):",
        "convert_qk_weight: 3-D weights accepted",
    ),
    M(
        "rope.py",
        'if source == "concat":\n        perm = np.argsort(perm)',
        'if source == "interleaved":\n        perm = np.argsort(perm)',
        "convert_qk_weight: permutation and inverse swapped",
    ),
    M(
        "rope.py",
        "stretched = constant * scale ** (width / (width - 2))",
        "stretched = constant * scale",
        "scaled_frequencies: NTK base without the d/(d-2) exponent",
    ),
    M(
        "rope.py",
        "return frequencies(width, base=constant) / scale",
        "return frequencies(width, base=constant) * scale",
        "scaled_frequencies: interpolation multiplies",
    ),
    M(
        "rope.py",
        "return (1.0 - gamma) * theta / scale + gamma * theta",
        "return gamma * theta / scale + (1.0 - gamma) * theta",
        "scaled_frequencies: YaRN ramp reversed",
    ),
    M(
        "rope.py",
        "_FACTOR = Real(1.0, hint=",
        '_FACTOR = Real(1.0, closed="right", hint=',
        "factor: factor 1 rejected (closed vs open)",
    ),
    M(
        "rope.py",
        "return 1.0 / (0.1 * math.log(scale) + 1.0) ** 2",
        "return 1.0 / (0.1 * math.log(scale) + 1.0)",
        "yarn_temperature: square dropped",
    ),
    M(
        "rope.py",
        "rotated_second = first * sin + second * cos",
        "rotated_second = first * sin - second * cos",
        "apply_rope: second entry of each pair reflected instead of rotated",
    ),
    M(
        "rope.py",
        "out[..., 0::2], out[..., 1::2] = rotated_first, rotated_second",
        "out[..., 0::2], out[..., 1::2] = rotated_second, rotated_first",
        "apply_rope: rotated pair written back swapped (interleaved)",
    ),
    M(
        "rope.py",
        'theta = check_real_array(frequencies, name="frequencies")',
        "theta = _ladder(width, base)",
        "apply_rope: custom frequencies ignored",
    ),
    M(
        "rope.py",
        "if vectors.ndim == 0 or vectors.shape[-1] % 2:",
        "if vectors.ndim == 0:",
        "apply_rope: odd width accepted with custom frequencies",
    ),
    M(
        "_validation.py",
        "        return value in self.choices",
        "        return True",
        "Options: unknown choices accepted (RoPE layouts read as concat)",
    ),
    M(
        "rope.py",
        'LAYOUT_ALIASES = {"half": "concat"}',
        'LAYOUT_ALIASES = {"half": "interleaved"}',
        "_check_rope_layout: 'half' read as interleaved",
    ),
    M(
        "rope.py",
        "if width == 2:\n            return frequencies(width, base=constant)",
        "if False:\n            return frequencies(width, base=constant)",
        "scaled_frequencies: NTK at d = 2 divides by d - 2 = 0",
    ),
    M(
        "rope.py",
        "ratio = original_length * theta / (2 * np.pi)",
        "ratio = original_length * theta / np.pi",
        "scaled_frequencies: YaRN ratio L / (wavelength / 2)",
    ),
    M(
        "rope.py",
        "gamma = np.clip((ratio - alpha) / (beta - alpha), 0.0, 1.0)",
        "gamma = np.clip((ratio - alpha) / beta, 0.0, 1.0)",
        "scaled_frequencies: YaRN ramp divided by beta instead of beta - alpha",
    ),
    M(
        "rope.py",
        "if not alpha < beta:",
        "if not alpha <= beta:",
        "scaled_frequencies: YaRN alpha == beta accepted (< vs <=)",
    ),
    M(
        "rope.py",
        'original_length=Integer(hint="such as 4096")',
        'original_length=Integer(0, hint="such as 4096")',
        "scaled_frequencies: YaRN original_length 0 accepted",
    ),
    M(
        "rope.py",
        "method=Options(*SCALING_METHODS),",
        'method=Options(*SCALING_METHODS, "unknown"),',
        "scaled_frequencies: unknown method falls through to YaRN",
    ),
    M(
        "rope.py",
        "return 1.0 / (0.1 * math.log(scale) + 1.0) ** 2",
        "return 1.0 / (0.1 * math.log10(scale) + 1.0) ** 2",
        "yarn_temperature: log10 instead of ln",
    ),
    M(
        "rope.py",
        "if rows.shape[0] % heads_count:",
        "if rows.shape[0] < heads_count:",
        "convert_qk_weight: rows not a multiple of n_heads accepted",
    ),
    M(
        "rope.py",
        "if source == target:\n        return rows.copy()",
        "if source == target:\n        return rows",
        "convert_qk_weight: same layout returns the caller's array, not a copy",
    ),
    M(
        "rope.py",
        'return layout_permutation(head_width, "interleaved", "concat")',
        'return layout_permutation(head_width, "concat", "interleaved")',
        "rope_permutation: the inverse permutation",
    ),
    # --- alibi.py ----------------------------------------------------------------
    M(
        "alibi.py",
        "return [start * start**index for index in range(n_heads)]",
        "return [start**index for index in range(n_heads)]",
        "alibi_slopes: off-by-one (first slope 1)",
    ),
    M(
        "alibi.py",
        "extra = alibi_slopes(2 * closest)[0::2]",
        "extra = alibi_slopes(2 * closest)[1::2]",
        "alibi_slopes: odd instead of even slopes for extra heads",
    ),
    M(
        "alibi.py",
        "distance = np.abs(np.arange(length)[:, None] - np.arange(length)[None, :])",
        "distance = np.arange(length)[:, None] - np.arange(length)[None, :]",
        "alibi_bias: signed distance",
    ),
    M(
        "alibi.py",
        "start = 2 ** (-(2 ** -(math.log2(n_heads) - 3)))",
        "start = 2 ** (-(2 ** -(math.log2(n_heads) - 2)))",
        "alibi_slopes: ratio 2^(-4/n) instead of 2^(-8/n)",
    ),
    M(
        "alibi.py",
        "closest = 2 ** math.floor(math.log2(count))",
        "closest = 2 ** math.ceil(math.log2(count))",
        "alibi_slopes: closest power of two rounded up",
    ),
    M(
        "alibi.py",
        "return np.concatenate([_power_of_two_slopes(closest), extra])",
        "return np.concatenate([extra, _power_of_two_slopes(closest)])",
        "alibi_slopes: extra heads first",
    ),
    M(
        "alibi.py",
        "if math.log2(count).is_integer():",
        "if count % 2 == 0:",
        "alibi_slopes: every even count treated as a power of two",
    ),
    M(
        "alibi.py",
        "extra = alibi_slopes(2 * closest)[0::2][: count - closest]",
        "extra = alibi_slopes(2 * closest)[0::2][-(count - closest) :]",
        "alibi_slopes: the last instead of the first interleaved slopes",
    ),
    M(
        "alibi.py",
        '@constrained(length=Integer(hint="such as 16 (the sequence length)"), n_heads',
        '@constrained(length=Integer(0, hint="such as 16 (the sequence length)"), n_heads',
        "alibi_bias: length 0 accepted",
    ),
    M(
        "alibi.py",
        "return -alibi_slopes(n_heads)[:, None, None] * distance",
        "return alibi_slopes(n_heads)[:, None, None] * distance",
        "alibi_bias: a reward instead of a penalty (sign)",
    ),
    M(
        "alibi.py",
        '_HEADS = Integer(1, MAX_HEADS, hint="such as 8 or 12")',
        '_HEADS = Integer(1, None, hint="such as 8 or 12")',
        "alibi_slopes: no upper limit on n_heads",
    ),
    M(
        "alibi.py",
        "return [start * start**index for index in range(n_heads)]",
        "return [start * start**index for index in range(n_heads - 1)]",
        "alibi_slopes: one slope short (range off by one)",
    ),
    # --- conventions.py ----------------------------------------------------------
    M(
        "conventions.py",
        "return table.astype(out_dtype, copy=False)",
        "return table",
        "encode: dtype ignored for non-paper conventions",
    ),
    M(
        "conventions.py",
        "return positional_encoding(positions, d_model, base=base, dtype=dtype)",
        "return positional_encoding(positions, d_model, dtype=dtype)",
        "encode: base ignored for the paper convention",
    ),
    M(
        "conventions.py",
        "cosines = all_cosines[..., :cos_count]",
        "cosines = sines[..., :cos_count]",
        "encode: sines in the cosine block",
    ),
    M(
        "conventions.py",
        'blocks = [cosines, sines] if rule.layout == "concat-cos-first" else [sines, cosines]',
        'blocks = [sines, cosines] if rule.layout == "concat-cos-first" else [cosines, sines]',
        "encode: column order swapped",
    ),
    M(
        "conventions.py",
        "return _rational_powers(base, count, -1, max(count - 1, 1))",
        "return _rational_powers(base, count, -1, max(count, 1))",
        "encode: n-1 spacing replaced by n",
    ),
    M(
        "conventions.py",
        "sin_count, cos_count = (width + 1) // 2, width // 2",
        "sin_count, cos_count = width // 2, (width + 1) // 2",
        "encode: odd width gives the extra column to cos",
    ),
    M(
        "conventions.py",
        "table[where == padding_idx] = 0.0",
        "table[where == padding_idx + 1] = 0.0",
        "encode: fairseq zeroes the wrong row",
    ),
    M(
        "conventions.py",
        "return np.cumsum(mask, axis=-1) * mask + padding_idx",
        "return np.cumsum(mask, axis=0) * mask + padding_idx",
        "fairseq_positions: cumulative sum over the wrong axis",
    ),
    M(
        "conventions.py",
        "return _rational_powers(base, count, -1, count)",
        "return _rational_powers(base, count, -2, count)",
        "encode: paper spacing base^(-2k/n) instead of base^(-k/n)",
    ),
    M(
        "conventions.py",
        'if count == 1 and convention != "tensor2tensor":',
        "if count == 1:",
        "encode: tensor2tensor's max(n - 1, 1) guard lost (d = 2 raises)",
    ),
    M(
        "conventions.py",
        'if count == 1 and convention != "tensor2tensor":',
        'if count == 0 and convention != "tensor2tensor":',
        "encode: whisper/fairseq at d = 2 silently use n - 1 -> 1",
    ),
    M(
        "conventions.py",
        "sin_freq = _rational_powers(constant, sin_count, -2, width)",
        "sin_freq = _rational_powers(constant, sin_count, -1, width)",
        "encode: hf-marian exponent j/d instead of 2(j//2)/d",
    ),
    M(
        "conventions.py",
        'width = Width.paired(d_model) if rule.odd_width == "raise" else d_model',
        "width = d_model",
        "encode: odd widths accepted where the source raises",
    ),
    M(
        "conventions.py",
        "table = np.concatenate([table, np.zeros((*where.shape, 1))], axis=-1)",
        "table = np.concatenate([np.zeros((*where.shape, 1)), table], axis=-1)",
        "encode: the zero column of odd widths comes first",
    ),
    M(
        "conventions.py",
        'if rule.name == "fairseq" and padding_idx is not None:\n        table[',
        'if rule.spacing == "n-1" and padding_idx is not None:\n        table[',
        "encode: every n-1 convention zeroes row padding_idx",
    ),
    M(
        "conventions.py",
        "warn_if_unresolvable(where, out_dtype)",
        "pass",
        "encode: no precision warning for non-paper conventions",
    ),
    M(
        "conventions.py",
        "    base=BASE,\n    dtype=DTYPE,\n    positions=POSITIONS,\n    d_model=_ANY_WIDTH,\n)\ndef encode(",
        "    dtype=DTYPE,\n    positions=POSITIONS,\n    d_model=_ANY_WIDTH,\n)\ndef encode(",
        "encode: base not validated for non-paper conventions",
    ),
    M(
        "conventions.py",
        "cosines = all_cosines[..., :cos_count]",
        "cosines = all_cosines[..., -cos_count:]",
        "encode: hf-marian odd width takes the cosines' frequencies from the end",
    ),
    M(
        "conventions.py",
        'return encode(rows, d_model, "fairseq", base=base, padding_idx=padding_idx)',
        'return encode(rows, d_model, "fairseq", padding_idx=padding_idx)',
        "fairseq_embedding: base ignored",
    ),
    M(
        "conventions.py",
        'return encode(rows, d_model, "fairseq", base=base, padding_idx=padding_idx)',
        'return encode(rows, d_model, "fairseq", base=base)',
        "fairseq_embedding: padding_idx not passed on (zeroes row 1)",
    ),
    M(
        "conventions.py",
        "return np.cumsum(mask, axis=-1) * mask + padding_idx",
        "return np.cumsum(mask, axis=-1) + padding_idx",
        "fairseq_positions: padding tokens numbered too",
    ),
    M(
        "conventions.py",
        "_PADDING_IDX = Integer(0, hint",
        "_PADDING_IDX = Integer(1, hint",
        "fairseq_positions: padding_idx 0 rejected",
    ),
    M(
        "conventions.py",
        'if ids.dtype == np.bool_ or ids.dtype.kind not in "iu":',
        'if ids.dtype == np.bool_ or ids.dtype.kind not in "iuf":',
        "fairseq_positions: float token ids accepted",
    ),
    M(
        "conventions.py",
        "table[where == padding_idx] = 0.0",
        "table[where <= padding_idx] = 0.0",
        "encode: fairseq zeroes every row up to padding_idx",
    ),
    # --- nn.py -------------------------------------------------------------------
    M(
        "lab/nn.py",
        "def __init__(self, d_model: int, eps: float = 1e-5) -> None:",
        "def __init__(self, d_model: int, eps: float = 1e-6) -> None:",
        "LayerNorm: default eps 1e-6 instead of 1e-5",
    ),
    M(
        "lab/nn.py",
        "self.factor = math.sqrt(d_model) if config.scale_embeddings else 1.0",
        "self.factor = 1.0",
        "TokenModel: embedding sqrt(D) scaling dropped",
    ),
    M(
        "lab/nn.py",
        "return x + positional_encoding(np.arange(length), self.d_model, base=self.base)",
        "return x + positional_encoding(np.arange(1, length + 1), self.d_model, self.base)",
        "PositionalEncoding: positions start at 1",
    ),
    M(
        "lab/nn.py",
        "return x + positional_encoding(np.arange(length), self.d_model, base=self.base)",
        "return x + positional_encoding(np.arange(length), self.d_model)",
        "PositionalEncoding: base ignored",
    ),
    M(
        "lab/nn.py",
        "scale = 1.0 / (math.sqrt(head_width) * self.temperature)",
        "scale = 1.0 / self.temperature",
        "MultiHeadAttention: 1/sqrt(d_head) scaling dropped",
    ),
    M(
        "lab/nn.py",
        "dq = rotate(dq, -positions, frequencies=self.frequencies).astype(x.dtype)",
        "dq = rotate(dq, positions, frequencies=self.frequencies).astype(x.dtype)",
        "MultiHeadAttention: RoPE backward rotates the wrong way",
    ),
    M(
        "lab/nn.py",
        "bound = math.sqrt(6.0 / (d_model + 3 * d_model))",
        "bound = math.sqrt(6.0 / (d_model + d_model))",
        "MultiHeadAttention: Xavier bound of a (D, D) instead of (3D, D) matrix",
    ),
    M(
        "lab/nn.py",
        "pad_bias = np.where(padding[:, np.newaxis, np.newaxis, :], -np.inf, 0.0)",
        "pad_bias = np.where(padding[:, np.newaxis, :, np.newaxis], -np.inf, 0.0)",
        "attention_bias: padding masks queries instead of keys",
    ),
    M(
        "lab/nn.py",
        "return 0.5 * x * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=x.dtype))",
        "return 0.5 * x * (1.0 + _erf(x / 2.0).astype(x.dtype))",
        "gelu: erf(x / 2) instead of erf(x / sqrt 2)",
    ),
    M(
        "lab/nn.py",
        "- xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)",
        "- xhat * (dxhat * xhat).mean(axis=0, keepdims=True)",
        "LayerNorm.backward: mean over the wrong axis",
    ),
    M(
        "lab/training.py",
        "value -= self.lr * (first / correction1) / (np.sqrt(second / correction2) + self.eps)",
        "value -= self.lr * (first / correction1) / (np.sqrt(second) + self.eps)",
        "Adam: second-moment bias correction dropped",
    ),
    M(
        "lab/nn.py",
        "shifted = scores - np.max(scores, axis=axis, keepdims=True)",
        "shifted = scores - np.max(scores)",
        "softmax: global instead of row-wise max (overflow/underflow)",
    ),
    # --- fourier.py --------------------------------------------------------------
    M(
        "fourier.py",
        "multiples = np.arange(1, int(k) + 1, dtype=np.float64)",
        "multiples = np.arange(int(k), dtype=np.float64)",
        "integer_features: multiples 0..k-1 instead of 1..k",
    ),
    M(
        "fourier.py",
        "phases = np.pi * points[..., :, np.newaxis] * scales",
        "phases = points[..., :, np.newaxis] * scales",
        "nerf_encoding: factor pi dropped",
    ),
    M(
        "fourier.py",
        "phases = 2.0 * np.pi * points @ matrix.T",
        "phases = np.pi * points @ matrix.T",
        "gaussian_features: 2 pi replaced by pi",
    ),
    M(
        "fourier.py",
        "frequencies = _rational_powers(2.0, count, numerator, denominator * (count - 1)) - 1.0",
        "frequencies = _rational_powers(2.0, count, numerator, denominator * count) - 1.0",
        "log_spaced_matrix: linspace off by one",
    ),
    M(
        "fourier.py",
        'return float("inf") if error == 0 else float(-10.0 * np.log10(error))',
        'return float("inf") if error == 0 else float(-20.0 * np.log10(error))',
        "psnr: 20 log10 instead of 10 log10 of the MSE",
    ),
    M(
        "fourier.py",
        "features[..., 0::2] = np.sin(phases)",
        "features[..., 0::2] = np.cos(phases)",
        "integer_features: cos in the sine slots",
    ),
    M(
        "fourier.py",
        'n_frequencies=Integer(hint="such as 8 (the highest multiple)")',
        'n_frequencies=Integer(0, hint="such as 8 (the highest multiple)")',
        "integer_features: k = 0 accepted",
    ),
    M(
        "fourier.py",
        "features = np.stack([np.sin(phases), np.cos(phases)], axis=-1)  # (..., n, L, 2)",
        "features = np.stack([np.sin(phases), np.cos(phases)], axis=-2)  # (..., n, L, 2)",
        "nerf_encoding (paper): all sines of a coordinate before its cosines",
    ),
    M(
        "fourier.py",
        "scales = 2.0 ** np.arange(count)",
        "scales = 2.0 ** np.arange(1, count + 1)",
        "nerf_encoding: frequencies 2^1 .. 2^L instead of 2^0 .. 2^(L-1)",
    ),
    M(
        "fourier.py",
        "blocks = np.stack([np.sin(phases), np.cos(phases)], axis=-2)",
        "blocks = np.stack([np.sin(phases), np.cos(phases)], axis=-1)",
        "nerf_encoding (official): coordinate-major instead of frequency-major blocks",
    ),
    M(
        "fourier.py",
        "return np.concatenate([points, blocks.reshape(*points.shape[:-1], -1)], axis=-1)",
        "return blocks.reshape(*points.shape[:-1], -1)",
        "nerf_encoding (official): raw input not included",
    ),
    M(
        "fourier.py",
        "n_frequencies=Integer(1, 1000,",
        "n_frequencies=Integer(1, 1100,",
        "nerf_encoding: frequency limit raised past float64",
    ),
    M(
        "fourier.py",
        "return rng.normal(0.0, float(sigma), size=(rows, cols))",
        "return rng.normal(0.0, float(sigma) ** 2, size=(rows, cols))",
        "gaussian_matrix: sigma used as the variance",
    ),
    M(
        "fourier.py",
        'sigma=Real(0.0, closed="neither", hint="e.g. 10.0")',
        'sigma=Real(0.0, closed="both", hint="e.g. 10.0")',
        "gaussian_matrix: sigma 0 accepted",
    ),
    M(
        "fourier.py",
        "return np.concatenate([np.sin(phases), np.cos(phases)], axis=-1)",
        "return np.concatenate([np.cos(phases), np.sin(phases)], axis=-1)",
        "gaussian_features: cosines first",
    ),
    M(
        "fourier.py",
        "error = float(np.mean((guess - truth) ** 2))",
        "error = float(np.mean(np.abs(guess - truth)))",
        "psnr: mean absolute instead of mean squared error",
    ),
    M(
        "fourier.py",
        "scale=Real(-1074.0, 1023.0,",
        "scale=Real(-1100.0, 1100.0,",
        "log_spaced_matrix: scale beyond the powers of 2 that float64 holds",
    ),
    M(
        "fourier.py",
        '_COUNT = Integer(hint="such as 8")',
        '_COUNT = Integer(0, hint="such as 8")',
        "_COUNT: 0 accepted (n_frequencies, n_features, n_per_axis)",
    ),
    M(
        "fourier.py",
        "[np.outer(frequencies, np.eye(axes)[axis]) for axis in range(axes)]",
        "[np.outer(frequencies, np.ones(axes)) for axis in range(axes)]",
        "log_spaced_matrix: rows not axis-aligned",
    ),
    # --- analysis.py -------------------------------------------------------------
    M(
        "geometry.py",
        "return np.cos(phases).sum(axis=-1)",
        "return np.cos(phases).sum(axis=0)",
        "dot_product_by_offset: sum over the wrong axis",
    ),
    M(
        "geometry.py",
        "half_angles = np.asarray(offsets)[..., np.newaxis] * frequencies(d_model, base=base) / 2",
        "half_angles = np.asarray(offsets)[..., np.newaxis] * frequencies(d_model, base=base)",
        "distance_by_offset: half angle not halved",
    ),
    M(
        "geometry.py",
        "return np.cos(phases).sum(axis=-1)",
        "return np.sin(phases).sum(axis=-1)",
        "dot_product_by_offset: sin instead of cos",
    ),
    M(
        "geometry.py",
        "return 2.0 * np.sqrt(np.sum(np.sin(half_angles) ** 2, axis=-1))",
        "return np.sqrt(np.sum(np.sin(half_angles) ** 2, axis=-1))",
        "distance_by_offset: factor 2 dropped",
    ),
    M(
        "geometry.py",
        "offsets = np.arange(1, int(context))\n    distances = distance_by_offset(offsets, d_model, base=base)\n    best = int(np.argmin(distances))",
        "offsets = np.arange(1, int(context) + 1)\n    distances = distance_by_offset(offsets, d_model, base=base)\n    best = int(np.argmin(distances))",
        "nearest_distinct_position: offset = context included (off by one)",
    ),
    M(
        "geometry.py",
        "half_angles = np.asarray(offsets)[..., np.newaxis] * frequencies(d_model, base=base) / 2",
        "half_angles = np.asarray(offsets)[..., np.newaxis] * frequencies(d_model) / 2",
        "distance_by_offset: base ignored",
    ),
    M(
        "geometry.py",
        "    distances = distance_by_offset(offsets, d_model, base=base)\n    best = int(np.argmin(distances))",
        "    distances = distance_by_offset(offsets, d_model)\n    best = int(np.argmin(distances))",
        "nearest_distinct_position: base ignored",
    ),
    M(
        "geometry.py",
        "    distances = distance_by_offset(offsets, d_model, base=base)\n    candidates",
        "    distances = distance_by_offset(offsets, d_model)\n    candidates",
        "aliasing: base ignored",
    ),
    M(
        "geometry.py",
        '_CONTEXT = Integer(2, hint="such as 512")',
        '_CONTEXT = Integer(1, hint="such as 512")',
        "nearest_distinct_position: context 1 accepted (so is aliasing's)",
    ),
    M(
        "geometry.py",
        "candidates = offsets >= far",
        "candidates = offsets > far",
        "aliasing: offset far itself not a candidate (>= vs >)",
    ),
    M(
        "geometry.py",
        "looks_like = int(offsets[np.argmax(distances >= distance)])",
        "looks_like = int(offsets[np.argmax(distances > distance)])",
        "aliasing: looks_like needs a strictly larger distance",
    ),
    M(
        "geometry.py",
        "ranges[0::2] = sine\n    ranges[1::2] = cosine",
        "ranges[0::2] = cosine\n    ranges[1::2] = sine",
        "dimension_ranges: sine and cosine ranges swapped",
    ),
    M(
        "geometry.py",
        "sweep = (int(context) - 1) * frequencies(width, base=base)",
        "sweep = int(context) * frequencies(width, base=base)",
        "dimension_ranges: sweep over context instead of context - 1 positions",
    ),
    M(
        "geometry.py",
        "cosine = np.where(sweep >= np.pi, 2.0, 1.0 - np.cos(sweep))",
        "cosine = np.where(sweep >= 2.0 * np.pi, 2.0, 1.0 - np.cos(sweep))",
        "dimension_ranges: cosine saturates at 2 pi instead of pi",
    ),
    M(
        "numerics.py",
        "error = float(np.max(np.abs(guess - truth)))",
        "error = float(np.mean(np.abs(guess - truth)))",
        "correct_digits: mean instead of max error",
    ),
    M(
        "geometry.py",
        "return centred @ (directions * signs[:, np.newaxis]).T",
        "return centred @ directions.T",
        "principal_plane: direction signs not fixed",
    ),
    M(
        "geometry.py",
        "centred = data - data.mean(axis=0)",
        "centred = data - data.mean(axis=1, keepdims=True)",
        "principal_plane: centred over the wrong axis",
    ),
    M(
        "binary.py",
        'n_bits=Integer(1, 62, hint="such as 8")',
        'n_bits=Integer(1, 63, hint="such as 8")',
        "binary_encoding: 63 bits accepted (int64 sign bit)",
    ),
    M(
        "binary.py",
        "whole = np.floor(where).astype(np.int64)",
        "whole = np.round(where).astype(np.int64)",
        "binary_encoding: positions rounded instead of floored",
    ),
    M(
        "numerics.py",
        "rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000",
        "rounded = (bits + 0x7FFF) & 0xFFFF0000",
        "to_bfloat16: ties rounded down instead of to even",
    ),
    M(
        "numerics.py",
        "low = store(np.power(compute(base), store(-steps / compute(d_model))))",
        "low = store(np.power(compute(base), store(-steps / compute(d_model // 2))))",
        "low_precision_frequencies: pow recipe exponent over d/2",
    ),
    M(
        "numerics.py",
        'low = low_precision_frequencies(d_model, "float32", base=base, recipe=recipe)',
        'low = low_precision_frequencies(d_model, "float32", recipe=recipe)',
        "low_precision_bound: base ignored",
    ),
    M(
        "numerics.py",
        'low = low_precision_frequencies(d_model, "float32", base=base, recipe=recipe)',
        'low = low_precision_frequencies(d_model, "float32", base)',
        "low_precision_bound: recipe ignored",
    ),
    M(
        "numerics.py",
        "out[..., 0::2], out[..., 1::2] = sines, cosines",
        "out[..., 0::2], out[..., 1::2] = cosines, sines",
        "computed_in: cosines in the sine columns",
    ),
    M(
        "numerics.py",
        "phases = where.astype(dtype)[..., np.newaxis] * angular.astype(dtype)",
        "phases = where[..., np.newaxis] * angular.astype(dtype)",
        "computed_in: positions not rounded to the precision (float32/float16)",
    ),
    M(
        "numerics.py",
        "phases = to_bfloat16(to_bfloat16(where)[..., np.newaxis] * low_w)",
        "phases = to_bfloat16(where[..., np.newaxis] * low_w)",
        "computed_in: positions not rounded to bfloat16",
    ),
    M(
        "numerics.py",
        "return positional_encoding(where, d_model, base=base)",
        "return positional_encoding(where, d_model)",
        "computed_in: base ignored in float64",
    ),
    M(
        "numerics.py",
        "angular = low_precision_frequencies(d_model, precision, base=base, recipe=recipe)",
        "angular = low_precision_frequencies(d_model, precision, base)",
        "computed_in: recipe ignored",
    ),
    M(
        "numerics.py",
        "with mpmath.workdps(digits):",
        "with mpmath.workdps(15):",
        "reference_encoding: digits ignored (double precision)",
    ),
    M(
        "numerics.py",
        "spacing = np.spacing(np.abs(reference).astype(dtype)).astype(np.float64)",
        "spacing = np.spacing(np.abs(reference)).astype(np.float64)",
        "ulp_error: dtype ignored",
    ),
    M(
        "geometry.py",
        "return float(np.sqrt(np.mean((here @ solution - there) ** 2)))",
        "return float(np.sqrt(np.sum((here @ solution - there) ** 2)))",
        "linear_map_residual: root of the sum instead of the mean",
    ),
    # --- symbolic.py -------------------------------------------------------------
    M(
        "symbolic.py",
        'else f"& {{{lhs}}} \\\\\\\\\\n&\\\\quad = {{{rhs}}}"',
        'else f"& {{{lhs}}} = {{{rhs}}}"',
        "VerifiedIdentity.latex: a long stacked statement kept on one line",
    ),
    M(
        "symbolic.py",
        "        if stacked:  # a short statement stays on one line\n",
        "        if not stacked:  # a short statement stays on one line\n",
        "VerifiedIdentity.latex: stacked inverted",
    ),
    M(
        "symbolic.py",
        "if not _matrix_is_zero(left - right):\n"
        '        raise IdentityError("half(P x) != P interleaved(x)")',
        'if False:\n        raise IdentityError("half(P x) != P interleaved(x)")',
        "verify_rope_layouts: a no-op",
    ),
    M(
        "symbolic.py",
        "return base ** sp.Rational(-2 * index, d_model)",
        "return base ** sp.Rational(-index, d_model)",
        "frequency: exponent i/d instead of 2i/d",
    ),
    M(
        "symbolic.py",
        "out[a] = vector[a] * sp.cos(angle_i) - vector[b] * sp.sin(angle_i)",
        "out[a] = vector[a] * sp.cos(angle_i) + vector[b] * sp.sin(angle_i)",
        "rope (symbolic): sign flip",
    ),
    M(
        "symbolic.py",
        "            sp.sin(position * frequency(i, width, base=base)),\n            sp.cos(position * frequency(i, width, base=base)),",
        "            sp.cos(position * frequency(i, width, base=base)),\n            sp.sin(position * frequency(i, width, base=base)),",
        "sinusoidal_encoding: (cos, sin) pairs",
    ),
    M(
        "symbolic.py",
        "            sp.sin(position * frequency(i, width, base=base)),\n            sp.cos(position * frequency(i, width, base=base)),",
        "            sp.sin(position * frequency(i, width)),\n            sp.cos(position * frequency(i, width)),",
        "sinusoidal_encoding: constant ignored",
    ),
    M(
        "symbolic.py",
        "scale = base ** sp.Rational(2 * (i - 1), width)",
        "scale = base ** sp.Rational(2 * i, width)",
        "one_indexed_encoding: exponent 2i/d instead of 2(i-1)/d",
    ),
    M(
        "symbolic.py",
        "return sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]])",
        "return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])",
        "rotation: counterclockwise instead of clockwise",
    ),
    M(
        "symbolic.py",
        "return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])",
        "return sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]])",
        "counterclockwise: clockwise instead",
    ),
    M(
        "symbolic.py",
        "[rotation(k * frequency(i, width, base=base)) for i in range(width // 2)]",
        "[rotation(k * frequency(i, width)) for i in range(width // 2)]",
        "shift_matrix: constant ignored",
    ),
    M(
        "symbolic.py",
        "return all(_is_zero(entry) for entry in matrix)",
        "return any(_is_zero(entry) for entry in matrix)",
        "_matrix_is_zero: any entry zero suffices",
    ),
    M(
        "symbolic.py",
        "if start.shape[0] != start.shape[1] or sp.simplify(start.det()) == 0:",
        "if start.shape[0] != start.shape[1]:",
        "derive_shift_map: dependent entries not detected",
    ),
    M(
        "symbolic.py",
        "if poly is None or poly.total_degree() > 1 or poly.coeff_monomial(1) != 0:",
        "if poly is None or poly.total_degree() > 1:",
        "derive_shift_map: affine (constant-term) entries accepted",
    ),
    M(
        "symbolic.py",
        "if poly is None or poly.total_degree() > 1 or poly.coeff_monomial(1) != 0:",
        "if poly is None or poly.coeff_monomial(1) != 0:",
        "derive_shift_map: quadratic entries accepted",
    ),
    M(
        "symbolic.py",
        "sp.cos((position - other_position) * frequency(i, width)) for i in range(width // 2)",
        "sp.cos((position + other_position) * frequency(i, width)) for i in range(width // 2)",
        "verify_dot_product: p + q instead of p - q",
    ),
    M(
        "symbolic.py",
        "        for j in range(width):\n            if not _is_zero(textbook[j] - given[j]):",
        "        for j in range(width - 1):\n            if not _is_zero(textbook[j] - given[j]):",
        "verify_indexings_agree: last entry not compared",
    ),
    M(
        "symbolic.py",
        "if all(sp.simplify(entry) == 0 for entry in at_shift):",
        "if any(sp.simplify(entry) == 0 for entry in at_shift):",
        "verify_no_linear_shift: one zero entry of PE(k) rejects the counterexample",
    ),
    M(
        "symbolic.py",
        "for n in range(1, n_frequencies + 1):\n        entries += [sp.sin(n * x), sp.cos(n * x)]",
        "for n in range(n_frequencies):\n        entries += [sp.sin(n * x), sp.cos(n * x)]",
        "integer_features (symbolic): multiples 0..k-1",
    ),
    M(
        "symbolic.py",
        "there = features(angle + 2 * sp.pi, n_frequencies)",
        "there = features(angle + 4 * sp.pi, n_frequencies)",
        "verify_periodic_features: period 4 pi checked instead of 2 pi",
    ),
    M(
        "symbolic.py",
        "angle_i = position * frequency(i, width, base=base)",
        "angle_i = position * frequency(i, width)",
        "rope (symbolic): constant ignored",
    ),
    M(
        "symbolic.py",
        'a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)',
        'a, b = (2 * i, 2 * i + 1) if layout != "interleaved" else (i, i + half)',
        "rope (symbolic): layouts swapped",
    ),
    M(
        "symbolic.py",
        "drift = sp.diff(dot, m) + sp.diff(dot, n)",
        "drift = sp.diff(dot, m) - sp.diff(dot, n)",
        "verify_rope_relative: d/dm - d/dn",
    ),
    M(
        "symbolic.py",
        "if not _is_zero((rotated.T * rotated)[0, 0] - (q.T * q)[0, 0]):",
        "if not _is_zero((rotated.T * q)[0, 0] - (q.T * q)[0, 0]):",
        "verify_rope_norm: compares the wrong product",
    ),
    M(
        "symbolic.py",
        "_WIDTH = _SymbolicWidth(high=MAX_SYMBOLIC_SIZE,",
        "_WIDTH = _SymbolicWidth(high=MAX_SYMBOLIC_SIZE - 2,",
        "symbolic width: the largest width rejected",
    ),
    # --- experiments.py / checks.py ------------------------------------------------
    M(
        "lab/nn.py",
        "return np.triu(np.ones((length, length), dtype=bool), 1)",
        "return np.triu(np.ones((length, length), dtype=bool), 0)",
        "causal_mask: the diagonal masked too (off by one)",
    ),
    M(
        "checkpoint/tables.py",
        '"concat": (slice(0, half), slice(half, 2 * half), slice(2 * half, width)),',
        '"concat": (slice(0, half), slice(half + 1, 2 * half + 1), slice(2 * half, width)),',
        "inspect_table: concat pairs off by one",
    ),
    M(
        "checkpoint/tables.py",
        "if layout.padding is not None or not layout.cosines == layout.frequencies.size > 0:",
        "if not layout.cosines == layout.frequencies.size > 0:",
        "inspect_table: padded layouts take the rotation shortcut",
    ),
    M(
        "checkpoint/tables.py",
        "self.fine = (np.cos(fine) - 1j * np.sin(fine)).astype(pairs)",
        "self.fine = (np.cos(fine) + 1j * np.sin(fine)).astype(pairs)",
        "inspect_table: fine rotation conjugated",
    ),
    M(
        "checkpoint/tables.py",
        "expected -= np.multiply(fine_sin[:, :count], sin_a[:count], out=self.other[:rows, :count])",
        "expected += np.multiply(fine_sin[:, :count], sin_a[:count], out=self.other[:rows, :count])",
        "inspect_table: angle addition with the wrong sign",
    ),
    M(
        "checkpoint/tables.py",
        "rounded = np.round(block[:, shared].astype(np.float64), 3)",
        "rounded = np.round(block[:, shared].astype(np.float64), 2)",
        "inspect_table: equal columns compared to 2 decimals",
    ),
    M(
        "checkpoint/tables.py",
        "mismatch[inverse[here][differ]] = True",
        "mismatch[inverse[here][differ]] = False",
        "inspect_table: hash collisions counted as repeats",
    ),
    M(
        "checkpoint/tables.py",
        "tied_mask[:-1] |= tie",
        "tied_mask[:-1] |= False",
        "inspect_table: tied rows not compared",
    ),
    M(
        "checkpoint/tables.py",
        "total += float(np.sum(factor[width:, width:] ** 2))",
        "total += float(np.sum(factor[:, width:] ** 2))",
        "inspect_table: QR residual over the wrong block",
    ),
    M(
        "checkpoint/tables.py",
        "inputs, targets = factor[:, :kept], factor[:, kept:]",
        "targets, inputs = factor[:, :kept], factor[:, kept:]",
        "inspect_table: inputs and targets swapped in the QR",
    ),
    M(
        "checkpoint/tables.py",
        "dots = gram[:, index, index + k]",
        "dots = gram[:, index, index + k - 1]",
        "inspect_table: offset dot products off by one",
    ),
    M(
        "checkpoint/tables.py",
        "return max(worst, _extreme(block[:, layout.zeros_at]))",
        "return worst",
        "inspect_table: zero columns not checked",
    ),
    M(
        "checkpoint/tables.py",
        "padded = np.flatnonzero(where == layout.padding) if layout.padding is not None else []",
        "padded = []",
        "inspect_table: padding rows not exempted",
    ),
    M(
        "checkpoint/tables.py",
        "np.minimum(found.col_min, low, out=found.col_min)",
        "np.maximum(found.col_min, low, out=found.col_min)",
        "inspect_table: column minimum tracks the maximum",
    ),
    M(
        "checkpoint/tables.py",
        "same = (rounded == rounded[:, where_first[classes[shared]]]).all(axis=0)",
        "same = (rounded == rounded[:, where_first[classes[shared]]]).any(axis=0)",
        "inspect_table: columns equal when one entry is",
    ),
    M(
        "checkpoint/tables.py",
        "if tolerance - generator.margin < worst <= tolerance + generator.margin:",
        "if False:",
        "inspect_table: borderline rows not re-checked with encode",
    ),
    # --- claims.py ---------------------------------------------------------------
    M(
        "claims.py",
        "    if not bool(holds):\n        verdict = FAILS",
        "    if not bool(as_stated):\n        verdict = FAILS",
        "judge: as_stated decides a failure",
    ),
    M(
        "claims.py",
        "    elif not bool(as_stated):\n        verdict = NUANCE",
        "    elif not bool(as_stated):\n        verdict = HOLDS",
        "judge: a nuance reported as holds",
    ),
    M(
        "_validation.py",
        "        return isinstance(value, (bool, np.bool_))\n\n    def convert(self, value: Any) -> bool:",
        "        return isinstance(value, (bool, np.bool_, int))\n\n    def convert(self, value: Any) -> bool:",
        "Flag: integers pass (judge's test results too)",
    ),
    M(
        "_validation.py",
        "        return isinstance(value, (bool, np.bool_))\n\n    def convert(self, value: Any) -> bool:",
        "        return isinstance(value, bool)\n\n    def convert(self, value: Any) -> bool:",
        "Flag: NumPy booleans rejected (judge's test results too)",
    ),
    M(
        "claims.py",
        '_CLAIM_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")',
        '_CLAIM_ID = re.compile(r"^[a-z0-9-]+$")',
        "Verdict: claim ids with stray hyphens accepted",
    ),
    M(
        "claims.py",
        'if "\\n" in self.reason:',
        "if False:",
        "Verdict: multi-line reasons accepted",
    ),
    M(
        "claims.py",
        "if self.evidence != PROOF and not self.scope.strip():",
        "if self.evidence != PROOF and not self.scope:",
        "Verdict: a blank scope passes for a non-proof",
    ),
    M(
        "claims.py",
        "if self.evidence != PROOF and not self.scope.strip():",
        "if self.evidence == TOY and not self.scope.strip():",
        "Verdict: only toy experiments need a scope",
    ),
    M(
        "claims.py",
        'if not isinstance(self.scope, str) or "\\n" in self.scope:',
        "if not isinstance(self.scope, str):",
        "Verdict: multi-line scopes accepted",
    ),
    M(
        "claims.py",
        "return GLUE_PREFIX + self.claim",
        "return self.claim",
        "Verdict.key: glue prefix dropped",
    ),
    M(
        "claims.py",
        'return f"{self.evidence} ({self.scope})" if self.scope else self.evidence',
        'return f"{self.evidence} ({self.scope})"',
        "Verdict.strength: empty parentheses for a proof",
    ),
    M(
        "claims.py",
        '"scope": self.scope,\n            },',
        "},",
        "Verdict: scope not stored in the notebook",
    ),
    M(
        "claims.py",
        "centre, low, high = (shown(x) for x in (value, value - slack, value + slack))",
        "centre, low, high = (shown(x) for x in (value, value - slack, value))",
        "settled: value + slack not checked",
    ),
    M(
        "claims.py",
        "centre, low, high = (shown(x) for x in (value, value - slack, value + slack))",
        "centre, low, high = (shown(x) for x in (value, value, value + slack))",
        "settled: value - slack not checked",
    ),
    M(
        "claims.py",
        'slack=Real(0.0, hint="how far the value may move")',
        'slack=Real(0.0, closed="neither", hint="how far the value may move")',
        "settled: slack 0 rejected",
    ),
    M(
        "claims.py",
        'step=Optional(Real(0.0, closed="neither", hint="e.g. 5"))',
        'step=Optional(Real(0.0, closed="both", hint="e.g. 5"))',
        "settled: step 0 accepted",
    ),
    M(
        "claims.py",
        "return format(round(x / step) * step if step else float(x), spec)",
        "return format(round(x / step) if step else float(x), spec)",
        "settled: step multiple lost",
    ),
    M(
        "claims.py",
        "            if verdict.claim in found:\n                raise",
        "            if False:\n                raise",
        "read_verdicts: a claim recorded twice accepted",
    ),
    M(
        "claims.py",
        'payload = output["data"].get(record.get("mime_prefix", "") + MIME_TYPE)',
        'payload = output["data"].get(MIME_TYPE)',
        "read_verdicts: glue's mime prefix ignored",
    ),
    M(
        "claims.py",
        'if not record or not record.get("name", "").startswith(GLUE_PREFIX):',
        "if not record:",
        "read_verdicts: every glued value read as a verdict",
    ),
    M(
        "claims.py",
        "counts[verdict.verdict] += 1",
        "counts[verdict.verdict] = 1",
        "tally: counts at most one of each kind",
    ),
    M(
        "claims.py",
        "        if not isinstance(verdict, Verdict):\n            raise TypeError(",
        "        if False:\n            raise TypeError(",
        "tally: non-verdicts accepted",
    ),
    # --- plotting.py -------------------------------------------------------------
    M(
        "plotting.py",
        '"figure.dpi": 100,',
        '"figure.dpi": 72,',
        "style: figure dpi 72 instead of 100",
    ),
    M(
        "plotting.py",
        '"savefig.dpi": 200,',
        '"savefig.dpi": "figure",',
        "style: savefig dpi not fixed",
    ),
    M(
        "plotting.py",
        "    html = html.replace(uid, name)\n",
        "",
        "animation_html: the random player id kept",
    ),
    M(
        "plotting.py",
        '    html = re.sub(r"<link[^>]*font-awesome[^>]*>", "", html)\n',
        "",
        "animation_html: the CDN link kept",
    ),
    M(
        "plotting.py",
        'return html + _FITS + (_AUTOPLAY % {"name": name} if autoplay else "")',
        'return html + _FITS + _AUTOPLAY % {"name": name}',
        "animation_html: autoplay always on",
    ),
    M(
        "plotting.py",
        '"xtick.labelsize": MIN_FONT_SIZE,',
        '"xtick.labelsize": "small",',
        "style: tick labels below the minimum size",
    ),
    M(
        "plotting.py",
        '"font.size": 11.0,',
        '"font.size": 12,',
        "style: font size 12 instead of 11",
    ),
    M(
        "plotting.py",
        '"axes.prop_cycle": cycler(color=COLORS),',
        '"axes.prop_cycle": cycler(color=COLORS[:-1]),',
        "style: colour cycle without black",
    ),
    M(
        "plotting.py",
        '"axes.grid": True,',
        '"axes.grid": False,',
        "style: no grid",
    ),
    M(
        "plotting.py",
        '"svg.hashsalt": "sinpe",',
        '"svg.hashsalt": None,',
        "style: SVG ids not reproducible",
    ),
    M(
        "plotting.py",
        'nrows, ncols, figsize=(width, height), layout="constrained"',
        'nrows, ncols, figsize=(7.0, 3.6), layout="constrained"',
        "figure: width and height ignored",
    ),
    M(
        "plotting.py",
        'nrows, ncols, figsize=(width, height), layout="constrained"',
        'ncols, nrows, figsize=(width, height), layout="constrained"',
        "figure: rows and columns swapped",
    ),
    M(
        "plotting.py",
        'nrows, ncols, figsize=(width, height), layout="constrained"',
        'nrows, ncols, figsize=(width, height), layout="tight"',
        "figure: tight instead of constrained layout",
    ),
    M(
        "plotting.py",
        'origin="lower",',
        'origin="upper",',
        "heatmap: rows drawn top to bottom",
    ),
    M(
        "plotting.py",
        "        cmap=SEQUENTIAL,\n",
        "",
        "heatmap: colour map left to the rcParams",
    ),
    M(
        "plotting.py",
        "        vmin=vmin,\n        vmax=vmax,\n",
        "",
        "heatmap: vmin and vmax ignored",
    ),
    M(
        "plotting.py",
        "    bar.set_label(colorbar_label)\n    ax.grid(False)\n",
        "    bar.set_label(colorbar_label)\n",
        "heatmap: grid drawn over the image",
    ),
    M(
        "plotting.py",
        "angles = np.linspace(0.0, 2.0 * np.pi, 361)",
        "angles = np.linspace(0.0, np.pi, 361)",
        "unit_circle: half a circle",
    ),
    M(
        "plotting.py",
        'linewidth=1.0)\n    ax.set_aspect("equal")',
        'linewidth=1.0)\n    ax.set_aspect("auto")',
        "unit_circle: aspect not equal",
    ),
    M(
        "plotting.py",
        "ax.set_xlabel(horizontal)\n    ax.set_ylabel(vertical)",
        "ax.set_xlabel(vertical)\n    ax.set_ylabel(horizontal)",
        "unit_circle: axis labels swapped",
    ),
    M(
        "lab/tasks.py",
        "return tokens, tokens[:, ::-1].copy()",
        "return tokens, tokens.copy()",
        "reversal_task: targets not reversed",
    ),
    M(
        "lab/tasks.py",
        "np.concatenate([tokens[:, :1], tokens[:, :-1]], axis=1)",
        "np.concatenate([tokens[:, 1:], tokens[:, -1:]], axis=1)",
        "previous_token_task: the next token instead of the previous",
    ),
    M(
        "lab/tasks.py",
        "best = max(largest - 1, runner_up) if unique_top else largest",
        "best = largest",
        "reversal_ceiling: the token at hand counted among the others",
    ),
    M(
        "lab/pytorch_record.py",
        'n_heads = int(arrays["n_heads"])',
        "n_heads = 2",
        "recorded_layers: n_heads not read from the record",
    ),
    M(
        "images.py",
        'first, second = (col_part, row_part) if order == "column" else (row_part, col_part)',
        'first, second = (row_part, col_part) if order == "column" else (col_part, row_part)',
        "sincos_2d: row and column halves swapped (MAE's column-first order lost)",
    ),
    M(
        "images.py",
        'by_row = positional_encoding(np.arange(rows), half, base=base, layout="concat")',
        'by_row = positional_encoding(np.arange(rows), total, base=base, layout="concat")'
        "[:, np.r_[: half // 2, total // 2 : total // 2 + half // 2]]",
        "sincos_2d: frequencies of the full width instead of the half",
    ),
    M(
        "images.py",
        "row_part = np.repeat(by_row, cols, axis=0)",
        "row_part = np.tile(by_row, (cols, 1))",
        "sincos_2d: rows not in raster order",
    ),
    M(
        "fourier.py",
        "design = np.hstack([train, np.ones((train.shape[0], 1))])",
        "design = train",
        "feature_regression: no intercept",
    ),
    M(
        "fourier.py",
        "gram = design.T @ design + penalty * np.eye(design.shape[1])",
        "gram = design.T @ design + penalty",
        "feature_regression: the ridge added to every entry, not the diagonal",
    ),
    M(
        "fourier.py",
        "train, test = (slice(None, None, 2),) * 2, (slice(1, None, 2),) * 2",
        "train, test = (slice(None, None, 2),) * 2, (slice(1, None, 2), slice(None, None, 2))",
        "interpolation_split: test pixels on even columns",
    ),
    M(
        "fourier.py",
        'np.meshgrid(np.arange(height) / height, np.arange(width) / width, indexing="ij"),',
        'np.meshgrid(np.arange(height) / height, np.arange(width) / width, indexing="xy"),',
        "interpolation_split: coordinates in (x, y) order of a meshgrid",
    ),
    M(
        "lab/probes.py",
        "rotation = (a + d) + 1j * (c - b)  # rho e^(i theta)",
        "rotation = (a + d) + 1j * (b - c)  # rho e^(i theta)",
        "pair_blocks: rotation angle of the key-side map (sign of theta flipped)",
    ),
    M(
        "lab/probes.py",
        "reflection = (d - a) + 1j * (b + c)  # sigma e^(i psi)",
        "reflection = (a - d) + 1j * (b + c)  # sigma e^(i psi)",
        "pair_blocks: reflection part with a and d swapped",
    ),
    M(
        "lab/probes.py",
        'where = layout_permutation(width, layout, "concat")',
        'where = layout_permutation(width, "interleaved", "concat")',
        "pair_blocks: the concat layout read as interleaved",
    ),
    M(
        "lab/probes.py",
        "queries, keys = weight[:width][rows], weight[width : 2 * width][rows]",
        "queries, keys = weight[:width][rows], weight[2 * width :][rows]",
        "query_key_form: the value rows read as keys",
    ),
    M(
        "lab/probes.py",
        "return queries.T @ keys / (math.sqrt(head_width) * attention.temperature)",
        "return queries.T @ keys / math.sqrt(head_width)",
        "query_key_form: the temperature forgotten",
    ),
    M(
        "lab/probes.py",
        "return nearest > np.minimum(turn, 2 * np.pi - turn) / 2  # half a step on the circle",
        "return nearest > omega / 2",
        "unseen_phases: the step not measured on the circle (a base below 1)",
    ),
    M(
        "lab/probes.py",
        "power[1 : (rows.shape[0] + 1) // 2] *= 2",
        "pass",
        "position_spectrum: the Nyquist bin weighted like the others",
    ),
    M(
        "lab/probes.py",
        "centred = rows - rows.mean(axis=0)",
        "centred = rows",
        "position_spectrum: the mean not removed",
    ),
    M(
        "lab/probes.py",
        "return float(np.linalg.norm(before @ (left @ right) - after) / scale)",
        "return float(np.linalg.norm(before @ (right.T @ left.T) - after) / scale)",
        "shift_rotation_residual: the transposed rotation",
    ),
    M(
        "lab/context.py",
        'temperature = yarn_temperature(factor) if method == "yarn" else 1.0',
        "temperature = 1.0",
        "extend_context: YaRN without its temperature",
    ),
    M(
        "lab/context.py",
        "stretched = copy.deepcopy(model)",
        "stretched = model",
        "extend_context: the model itself stretched, not a copy",
    ),
    M(
        "lab/nn.py",
        "dq = rotate(dq, -positions, frequencies=self.frequencies).astype(x.dtype)",
        "dq = rotate(dq, -positions).astype(x.dtype)",
        "MultiHeadAttention.backward: default RoPE frequencies for the query gradient",
    ),
    M(
        "lab/nn.py",
        "scale = 1.0 / (math.sqrt(head_width) * self.temperature)",
        "scale = self.temperature / math.sqrt(head_width)",
        "MultiHeadAttention: scores multiplied by the temperature instead of divided",
    ),
    M(
        "lab/nn.py",
        'self._add("weight", rng.normal(0.0, config.position_std, size=(max_len, d_model)))',
        'self._add("weight", rng.normal(0.0, 1.0, size=(max_len, d_model)))',
        "PositionalEncoding: std of the learned table ignored",
    ),
    M(
        "lab/nn.py",
        "q = rotate(q, positions, frequencies=self.frequencies).astype(x.dtype)",
        "q = rotate(q, -positions, frequencies=self.frequencies).astype(x.dtype)",
        "MultiHeadAttention: scheme hook, queries rotated the wrong way",
    ),
    M(
        "lab/nn.py",
        "scores = scores + self.scheme.bias(heads, length).astype(x.dtype)",
        "scores = scores - self.scheme.bias(heads, length).astype(x.dtype)",
        "MultiHeadAttention: scheme hook, the bias subtracted (a reward for distance)",
    ),
    M(
        "lab/nn.py",
        'return not scheme.rotate or (fields["d_model"] // fields["n_heads"]) % 2 == 0',
        'return not scheme.bias or (fields["d_model"] // fields["n_heads"]) % 2 == 0',
        "ModelConfig: scheme hook, the even head width asked of a bias, not a rotation",
    ),
]


def declared_in_tests(folder: Path = ROOT / "tests") -> list[Mutant]:
    """The mutants test files declare next to the tests that kill them, so that a new
    module brings its own (no entry above): a top-level ``MUTANTS = [("file.py",
    "original", "mutated", "description"), ...]`` of literals (scripts/declared.py)."""
    return [Mutant(*entry) for value in declared(folder, "MUTANTS") for entry in value]


MUTANTS += declared_in_tests()


def selected(patterns: list[str] | None) -> list[tuple[int, Mutant]]:
    chosen = []
    for number, mutant in enumerate(MUTANTS, 1):
        text = f"{mutant.file} {mutant.description}".lower()
        if not patterns or any(pattern.lower() in text for pattern in patterns):
            chosen.append((number, mutant))
    return chosen


def check_snippets(mutants: list[tuple[int, Mutant]]) -> list[str]:
    problems = []
    for number, mutant in mutants:
        source = (ROOT / "sinpe" / mutant.file).read_text()
        count = source.count(mutant.original)
        if count != 1:
            problems.append(f"#{number} {mutant.file}: original occurs {count} times")
    return problems


def copy_tree(destination: Path) -> Path:
    # book/ stays: tests/test_claims.py checks the ledger against the chapter twins.
    ignore = shutil.ignore_patterns(
        ".git", ".venv", "_build", ".jupyter_cache", "__pycache__", "benchmarks", "build"
    )
    target = destination / "repo"
    shutil.copytree(ROOT, target, ignore=ignore)
    return target


def run_tests(copy: Path, module: str) -> tuple[str, float]:
    files = [f"sinpe/{module}", *test_files(module)]
    if (copy / KILLERS).exists():
        files.append(KILLERS)
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1", CI="true")
    # nbval's plugin imports nbformat and jsonschema (seconds per run): not needed here.
    plugins = ["-p", "no:cacheprovider", "-p", "no:nbval", "-p", "no:anyio"]
    command = [sys.executable, "-m", "pytest", "-x", "-q", *plugins, *files]
    start = time.perf_counter()
    try:
        result = subprocess.run(
            command, cwd=copy, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return "killed (timeout)", time.perf_counter() - start
    elapsed = time.perf_counter() - start
    if result.returncode == 0:
        return "SURVIVED", elapsed
    if result.returncode in (1,):  # tests failed
        return "killed", elapsed
    tail = (result.stdout + result.stderr).strip().splitlines()[-3:]
    return f"killed (pytest exit {result.returncode}: {' | '.join(tail)[:80]})", elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        metavar="PATTERN",
        action="append",
        help="file or description substring (repeat for several)",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    args = parser.parse_args(argv)
    mutants = selected(args.only)
    problems = check_snippets(mutants)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    if args.list:
        for number, mutant in mutants:
            print(f"{number:3d}  {mutant.file:15s} {mutant.description}")
        print(f"{len(mutants)} mutants")
        return 0
    survivors = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sinpe-mutants-") as scratch:
        copy = copy_tree(Path(scratch))
        # Baseline: the unmutated copy must pass, or every "kill" would be meaningless.
        for module in dict.fromkeys(mutant.file for _, mutant in mutants):
            outcome, elapsed = run_tests(copy, module)
            if outcome != "SURVIVED":
                print(f"baseline: the tests of {module} fail without any mutant", file=sys.stderr)
                return 2
            print(f"  baseline   {elapsed:5.1f}s  {module:15s} tests pass unmutated", flush=True)
        for number, mutant in mutants:
            path = copy / "sinpe" / mutant.file
            original = path.read_text()
            try:
                path.write_text(original.replace(mutant.original, mutant.mutated, 1))
                outcome, elapsed = run_tests(copy, mutant.file)
            finally:
                path.write_text(original)
            if outcome == "SURVIVED":
                survivors.append((number, mutant))
            print(
                f"{number:3d}  {outcome:10s} {elapsed:5.1f}s  {mutant.file:15s} "
                f"{mutant.description}",
                flush=True,
            )
    killed = len(mutants) - len(survivors)
    print(f"\n{killed} killed, {len(survivors)} survived ({time.perf_counter() - started:.0f} s)")
    for number, mutant in survivors:
        print(f"  survivor #{number}: {mutant.file}: {mutant.description}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
