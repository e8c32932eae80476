"""The deterministic sine and cosine of sinpe/_trig.py, and its checked public entry
``sinpe.numerics.sincos``.

Oracles: mpmath at 256 bits (the exact value; its float is the correctly rounded
double), the decimal constants of fdlibm's C sources, exact integer arithmetic,
and the scalar reference ``sincos_scalar`` on Python floats. The portability test
reruns ``sincos`` with NumPy's SIMD dispatch above the baseline disabled and
compares the bytes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from sinpe import _trig, numerics
from sinpe._trig import MEDIUM_LIMIT, WIDE_LIMIT, sincos, sincos_scalar

#: The hostile sweep (tests/test_hostile.py) poisons the public entry's argument.
HOSTILE_EXAMPLES = {"sinpe.numerics.sincos": {"phases": [0.5, -2.0, 1e22]}}

HARD_CASE = 6381956970095103 * 2.0**797  # the double closest to a multiple of pi/2
LARGEST = float(np.finfo(np.float64).max)


def ulp_errors(x: np.ndarray) -> tuple[float, float]:
    """Largest errors of ``sincos(x)``, in ulps of the correctly rounded exact values."""
    sine, cosine = sincos(x)
    worst = [0.0, 0.0]
    with mpmath.workprec(256):
        for value, ours in zip(x.tolist(), zip(sine.tolist(), cosine.tolist(), strict=True),
                               strict=True):  # fmt: skip
            phase = mpmath.mpf(value)
            for k, true in enumerate((mpmath.sin(phase), mpmath.cos(phase))):
                error = float(abs(mpmath.mpf(ours[k]) - true)) / math.ulp(float(true))
                worst[k] = max(worst[k], error)
    return worst[0], worst[1]


def nearest_to_multiples_of_pio2(k: np.ndarray) -> np.ndarray:
    """The doubles nearest to ``k pi/2`` and their two neighbours (the hardest reductions)."""
    with mpmath.workprec(256):
        nearest = np.array([float(mpmath.mpf(int(j)) * mpmath.pi / 2) for j in k])
    return np.concatenate([nearest, np.nextafter(nearest, 0), np.nextafter(nearest, np.inf)])


def random_doubles(rng: np.random.Generator, size: int) -> np.ndarray:
    """Finite doubles with uniformly random bit patterns: every exponent, both signs."""
    bits = rng.integers(0, 2**64, size, dtype=np.uint64).view(np.float64)
    return np.where(np.isfinite(bits), bits, 1.0)


# --- constants --------------------------------------------------------------------------


def test_constants_are_fdlibm_decimals():
    # the hex words of the module against the decimal comments of the C sources
    decimals = {
        "INVPIO2": "6.36619772367581382433e-01", "PIO2_1": "1.57079632673412561417e+00",
        "PIO2_2": "6.07710050630396597660e-11", "PIO2_3": "2.02226624871116645580e-21",
        "PIO2_3T": "8.47842766036889956997e-32",
        "S1": "-1.66666666666666324348e-01", "S2": "8.33333333332248946124e-03",
        "S3": "-1.98412698298579493134e-04", "S4": "2.75573137070700676789e-06",
        "S5": "-2.50507602534068634195e-08", "S6": "1.58969099521155010221e-10",
        "C1": "4.16666666666666019037e-02", "C2": "-1.38888888888741095749e-03",
        "C3": "2.48015872894767294178e-05", "C4": "-2.75573143513906633035e-07",
        "C5": "2.08757232129817482790e-09", "C6": "-1.13596475577881948265e-11",
    }  # fmt: skip
    for name, text in decimals.items():
        assert getattr(_trig, name) == float(text), name


def test_pi_constants_against_mpmath():
    with mpmath.workprec(2000):
        pi = mpmath.pi
        two_over_pi = int(mpmath.floor(2 / pi * mpmath.mpf(2) ** _trig.FRACTION_BITS))
        pio2 = int(mpmath.floor(pi / 2 * mpmath.mpf(2) ** _trig.PIO2_BITS))
        split = sum(mpmath.mpf(c) for c in (_trig.PIO2_1, _trig.PIO2_2, _trig.PIO2_3))
        tail = pi / 2 - split - mpmath.mpf(_trig.PIO2_3T)
        assert abs(tail) < mpmath.mpf(2) ** -159  # pi/2 to 159 bits
        assert _trig.INVPIO2 == float(2 / pi)
    assert abs(_trig.TWO_OVER_PI - two_over_pi) <= 2
    assert abs(_trig.PIO2 - pio2) <= 2
    assert _trig.MEDIUM_LIMIT == 2**20 * float(mpmath.pi / 2)
    # every product n * pio2_k of the medium path is exact: few enough significant bits
    for name, bits in (("PIO2_1", 31), ("PIO2_2", 32), ("PIO2_3", 28)):
        numerator = abs(getattr(_trig, name).as_integer_ratio()[0])
        assert numerator.bit_length() <= bits, name


# --- accuracy against mpmath (an independent oracle) --------------------------------------


def test_within_one_ulp_on_random_phases():
    x = np.random.default_rng(20240521).uniform(-1e4, 1e4, 20_000)
    worst = max(ulp_errors(x))
    assert worst <= 1.0  # the contract
    # fdlibm's kernels reach 0.78 ulp (module docstring); a lost tail term stays under 1 ulp
    # but not under 0.85
    assert worst <= 0.85


def test_within_one_ulp_near_multiples_of_pio2():
    rng = np.random.default_rng(7)
    k = np.concatenate([np.arange(1, 301), rng.integers(301, 10**6, 1000), [2**20 - 1, 2**20]])
    x = nearest_to_multiples_of_pio2(k)
    x = np.concatenate([x, -x])
    sine, cosine = ulp_errors(x)
    assert sine <= 1.0 and cosine <= 1.0


def test_within_one_ulp_on_large_and_tiny_phases():
    rng = np.random.default_rng(11)
    x = np.concatenate(
        [
            np.exp(rng.uniform(math.log(MEDIUM_LIMIT), math.log(1e16), 600)),
            np.exp(rng.uniform(math.log(1e16), math.log(LARGEST), 600)),
            np.exp(rng.uniform(math.log(1e-320), math.log(1e-3), 300)),
            nearest_to_multiples_of_pio2(np.array([2**21, 10**9, 2**40 + 1, 2**52 - 1])),
            [HARD_CASE, LARGEST, 1e22, 2.0**1023, 5e-324, 2.2250738585072014e-308],
        ]
    )
    sine, cosine = ulp_errors(np.concatenate([x, -x]))
    assert sine <= 1.0 and cosine <= 1.0


@pytest.mark.parametrize(
    ("pieces", "last", "low", "high"),
    [
        (_trig.FDLIBM_PIECES, _trig.PIO2_3T, 0.0, MEDIUM_LIMIT),
        (_trig.WIDE_PIECES, _trig.WIDE_LAST, MEDIUM_LIMIT, WIDE_LIMIT),
    ],
    ids=["fdlibm-pieces", "17-bit-pieces"],
)
def test_cody_waite_reduction_against_mpmath(pieces, last, low, high):
    """``a - n pi/2`` to within ``2**-70`` relative on the hardest inputs of each range."""
    first, stop = int(low / (math.pi / 2)) + 1, int(high / (math.pi / 2))
    k = np.random.default_rng(stop).integers(first, stop, 400)
    x = nearest_to_multiples_of_pio2(np.concatenate([k, [first, stop - 1]]))
    x = np.concatenate([x[(x >= low) & (x < high)], [low, np.nextafter(high, 0)]])
    assert x.size > 1200
    with mpmath.workprec(400):
        for a in x.tolist():
            n, y0, y1 = _trig._cody_waite_scalar(a, pieces, last)
            assert n == int(mpmath.nint(mpmath.mpf(a) / (mpmath.pi / 2)))
            remainder = mpmath.mpf(a) - n * mpmath.pi / 2
            assert abs(y0) <= math.pi / 4 * (1 + 2**-30) and abs(y1) <= math.ulp(y0) / 2
            assert abs(mpmath.mpf(y0) + y1 - remainder) <= abs(remainder) * mpmath.mpf(2) ** -70


def test_pieces_make_every_product_exact():
    """The conditions the reduction's exactness rests on: ``n q_i`` fits in 53 bits."""
    for pieces, largest_n in ((_trig.FDLIBM_PIECES, 2**20), (_trig.WIDE_PIECES, 2**35)):
        assert all(p > q for p, q in itertools.pairwise(pieces))
        for piece in pieces:
            significant = abs(piece.as_integer_ratio()[0]).bit_length()
            assert largest_n.bit_length() - 1 + significant <= 52
    assert _trig.MEDIUM_LIMIT * _trig.INVPIO2 < 2**20 + 1
    assert _trig.WIDE_LIMIT * _trig.INVPIO2 < 2**35 + 1
    with mpmath.workprec(600):
        split = sum(mpmath.mpf(p) for p in _trig.WIDE_PIECES) + mpmath.mpf(_trig.WIDE_LAST)
        assert abs(mpmath.pi / 2 - split) < mpmath.mpf(2) ** -198  # pi/2 to 198 bits


