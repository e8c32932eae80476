"""Deterministic sine and cosine of float64 phases, the same bits on every machine.

``np.sin`` and ``np.cos`` come from the platform's libm or from NumPy's SIMD loops,
which differ in the last bit between machines. :func:`sincos` is built only from
IEEE-754 basic operations (add, subtract, multiply, each rounded once), exact
operations (absolute value, comparisons, selections, sign flips and integer bit
operations) and exact Python-integer arithmetic, so its result depends only on the
input bits. :func:`sincos_scalar` is the same algorithm on Python floats, one
operation at a time: the reference the vectorised version is tested against.

Algorithm (fdlibm 5.3 as in FreeBSD msun: ``lib/msun/src/e_rem_pio2.c``,
``k_sin.c`` and ``k_cos.c`` of the repository ``freebsd/freebsd-src``)

1. ``a = |x|``; the sign of ``x`` is applied at the end, so ``sin(-x) == -sin(x)``
   bit for bit and ``sin(-0.0) == -0.0``.
2. Argument reduction ``a = n pi/2 + (y0 + y1)``, ``|y0 + y1| <~ pi/4``, the tail
   ``y1`` below half an ulp of ``y0``, in one of three ranges:

   * ``a < MEDIUM_LIMIT = 2**20 pi/2`` (about 1.65e6): Cody-Waite with fdlibm's
     split of ``pi/2`` (31, 32 and 28 significant bits, and a rest: 159 bits);
   * ``a < WIDE_LIMIT = 2**35 pi/2`` (about 5.4e10): the same scheme with
     ``pi/2`` cut into eight pieces of at most 17 bits and a rest (198 bits);
   * beyond, up to the largest float64: exact reduction with Python integers
     (Payne-Hanek, with ``2/pi`` to 1300 bits and ``pi/2`` to 192 bits computed
     at import with Machin's formula), a few microseconds per element.

   Cody-Waite: ``n = rint(a * invpio2)`` by adding and subtracting ``0x1.8p52``;
   with ``n <= 2**k`` and pieces of at most ``b`` bits, ``k + b <= 52``, so every
   product ``n q_i`` is exact, and so is ``a - n q_1``. Each further subtraction
   is split exactly into its rounded value and its error (Dekker's Fast2Sum, as
   fdlibm writes it); the errors are summed into the tail. fdlibm takes its
   second and third rounds only when it detects cancellation, which cannot be
   written branch-free; taking every round needs no test. The error of
   ``y0 + y1`` is below ``2**-100 |y0| + 2**-130``, while no double is closer than
   about ``2**-61`` to a nonzero multiple of ``pi/2`` (the closest is
   ``6381956970095103 * 2**797``).
3. Kernels on ``[-pi/4, pi/4]``: fdlibm's ``__kernel_sin(y0, y1, 1)`` and
   ``__kernel_cos(y0, y1)`` with their coefficients (Remez error below
   ``2**-58``), in exactly the order of operations of the C source.
4. Quadrant by ``n mod 4``: ``(sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s)``.

Accuracy: within 1 ulp of the exact value (mpmath at 256 bits). Measured with
``python benchmarks/trig.py --accuracy`` on 3.8 million seeded phases (uniform in
``[-1e4, 1e4]``, log-uniform up to 1.8e308, the doubles nearest ``k pi/2``): at
most 0.771 ulp, 97 to 100 % correctly rounded. The error is that of fdlibm's
kernels; the reduction adds nothing measurable. ``tests/test_trig.py`` checks the
bound on about 31 000 phases of the same kinds.

Assumptions, stated plainly:

* float64 is IEEE-754 binary64 with round-to-nearest-even, and subnormals are
  neither flushed to zero nor treated as zero (no FTZ/DAZ);
* each NumPy ufunc call rounds each element once: separate calls are never fused
  into an FMA (this module never calls ``np.dot``, ``matmul`` or
  ``polyval``-like helpers);
* CPython rounds each float operation separately (``FLT_EVAL_METHOD == 0``);
* conversions between float64 bits and integers are exact.

The functions here trust their callers, which pass finite float64 phases they built
from checked arguments (``sinpe.core``, ``sinpe.conventions``, ``sinpe.rope``): this
module imports no other. The checked entry for everyone else is
:func:`sinpe.numerics.sincos`.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import numpy.typing as npt

__all__ = ["MEDIUM_LIMIT", "WIDE_LIMIT", "sincos", "sincos_scalar"]


def _from_words(high: int, low: int) -> float:
    """The float64 whose IEEE-754 bits are ``high:low`` (as fdlibm writes its constants)."""
    return struct.unpack("<d", struct.pack("<Q", (high << 32) | low))[0]


# e_rem_pio2.c: 53 bits of 2/pi, then pi/2 in three parts ("33 bits" each in fdlibm's words:
# 31, 32 and 28 significant bits) and the rest.
INVPIO2 = _from_words(0x3FE45F30, 0x6DC9C883)  # 6.36619772367581382433e-01
PIO2_1 = _from_words(0x3FF921FB, 0x54400000)  # 1.57079632673412561417e+00
PIO2_2 = _from_words(0x3DD0B461, 0x1A600000)  # 6.07710050630396597660e-11
PIO2_3 = _from_words(0x3BA3198A, 0x2E000000)  # 2.02226624871116645580e-21
PIO2_3T = _from_words(0x397B839A, 0x252049C1)  # 8.47842766036889956997e-32

# k_sin.c
S1 = _from_words(0xBFC55555, 0x55555549)  # -1.66666666666666324348e-01
S2 = _from_words(0x3F811111, 0x1110F8A6)  # 8.33333333332248946124e-03
S3 = _from_words(0xBF2A01A0, 0x19C161D5)  # -1.98412698298579493134e-04
S4 = _from_words(0x3EC71DE3, 0x57B1FE7D)  # 2.75573137070700676789e-06
S5 = _from_words(0xBE5AE5E6, 0x8A2B9CEB)  # -2.50507602534068634195e-08
S6 = _from_words(0x3DE5D93A, 0x5ACFD57C)  # 1.58969099521155010221e-10

# k_cos.c
C1 = _from_words(0x3FA55555, 0x5555554C)  # 4.16666666666666019037e-02
C2 = _from_words(0xBF56C16C, 0x16C15177)  # -1.38888888888741095749e-03
C3 = _from_words(0x3EFA01A0, 0x19CB1590)  # 2.48015872894767294178e-05
C4 = _from_words(0xBE927E4F, 0x809C52AD)  # -2.75573143513906633035e-07
C5 = _from_words(0x3E21EE9E, 0xBDB4B1C4)  # 2.08757232129817482790e-09
C6 = _from_words(0xBDA8FAE9, 0xBE8838D4)  # -1.13596475577881948265e-11

#: ``rint(t) = (t + 0x1.8p52) - 0x1.8p52`` for ``|t| < 2**51`` (round to nearest even).
MAGIC = 1.5 * 2.0**52  # 0x1.8p52

#: Phases with ``|x|`` below this (``2**20 * pi/2``, about 1.65e6) are reduced with
#: fdlibm's three-part split of pi/2; below ``WIDE_LIMIT`` (``2**35 * pi/2``, about
#: 5.4e10) with eight 17-bit pieces; the others, up to the largest float64, exactly
#: with Python integers.
MEDIUM_LIMIT = math.pi * 2.0**19
WIDE_LIMIT = math.pi * 2.0**34

#: Bits of 2/pi (enough for the largest float64), of the reduced fraction and of pi/2
#: in the exact reduction.
FRACTION_BITS = 1300
KEPT_BITS = 256
PIO2_BITS = 192

#: Elements per block of :func:`sincos` (its temporaries stay in the L2 cache).
BLOCK = 8192

_SIGN = np.uint64(1 << 63)


def _pi_scaled(bits: int) -> int:
    """``pi * 2**bits`` within 2 units, by Machin's ``pi = 16 atan(1/5) - 4 atan(1/239)``."""
    guard = 32
    unity = 1 << (bits + guard)

    def arccot(k: int) -> int:  # atan(1/k) * unity, each truncated term off by < 1
        total = power = unity // k
        square, index, sign = k * k, 3, -1
        while True:
            power //= square
            term = power // index
            if term == 0:
                return total
            total += sign * term
            sign, index = -sign, index + 2

    return (16 * arccot(5) - 4 * arccot(239)) >> guard


