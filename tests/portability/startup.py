"""IPython startup file of the portability check: run a notebook as if on another machine.

``scripts/notebooks.py validate --elsewhere`` installs this file in a temporary
``IPYTHONDIR`` and runs
nbval on the chapters with it, next to ``NPY_DISABLE_CPU_FEATURES`` naming every NumPy
dispatch group above the baseline that the machine has. The committed outputs must
come out unchanged. It changes three things a reader's machine may do differently:

1. **Another libm.** Every transcendental NumPy ufunc (``np.sin``, ``np.exp``,
   ``np.power``, ...) returns, for about half of its results, the neighbouring float
   instead: what another faithfully rounded (< 1 ULP) implementation may return.
   Results that are exact (0, +-1, small integers, short dyadic fractions: at least
   half of the significand's trailing bits zero) are left alone, as any
   faithful libm gets them right. The choice is a fixed function of the result's bits,
   so the same input always gives the same output, as on a real machine.
2. **Another BLAS, another summation order.** Every float drawn from a NumPy
   ``Generator`` (weights, noise, Gaussian features) carries a relative perturbation of
   about ``1e-12`` (one unit in the last place for float32 draws). Results that are
   chaotic -- training runs, argmax ties -- then move, as they would on a machine whose
   matrix products round differently.
3. **Another SIMD level** comes from ``NPY_DISABLE_CPU_FEATURES``, set by the runner.

A printed digit that changes under this run is a digit that the computation does not
fix; CONTRIBUTING.md ("Portable outputs") says what to print instead.

Limits: only calls through the ``np.<ufunc>`` attributes are changed -- not the ``**``
operator on arrays, ufunc methods (``np.sin.reduce``), Python's ``math`` module, or BLAS
and LAPACK on inputs that were not drawn at random -- and BLAS keeps one thread in both
runs. CONTRIBUTING.md's rules cover those by review.
"""

from __future__ import annotations

import functools

import numpy as np

#: Relative size of the perturbation of random floats (2).
RELATIVE = 1e-12

#: dtype -> (unsigned type of its bits, trailing zero bits that mark an exact result).
#: float16 is left alone: NumPy computes it in float32 and rounds, so another libm
#: changes a float16 result only when its float32 result crosses a float16 rounding
#: boundary, about 1 value in 8000.
_FLOAT_BITS = {
    np.dtype(np.float64): (np.uint64, 26),
    np.dtype(np.float32): (np.uint32, 12),
}
_MIX = {np.uint64: np.uint64(0x9E3779B97F4A7C15), np.uint32: np.uint32(0x9E3779B9)}


def _choice(values: np.ndarray, *, spare_exact: bool) -> tuple[np.ndarray, np.ndarray]:
    """Which entries to move up and down: a fixed hash of each value's bits."""
    unsigned, short = _FLOAT_BITS[values.dtype]
    bits = values.view(unsigned)
    with np.errstate(over="ignore"):
        mixed = bits * _MIX[unsigned]
    top = (mixed >> unsigned(np.dtype(unsigned).itemsize * 8 - 2)).astype(np.int8)
    eligible = np.isfinite(values)
    if spare_exact:
        low = unsigned((1 << short) - 1)
        eligible &= (bits & low) != 0  # exact results have many trailing zero bits
    return eligible & (top == 1), eligible & (top == 2)


def _nudge_real(values: np.ndarray) -> None:
    """Move about half of the entries of a float array to a neighbouring float, in place."""
    if values.dtype not in _FLOAT_BITS or values.size == 0:
        return
    up, down = _choice(values, spare_exact=True)
    values[up] = np.nextafter(values[up], values.dtype.type(np.inf))
    values[down] = np.nextafter(values[down], values.dtype.type(-np.inf))


def _nudge(result):
    if isinstance(result, tuple):
        return tuple(_nudge(part) for part in result)
    if isinstance(result, np.ndarray):
        if result.dtype.kind == "c":
            _nudge_real(result.real)
            _nudge_real(result.imag)
        elif result.dtype.kind == "f":
            _nudge_real(result)
        return result
    if isinstance(result, np.floating | np.complexfloating):
        array = np.array(result)
        _nudge(array)
        return array[()]
    return result


class _OtherLibm:
    """A NumPy ufunc whose results are those of another faithful libm (see above)."""

    def __init__(self, ufunc: np.ufunc) -> None:
        self._ufunc = ufunc
        functools.update_wrapper(self, ufunc, updated=())

    def __call__(self, *args, **kwargs):
        return _nudge(self._ufunc(*args, **kwargs))

    def __getattr__(self, name: str):
        return getattr(self._ufunc, name)

    def __repr__(self) -> str:
        return f"<ufunc {self._ufunc.__name__!r} (portability check)>"


TRANSCENDENTAL = (
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "power", "float_power", "logaddexp", "logaddexp2", "hypot", "cbrt",
)  # fmt: skip

for _name in TRANSCENDENTAL:
    setattr(np, _name, _OtherLibm(getattr(np, _name)))


def _perturbed(method):
    @functools.wraps(method)
    def draw(self, *args, **kwargs):
        values = method(self, *args, **kwargs)
        if isinstance(values, np.ndarray) and values.dtype in _FLOAT_BITS:
            up, down = _choice(values, spare_exact=False)
            if values.dtype == np.float32:  # 1 +- 1e-12 rounds to 1: move one unit instead
                values[up] = np.nextafter(values[up], np.float32(np.inf))
                values[down] = np.nextafter(values[down], np.float32(-np.inf))
                return values
            values[up] *= 1 + RELATIVE
            values[down] *= 1 - RELATIVE
            return values
        if isinstance(values, float | np.floating):
            return _perturbed_scalar(values)
        return values

    return draw


def _perturbed_scalar(value):
    array = np.array([value], dtype=np.float64)
    up, down = _choice(array, spare_exact=False)
    return float(array[0] * (1 + RELATIVE * (up[0] - down[0])))


class _ElsewhereGenerator(np.random.Generator):
    """A Generator whose float draws differ from the native ones by about 1e-12."""


for _method in ("random", "uniform", "normal", "standard_normal", "standard_cauchy",
                "standard_exponential", "exponential", "laplace", "lognormal", "beta",
                "gamma", "standard_gamma", "multivariate_normal", "dirichlet"):  # fmt: skip
    setattr(_ElsewhereGenerator, _method, _perturbed(getattr(np.random.Generator, _method)))

_native_default_rng = np.random.default_rng


def _default_rng(seed=None):
    if isinstance(seed, np.random.Generator):
        return seed
    return _ElsewhereGenerator(_native_default_rng(seed).bit_generator)


np.random.default_rng = _default_rng