def test_exact_reduction_against_mpmath():
    """``a = n pi/2 + y0 + y1`` to far more bits than the kernels need, n mod 4 right."""
    rng = np.random.default_rng(5)
    values = [HARD_CASE, LARGEST, WIDE_LIMIT, 1e16 + 2, *random_doubles(rng, 200).tolist()]
    with mpmath.workprec(3000):
        for a in (abs(v) for v in values if abs(v) >= WIDE_LIMIT):
            n, y0, y1 = _trig._reduce_exact(a)
            quotient = mpmath.mpf(a) / (mpmath.pi / 2)
            exact_n = int(mpmath.nint(quotient))
            remainder = mpmath.mpf(a) - exact_n * mpmath.pi / 2
            assert n == exact_n % 4
            assert abs(y0) <= math.pi / 4 * (1 + 2**-50)
            assert y0 == float(remainder)  # correctly rounded
            assert abs(mpmath.mpf(y0) + y1 - remainder) <= abs(remainder) * mpmath.mpf(2) ** -105


# --- special values and symmetry ---------------------------------------------------------


def test_zeros_tiny_and_subnormal_phases():
    x = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-300, -(2.0**-30), 2.2250738585072014e-308])
    sine, cosine = sincos(x)
    assert sine.tobytes() == x.tobytes()  # sin(x) = x, signed zeros included
    assert (cosine == 1.0).all()
    assert math.copysign(1.0, sine[1]) == -1.0
    assert sincos_scalar(-0.0) == (-0.0, 1.0) and math.copysign(1.0, sincos_scalar(-0.0)[0]) < 0