_PI_BITS = FRACTION_BITS + 64
_PI = _pi_scaled(_PI_BITS)
#: ``2/pi * 2**FRACTION_BITS`` and ``pi/2 * 2**PIO2_BITS``, as integers (within 2 units).
TWO_OVER_PI = (1 << (FRACTION_BITS + 1 + _PI_BITS)) // _PI
PIO2 = _PI >> (_PI_BITS - PIO2_BITS + 1)
_WINDOW_MASK = (1 << (55 + KEPT_BITS)) - 1


def _split_pio2(bits: int, count: int) -> tuple[tuple[float, ...], float]:
    """``pi/2`` as ``count`` floats of at most ``bits`` significant bits each (truncated,
    each starting at the leading bit of what is left), and the rest rounded to float64."""
    scale = 400
    rest = _PI >> (_PI_BITS - scale + 1)  # pi/2 * 2**400
    pieces = []
    for _ in range(count):
        drop = rest.bit_length() - bits
        piece = rest >> drop
        pieces.append(math.ldexp(piece, drop - scale))
        rest -= piece << drop
    return tuple(pieces), math.ldexp(float(rest), -scale)


#: fdlibm's split of pi/2, for ``|x| < MEDIUM_LIMIT``.
FDLIBM_PIECES = (PIO2_1, PIO2_2, PIO2_3)
#: Eight pieces of at most 17 bits and the rest (pi/2 to 198 bits), for
#: ``MEDIUM_LIMIT <= |x| < WIDE_LIMIT``: ``n < 2**35`` times 17 bits is exact.
WIDE_PIECES, WIDE_LAST = _split_pio2(17, 8)


