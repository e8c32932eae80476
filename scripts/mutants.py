"""A small, dependency-free mutation-testing run over sinpe/ (GitHub issue 16).

Each entry of :data:`MUTANTS` is one plausible one-line bug: a file of sinpe/, the
exact original snippet (it must occur exactly once), its mutated replacement and a
short description. For each mutant the repository is copied once to a temporary
directory, the snippet is replaced there, the module's tests and doctests run
against that copy (``PYTHONPATH`` points at it, so the shared working tree is
never modified), and the file is restored. A mutant is *killed* when the tests
fail (or time out), *survives* when they pass.

    python scripts/mutants.py               # run every mutant (make mutants)
    python scripts/mutants.py --only rope   # mutants whose file or description match
    python scripts/mutants.py --list        # list them, run nothing

Exit status: 0 when every mutant is killed, 1 when any survives, 2 on a bad mutant.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Test files run for a mutant of each module (besides the module's own doctests
#: and tests/test_mutants_killed.py). Fast, targeted files first: ``-x`` stops at
#: the first failure, so a killed mutant costs little.
TESTS = {
    "core.py": ["tests/test_core.py", "tests/test_validation.py", "tests/test_reported_bugs.py"],
    "_validation.py": ["tests/test_validation.py", "tests/test_core.py"],
    "rope.py": ["tests/test_rope_alibi_checks.py", "tests/test_reported_bugs.py"],
    "alibi.py": ["tests/test_rope_alibi_checks.py", "tests/test_reported_bugs.py"],
    "conventions.py": ["tests/test_conventions.py", "tests/test_frequencies.py"],
    "nn.py": ["tests/test_nn_torch.py", "tests/test_nn.py", "tests/test_reported_bugs.py"],
    "fourier.py": ["tests/test_fourier.py", "tests/test_reported_bugs.py"],
    "analysis.py": ["tests/test_analysis.py", "tests/test_reported_bugs.py"],
    "symbolic.py": ["tests/test_symbolic.py", "tests/test_rope_alibi_checks.py"],
    "experiments.py": ["tests/test_experiments.py"],
    "checks.py": ["tests/test_rope_alibi_checks.py"],
}
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
        "table[..., 0::2] = np.sin(phases)",
        "table[..., 0::2] = np.cos(phases)",
        "positional_encoding: cos in the sine columns (interleaved)",
    ),
    M(
        "core.py",
        "table[..., : angular.size] = np.sin(phases)",
        "table[..., : angular.size] = np.cos(phases)",
        "positional_encoding: cos in the sine columns (concat)",
    ),
    M(
        "core.py",
        'if chosen_layout == "interleaved":\n        table[..., 0::2]',
        'if chosen_layout != "interleaved":\n        table[..., 0::2]',
        "positional_encoding: interleaved and concat swapped",
    ),
    M(
        "core.py",
        "return _rational_powers(constant, width // 2, -2, width)",
        "return _rational_powers(constant, width // 2, -1, width)",
        "frequencies: exponent i/d instead of 2i/d",
    ),
    M(
        "core.py",
        "return _rational_powers(constant, width // 2, -2, width)",
        "return _rational_powers(10000.0, width // 2, -2, width)",
        "frequencies: base ignored",
    ),
    M(
        "core.py",
        "return 2.0 * np.pi / frequencies(d_model, base)",
        "return np.pi / frequencies(d_model, base)",
        "wavelengths: factor 2 dropped",
    ),
    M(
        "core.py",
        "trig = np.sin if index % 2 == 0 else np.cos",
        "trig = np.cos if index % 2 == 0 else np.sin",
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
        "table = positional_encoding(start + np.arange(seq), width, base, dtype=np.float64)",
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
        "anchors = np.sin(coarse) + 1j * np.cos(coarse)",
        "anchors = np.cos(coarse) + 1j * np.sin(coarse)",
        "table: sin/cos swapped in the anchors (every path)",
    ),
    M(
        "core.py",
        "out[top : top + size, 0::2] = product.real\n"
        "            out[top : top + size, 1::2] = product.imag",
        "out[top : top + size, 0::2] = product.imag\n"
        "            out[top : top + size, 1::2] = product.real",
        "table: sin/cos swapped on the float16 (non-direct interleaved) path",
    ),
    M(
        "core.py",
        "out[top : top + size, :half] = product.real",
        "out[top : top + size, :half] = product.imag",
        "table: cos in the sine columns (concat path)",
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
        'direct = chosen_layout == "interleaved" and out_dtype != np.float16',
        'direct = chosen_layout == "interleaved"',
        "table: float16 written through a complex view it does not have",
    ),
    # --- _validation.py ----------------------------------------------------------
    M(
        "_validation.py",
        "if even and value % 2:",
        "if False:",
        "check_d_model: odd widths accepted",
    ),
    M(
        "_validation.py",
        "if value == 1.0:",
        "if False:",
        "check_base: base 1 accepted",
    ),
    M(
        "_validation.py",
        "if not np.isfinite(value) or value <= 0:",
        "if not np.isfinite(value) or value < 0:",
        "check_base: base 0 accepted (< vs <=)",
    ),
    M(
        "_validation.py",
        "if largest > limit:",
        "if largest >= limit:",
        "warn_if_unresolvable: warns at exactly 2 / eps (> vs >=)",
    ),
    M(
        "_validation.py",
        "limit = 2.0 / float(np.finfo(dtype).eps)",
        "limit = 4.0 / float(np.finfo(dtype).eps)",
        "warn_if_unresolvable: limit doubled",
    ),
    M(
        "_validation.py",
        "bound = float(np.finfo(np.float64).eps) * (1.0 + (2.0 + abs(np.log(base))) * largest)",
        "bound = float(np.finfo(np.float64).eps) * (1.0 + (2.0 + np.log(base)) * largest)",
        "warn_if_imprecise: |ln base| without abs (bases below 1)",
    ),
    # --- rope.py -----------------------------------------------------------------
    M(
        "rope.py",
        "theta = _ladder(width, base)",
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
        'if source == "half":\n        perm = np.argsort(perm)',
        'if source == "interleaved":\n        perm = np.argsort(perm)',
        "convert_qk_weight: permutation and inverse swapped",
    ),
    M(
        "rope.py",
        "return frequencies(width, constant * scale ** (width / (width - 2)))",
        "return frequencies(width, constant * scale)",
        "scaled_frequencies: NTK base without the d/(d-2) exponent",
    ),
    M(
        "rope.py",
        "return frequencies(width, constant) / scale",
        "return frequencies(width, constant) * scale",
        "scaled_frequencies: interpolation multiplies",
    ),
    M(
        "rope.py",
        "return (1.0 - ramp) * theta / scale + ramp * theta",
        "return ramp * theta / scale + (1.0 - ramp) * theta",
        "scaled_frequencies: YaRN ramp reversed",
    ),
    M(
        "rope.py",
        "if not math.isfinite(value) or value < 1:",
        "if not math.isfinite(value) or value <= 1:",
        "_check_factor: factor 1 rejected (< vs <=)",
    ),
    M(
        "rope.py",
        "return 1.0 / (0.1 * math.log(scale) + 1.0) ** 2",
        "return 1.0 / (0.1 * math.log(scale) + 1.0)",
        "yarn_temperature: square dropped",
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
    # --- conventions.py ----------------------------------------------------------
    M(
        "conventions.py",
        "return table.astype(out_dtype, copy=False)",
        "return table",
        "encode: dtype ignored for non-paper conventions",
    ),
    M(
        "conventions.py",
        "return positional_encoding(positions, d_model, base, dtype=dtype)",
        "return positional_encoding(positions, d_model, dtype=dtype)",
        "encode: base ignored for the paper convention",
    ),
    M(
        "conventions.py",
        "cosines = np.cos(sin_phases[..., :cos_count])",
        "cosines = np.sin(sin_phases[..., :cos_count])",
        "encode: sines in the cosine block",
    ),
    M(
        "conventions.py",
        'blocks = [cosines, sines] if rule.columns == "cos|sin" else [sines, cosines]',
        'blocks = [sines, cosines] if rule.columns == "cos|sin" else [cosines, sines]',
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
    # --- nn.py -------------------------------------------------------------------
    M(
        "nn.py",
        "def __init__(self, d_model: int, eps: float = 1e-5) -> None:",
        "def __init__(self, d_model: int, eps: float = 1e-6) -> None:",
        "LayerNorm: default eps 1e-6 instead of 1e-5",
    ),
    M(
        "nn.py",
        "vocab, d_model, rng, scale=scale_embeddings, std=embedding_std",
        "vocab, d_model, rng, scale=False, std=embedding_std",
        "TokenModel: embedding sqrt(D) scaling dropped",
    ),
    M(
        "nn.py",
        "return x + positional_encoding(np.arange(length), self.d_model, self.base)",
        "return x + positional_encoding(np.arange(1, length + 1), self.d_model, self.base)",
        "PositionalEncoding: positions start at 1",
    ),
    M(
        "nn.py",
        "return x + positional_encoding(np.arange(length), self.d_model, self.base)",
        "return x + positional_encoding(np.arange(length), self.d_model)",
        "PositionalEncoding: base ignored",
    ),
    M(
        "nn.py",
        "scale = 1.0 / math.sqrt(head_width)",
        "scale = 1.0",
        "MultiHeadAttention: 1/sqrt(d_head) scaling dropped",
    ),
    M(
        "nn.py",
        "dq = apply_rope(dq, -np.arange(length)).astype(x.dtype)",
        "dq = apply_rope(dq, np.arange(length)).astype(x.dtype)",
        "MultiHeadAttention: RoPE backward rotates the wrong way",
    ),
    M(
        "nn.py",
        "bound = math.sqrt(6.0 / (d_model + 3 * d_model))",
        "bound = math.sqrt(6.0 / (d_model + d_model))",
        "MultiHeadAttention: Xavier bound of a (D, D) instead of (3D, D) matrix",
    ),
    M(
        "nn.py",
        "pad_bias = np.where(padding[:, np.newaxis, np.newaxis, :], -np.inf, 0.0)",
        "pad_bias = np.where(padding[:, np.newaxis, :, np.newaxis], -np.inf, 0.0)",
        "attention_bias: padding masks queries instead of keys",
    ),
    M(
        "nn.py",
        "return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(x.dtype))",
        "return 0.5 * x * (1.0 + _erf(x / 2.0).astype(x.dtype))",
        "gelu: erf(x / 2) instead of erf(x / sqrt 2)",
    ),
    M(
        "nn.py",
        "- xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)",
        "- xhat * (dxhat * xhat).mean(axis=0, keepdims=True)",
        "LayerNorm.backward: mean over the wrong axis",
    ),
    M(
        "nn.py",
        "value -= self.lr * (first / correction1) / (np.sqrt(second / correction2) + self.eps)",
        "value -= self.lr * (first / correction1) / (np.sqrt(second) + self.eps)",
        "Adam: second-moment bias correction dropped",
    ),
    M(
        "nn.py",
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
    # --- analysis.py -------------------------------------------------------------
    M(
        "analysis.py",
        "return np.cos(phases).sum(axis=-1)",
        "return np.cos(phases).sum(axis=0)",
        "dot_product_by_offset: sum over the wrong axis",
    ),
    M(
        "analysis.py",
        "half_angles = delta[..., np.newaxis] * frequencies(d_model, base) / 2.0",
        "half_angles = delta[..., np.newaxis] * frequencies(d_model, base)",
        "distance_by_offset: half angle not halved",
    ),
    # --- symbolic.py -------------------------------------------------------------
    M(
        "symbolic.py",
        "if not _matrix_is_zero(left - right):\n"
        '        raise IdentityError("half(P x) != P interleaved(x)")',
        'if False:\n        raise IdentityError("half(P x) != P interleaved(x)")',
        "verify_rope_layouts: a no-op",
    ),
    M(
        "symbolic.py",
        "return constant ** sp.Rational(-2 * index, d_model)",
        "return constant ** sp.Rational(-index, d_model)",
        "frequency: exponent i/d instead of 2i/d",
    ),
    M(
        "symbolic.py",
        "out[a] = vector[a] * sp.cos(angle_i) - vector[b] * sp.sin(angle_i)",
        "out[a] = vector[a] * sp.cos(angle_i) + vector[b] * sp.sin(angle_i)",
        "rope (symbolic): sign flip",
    ),
    # --- experiments.py / checks.py ------------------------------------------------
    M(
        "experiments.py",
        "return np.triu(np.ones((length, length), dtype=bool), 1)",
        "return np.triu(np.ones((length, length), dtype=bool), 0)",
        "causal_mask: the diagonal masked too (off by one)",
    ),
    M(
        "checks.py",
        '"concat": table[:, :half] ** 2 + table[:, half : 2 * half] ** 2,',
        '"concat": table[:, :half] ** 2 + table[:, half + 1 : 2 * half + 1] ** 2,',
        "inspect_table: concat pairs off by one",
    ),
]


def selected(pattern: str | None) -> list[tuple[int, Mutant]]:
    chosen = []
    for number, mutant in enumerate(MUTANTS, 1):
        text = f"{mutant.file} {mutant.description}".lower()
        if pattern is None or pattern.lower() in text:
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
    ignore = shutil.ignore_patterns(
        ".git", ".venv", "_build", ".jupyter_cache", "__pycache__", "book", "benchmarks", "*.ipynb"
    )
    target = destination / "repo"
    shutil.copytree(ROOT, target, ignore=ignore)
    return target


def run_tests(copy: Path, mutant: Mutant) -> tuple[str, float]:
    files = [f"sinpe/{mutant.file}", *TESTS.get(mutant.file, [])]
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
    parser.add_argument("--only", metavar="PATTERN", help="file or description substring")
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
        for number, mutant in mutants:
            path = copy / "sinpe" / mutant.file
            original = path.read_text()
            try:
                path.write_text(original.replace(mutant.original, mutant.mutated, 1))
                outcome, elapsed = run_tests(copy, mutant)
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