def test_odd_and_even_bit_for_bit():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(0, 1e5, 5000), random_doubles(rng, 300)])
    sine, cosine = sincos(x)
    minus_sine, minus_cosine = sincos(-x)
    assert (-sine).tobytes() == minus_sine.tobytes()
    assert cosine.tobytes() == minus_cosine.tobytes()


def test_correctly_rounded_at_familiar_phases():
    x = np.array([math.pi / 2, math.pi, math.pi / 6, math.pi / 3, 1.0, 0.5, 2.0, 100.0])
    sine, cosine = sincos(x)
    assert sine[0] == 1.0 and cosine[1] == -1.0
    with mpmath.workprec(256):
        assert sine.tolist() == [float(mpmath.sin(mpmath.mpf(v))) for v in x.tolist()]
        assert cosine.tolist() == [float(mpmath.cos(mpmath.mpf(v))) for v in x.tolist()]
    x = np.random.default_rng(9).uniform(-1e6, 1e6, 50_000)
    sine, cosine = sincos(x)
    assert np.abs(sine).max() <= 1.0 and np.abs(cosine).max() <= 1.0


# --- the vectorised version is the scalar reference --------------------------------------


def edge_cases(rng: np.random.Generator) -> np.ndarray:
    limit = np.array([MEDIUM_LIMIT, WIDE_LIMIT])  # where the reduction changes method
    around_limit = np.concatenate(
        [limit, np.nextafter(limit, 0), np.nextafter(limit, np.inf), limit - 1, limit + 1]
    )
    quarter = np.arange(-40, 41) * (math.pi / 4)  # the quadrant boundaries and halfway
    return np.concatenate(
        [
            around_limit,
            quarter,
            np.nextafter(quarter, np.inf),
            np.nextafter(quarter, -np.inf),
            (np.arange(0, 2**20 + 1, 4099) + 0.5) * (math.pi / 2),  # ties of rint(x 2/pi)
            nearest_to_multiples_of_pio2(rng.integers(1, 2**20, 50)),
            random_doubles(rng, 500),
            [0.0, -0.0, 5e-324, HARD_CASE, -LARGEST, 1e16, -1e22],
        ]
    )


def test_vectorised_equals_scalar_reference_bit_for_bit():
    rng = np.random.default_rng(17)
    x = np.concatenate([edge_cases(rng), rng.uniform(-1e4, 1e4, 2000), rng.normal(0, 3, 1000)])
    rng.shuffle(x)
    sine, cosine = sincos(x)
    reference = np.array([sincos_scalar(value) for value in x.tolist()])
    assert sine.tobytes() == np.ascontiguousarray(reference[:, 0]).tobytes()
    assert cosine.tobytes() == np.ascontiguousarray(reference[:, 1]).tobytes()