def _reduce_exact(a: float) -> tuple[int, float, float]:
    """``(n mod 4, y0, y1)`` with ``a = n pi/2 + y0 + y1``, for a finite ``a >= 1``, exactly.

    Payne-Hanek with Python integers: ``a = m 2**e`` exactly, and only the window
    of bits of ``2/pi`` that changes ``n mod 4`` or the fraction is multiplied
    (bits ``e - 1 .. e + 53 + KEPT_BITS`` of ``TWO_OVER_PI``). ``y0`` is the
    remainder correctly rounded and ``y1`` what is left of it, rounded:
    ``y0 + y1`` is within ``2**-104 |y0|`` of the remainder, and
    ``|y0| > 2**-62`` for every double.
    """
    mantissa, exponent = math.frexp(a)
    m, e = int(mantissa * 2.0**53), exponent - 53
    window = (TWO_OVER_PI >> (FRACTION_BITS - e - 53 - KEPT_BITS)) & _WINDOW_MASK
    product = m * window
    shift = 53 + KEPT_BITS
    n = (product + (1 << (shift - 1))) >> shift
    remainder = (product - (n << shift)) * PIO2
    scale = shift + PIO2_BITS
    y0 = math.ldexp(float(remainder), -scale)
    top, bottom = y0.as_integer_ratio()  # bottom = 2**j with j < 120 (|y0| > 2**-62)
    rest = remainder - (top << (scale - bottom.bit_length() + 1))
    return n & 3, y0, math.ldexp(float(rest), -scale)


def _kernels_scalar(x: float, y: float) -> tuple[float, float]:
    """fdlibm's ``__kernel_sin(x, y, 1)`` and ``__kernel_cos(x, y)``, operation by operation."""
    z = x * x
    w = z * z
    r = (S2 + z * (S3 + z * S4)) + (z * w) * (S5 + z * S6)
    v = z * x
    sine = x - ((z * (0.5 * y - v * r) - y) - v * S1)
    r = z * (C1 + z * (C2 + z * C3)) + (w * w) * (C4 + z * (C5 + z * C6))
    hz = 0.5 * z
    w = 1.0 - hz
    cosine = w + (((1.0 - w) - hz) + (z * r - x * y))
    return sine, cosine


def _cody_waite_scalar(
    a: float, pieces: tuple[float, ...], last: float
) -> tuple[int, float, float]:
    """``(n, y0, y1)``: ``a - n (pieces + last)`` with every rounding error carried exactly."""
    fn = (a * INVPIO2 + MAGIC) - MAGIC  # rint(a 2/pi)
    s = a - fn * pieces[0]  # exact
    tail = 0.0
    for index, piece in enumerate(pieces[1:]):
        w = fn * piece  # exact
        r = s - w
        error = (s - r) - w  # s - w = r + error exactly
        tail = error if index == 0 else tail + error
        s = r
    tail = tail - fn * last
    y0 = s + tail
    return int(fn), y0, (s - y0) + tail


def sincos_scalar(x: float) -> tuple[float, float]:
    """Deterministic ``(sin(x), cos(x))`` of one finite float, on Python floats.

    The reference for :func:`sincos`: the same operations in the same order, so
    the two agree bit for bit (module docstring: algorithm, accuracy,
    assumptions).

    Examples
    --------
    >>> sincos_scalar(1e22)  # reduced exactly: sin(1e22) = -0.852200849767188801...
    (-0.8522008497671888, 0.523214785395139)
    """
    x = float(x)
    a = abs(x)
    if a < MEDIUM_LIMIT:
        n, y0, y1 = _cody_waite_scalar(a, FDLIBM_PIECES, PIO2_3T)
    elif a < WIDE_LIMIT:
        n, y0, y1 = _cody_waite_scalar(a, WIDE_PIECES, WIDE_LAST)
    else:
        n, y0, y1 = _reduce_exact(a)
    sine, cosine = _kernels_scalar(y0, y1)
    if n & 1:
        sine, cosine = cosine, sine
    if ((n >> 1) & 1) ^ (math.copysign(1.0, x) < 0):
        sine = -sine
    if ((n + 1) >> 1) & 1:
        cosine = -cosine
    return sine, cosine


def _cody_waite(a: np.ndarray, pieces: tuple[float, ...], last: float, work: list) -> tuple:
    """:func:`_cody_waite_scalar` on an array: ``(t, y0, y1)``, n's bits in ``t + 0x1.8p52``.

    ``work``: six scratch arrays the size of ``a``; three are returned.
    """
    t, fn, s, r, tail, w = work
    np.multiply(a, INVPIO2, out=t)
    np.add(t, MAGIC, out=t)  # its low mantissa bits are n's
    np.subtract(t, MAGIC, out=fn)
    np.multiply(fn, pieces[0], out=w)
    np.subtract(a, w, out=s)  # exact
    for index, piece in enumerate(pieces[1:]):
        np.multiply(fn, piece, out=w)  # exact
        np.subtract(s, w, out=r)
        error = tail if index == 0 else s
        np.subtract(s, r, out=error)
        np.subtract(error, w, out=error)
        if index:
            np.add(tail, error, out=tail)
        s, r = r, s
    np.multiply(fn, last, out=w)
    np.subtract(tail, w, out=tail)
    np.add(s, tail, out=w)  # y0
    np.subtract(s, w, out=r)
    np.add(r, tail, out=r)  # y1
    return t, w, r


def _kernels(
    y0: np.ndarray, y1: np.ndarray, sine: np.ndarray, cosine: np.ndarray, work: list[np.ndarray]
) -> None:
    """:func:`_kernels_scalar` on arrays, into ``sine`` and ``cosine`` (five scratch arrays)."""
    z, w, u, v, h = work
    # __kernel_sin(y0, y1, 1)
    np.multiply(y0, y0, out=z)
    np.multiply(z, z, out=w)
    np.multiply(z, S4, out=u)
    np.add(u, S3, out=u)
    np.multiply(u, z, out=u)
    np.add(u, S2, out=u)
    np.multiply(z, S6, out=v)
    np.add(v, S5, out=v)
    np.multiply(z, w, out=h)
    np.multiply(h, v, out=v)
    np.add(u, v, out=u)  # r
    np.multiply(z, y0, out=v)  # v
    np.multiply(v, u, out=u)
    np.multiply(y1, 0.5, out=h)
    np.subtract(h, u, out=h)
    np.multiply(z, h, out=h)
    np.subtract(h, y1, out=h)
    np.multiply(v, S1, out=v)
    np.subtract(h, v, out=h)
    np.subtract(y0, h, out=sine)
    # __kernel_cos(y0, y1)
    np.multiply(z, C3, out=u)
    np.add(u, C2, out=u)
    np.multiply(u, z, out=u)
    np.add(u, C1, out=u)
    np.multiply(u, z, out=u)
    np.multiply(z, C6, out=v)
    np.add(v, C5, out=v)
    np.multiply(v, z, out=v)
    np.add(v, C4, out=v)
    np.multiply(w, w, out=w)
    np.multiply(w, v, out=v)
    np.add(u, v, out=u)  # r
    np.multiply(z, u, out=u)
    np.multiply(y0, y1, out=v)
    np.subtract(u, v, out=u)  # z*r - x*y
    np.multiply(z, 0.5, out=z)  # hz
    np.subtract(1.0, z, out=w)  # w
    np.subtract(1.0, w, out=v)
    np.subtract(v, z, out=v)
    np.add(v, u, out=v)
    np.add(w, v, out=cosine)