def test_blocks_and_shapes_do_not_change_the_bits():
    rng = np.random.default_rng(23)
    x = rng.uniform(-3e6, 3e6, 3 * _trig.BLOCK + 17)  # large values in every block
    sine, cosine = sincos(x)
    for part in (slice(0, 5), slice(_trig.BLOCK - 3, _trig.BLOCK + 3), slice(-40, None)):
        piece = sincos(x[part])
        assert piece[0].tobytes() == sine[part].tobytes()
        assert piece[1].tobytes() == cosine[part].tobytes()
    grid = x[: 6 * 50].reshape(6, 50)
    table = sincos(grid.T)  # a non-contiguous 2-d input
    assert table[0].shape == (50, 6) and table[0].dtype == np.float64
    assert table[0].T.tobytes() == sine[:300].tobytes()
    scalar = sincos(2.5)
    assert scalar[0].shape == () and float(scalar[1]) == sincos_scalar(2.5)[1]
    integers = sincos(np.arange(-5, 6))
    assert integers[0].tobytes() == sincos(np.arange(-5.0, 6.0))[0].tobytes()
    assert sincos(np.zeros((0, 3)))[0].shape == (0, 3)


# --- arguments ---------------------------------------------------------------------------


# sinpe._trig trusts its callers (they pass phases they built from checked arguments);
# sinpe.numerics.sincos is the checked entry, the same bits.


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_phases_raise(bad):
    with pytest.raises(ValueError, match="phases must be finite"):
        numerics.sincos(np.array([1.0, bad]))


@pytest.mark.parametrize("bad", [np.array([1 + 2j]), np.array([True]), np.array(["1.0"])])
def test_non_real_phases_raise(bad):
    with pytest.raises(TypeError, match="phases must be real numbers"):
        numerics.sincos(bad)


def test_the_checked_entry_gives_the_same_bits():
    phases = np.array([[-0.0, 1.0, HARD_CASE], [1e22, -LARGEST, 2.0**-1074]])
    checked, trusted = numerics.sincos(phases.tolist()), sincos(phases)
    for ours, theirs in zip(checked, trusted, strict=True):
        assert ours.dtype == np.float64 and ours.shape == (2, 3)
        assert ours.tobytes() == theirs.tobytes()
    assert numerics.sincos(3)[0].shape == ()


# --- the same bytes at NumPy's baseline SIMD level ---------------------------------------

CHILD = """
import hashlib, json, sys
import numpy as np
try:
    from numpy._core import _multiarray_umath as umath
except ImportError:  # NumPy 1.x
    from numpy.core import _multiarray_umath as umath
from sinpe._trig import sincos
x = np.frombuffer(sys.stdin.buffer.read(), dtype=np.float64)
sine, cosine = sincos(x)
product = (x[:999] + 1j * x[1:1000]) * (x[2:1001] - 1j * x[3:1002])  # FMA loops on AVX2
json.dump({"sin": hashlib.sha256(sine.tobytes()).hexdigest(),
           "cos": hashlib.sha256(cosine.tobytes()).hexdigest(),
           "control": hashlib.sha256(product.tobytes()).hexdigest(),
           "enabled": [g for g in umath.__cpu_dispatch__ if umath.__cpu_features__.get(g)]},
          sys.stdout)
"""


def test_same_bytes_with_simd_dispatch_disabled(notebooks):
    rng = np.random.default_rng(31)
    positions = np.arange(4096.0)[:, None] * np.geomspace(1.0, 1e-4, 64)[None, :]
    x = np.concatenate(
        [positions.ravel(), rng.uniform(-1e4, 1e4, 100_000), edge_cases(rng), -edge_cases(rng)]
    )
    groups = notebooks.dispatch_above_baseline()
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(groups)}
    runs = [
        json.loads(subprocess.run([sys.executable, "-c", CHILD], input=x.tobytes(), env=environ,
                                  capture_output=True, check=True).stdout)
        for environ in (os.environ, env)
    ]  # fmt: skip
    native, baseline = runs
    assert native["enabled"] == groups and not baseline["enabled"]  # the switch took effect
    if "X86_V3" in groups:  # and it changes results: NumPy's AVX2 complex product uses FMA
        assert native["control"] != baseline["control"]
    sine, cosine = sincos(x)
    assert native["sin"] == baseline["sin"] == hashlib.sha256(sine.tobytes()).hexdigest()
    assert native["cos"] == baseline["cos"] == hashlib.sha256(cosine.tobytes()).hexdigest()