def _sincos_block(x: np.ndarray, sine: np.ndarray, cosine: np.ndarray, work: list) -> None:
    """:func:`sincos_scalar` on a 1-d block, one ufunc call per operation, into ``sine, cosine``."""
    size = x.size
    a, *scratch = (buffer[:size] for buffer in work[:8])
    mask, bits = work[8][:size], work[9][:size]
    np.absolute(x, out=a)
    np.greater_equal(a, MEDIUM_LIMIT, out=mask)
    wide = np.flatnonzero(mask) if mask.any() else None
    if wide is not None:
        outside = a[wide]
        a[wide] = 0.0  # keep the medium path finite; these are reduced below
    t, y0, y1 = _cody_waite(a, FDLIBM_PIECES, PIO2_3T, scratch[:6])
    quadrant = t.view(np.uint64)
    if wide is not None:
        middle = outside < WIDE_LIMIT
        if middle.any():
            part = outside[middle]
            where = wide[middle]
            t_part, y0_part, y1_part = _cody_waite(
                part, WIDE_PIECES, WIDE_LAST, [np.empty_like(part) for _ in range(6)]
            )
            y0[where], y1[where], quadrant[where] = y0_part, y1_part, t_part.view(np.uint64)
        if not middle.all():
            where = wide[~middle]
            reduced = [_reduce_exact(value) for value in outside[~middle].tolist()]
            quadrant[where] = [n for n, _, _ in reduced]
            y0[where] = [head for _, head, _ in reduced]
            y1[where] = [tail for _, _, tail in reduced]
    free = [buffer for buffer in (a, *scratch) if buffer is not t and buffer is not y0
            and buffer is not y1]  # fmt: skip
    _kernels(y0, y1, sine, cosine, free)
    # quadrant: swap on odd n, then flip signs by xor of the sign bit (exact)
    np.bitwise_and(quadrant, 1, out=bits)
    np.not_equal(bits, 0, out=mask)
    np.copyto(y0, sine)
    np.copyto(sine, cosine, where=mask)
    np.copyto(cosine, y0, where=mask)
    sine_bits, cosine_bits = sine.view(np.uint64), cosine.view(np.uint64)
    np.left_shift(quadrant, 62, out=bits)  # bit 1 of n to the sign bit
    np.bitwise_xor(bits, x.view(np.uint64), out=bits)  # and the sign of x
    np.bitwise_and(bits, _SIGN, out=bits)
    np.bitwise_xor(sine_bits, bits, out=sine_bits)
    np.add(quadrant, 1, out=bits)
    np.left_shift(bits, 62, out=bits)  # bit 1 of n + 1
    np.bitwise_and(bits, _SIGN, out=bits)
    np.bitwise_xor(cosine_bits, bits, out=cosine_bits)


def sincos(phases: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic ``(sin(phases), cos(phases))`` in float64, the same bits on every machine.

    As :func:`sincos_scalar`, element by element, bit for bit: one NumPy ufunc
    call per operation (so nothing is fused into an FMA), in blocks of
    :data:`BLOCK`; phases of magnitude at least :data:`WIDE_LIMIT` are reduced in
    Python, a few microseconds each. Finite float64 phases of any shape, unchecked
    (:func:`sinpe.numerics.sincos` checks them); each result within 1 ulp of the exact
    value.

    Examples
    --------
    >>> import numpy as np
    >>> sine, cosine = sincos(np.array([-0.0, 1.0, np.pi / 2, 1e22]))
    >>> sine.tolist()
    [-0.0, 0.8414709848078965, 1.0, -0.8522008497671888]
    >>> cosine.tolist()
    [1.0, 0.5403023058681398, 6.123233995736766e-17, 0.523214785395139]
    """
    array = np.asarray(phases, dtype=np.float64)
    flat = np.ascontiguousarray(array).reshape(-1)
    sine, cosine = np.empty_like(flat), np.empty_like(flat)
    size = min(flat.size, BLOCK)
    work = [np.empty(size) for _ in range(8)]
    work += [np.empty(size, dtype=np.bool_), np.empty(size, dtype=np.uint64)]
    with np.errstate(under="ignore"):  # subnormal phases: their cubes underflow harmlessly
        for start in range(0, flat.size, BLOCK):
            stop = start + BLOCK
            _sincos_block(flat[start:stop], sine[start:stop], cosine[start:stop], work)
    return sine.reshape(array.shape), cosine.reshape(array.shape)
