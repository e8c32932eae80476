"""Precision warnings (``sinpe.PrecisionWarning``): a dtype, or float64, cannot hold the result."""

from __future__ import annotations

import os
import sys
import types
import warnings

import numpy as np

#: The package's folder: warnings point at the first frame outside it.
_PACKAGE = os.path.dirname(os.path.abspath(__file__))

#: Accuracy a float64 table is documented to reach; beyond it a PrecisionWarning.
FLOAT64_ACCURACY = 1e-6


class PrecisionWarning(UserWarning):
    """The requested output dtype cannot faithfully hold what was asked for."""


def _outside_the_package() -> int:
    """The ``stacklevel`` that points a warning raised by this function's caller at the
    first frame outside ``sinpe``: the user's line, however many of the package's own
    frames (a public function, :func:`~sinpe._validation.constrained`'s wrapper) lie
    between."""
    frame: types.FrameType | None = sys._getframe(1)  # the caller: its stacklevel is 1
    level = 1
    while frame is not None and _in_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _in_package(filename: str) -> bool:
    return os.path.dirname(os.path.abspath(filename)) == _PACKAGE


def warn_if_imprecise(positions: np.ndarray, base: float) -> None:
    """Warn when float64 itself cannot give the documented accuracy at these positions.

    The error bound of :func:`sinpe.positional_encoding` for the fastest pair is
    ``eps * (1 + (2 + |ln base|) |p|)``: the phase ``p * w`` is rounded to float64
    before its sine is taken. Past :data:`FLOAT64_ACCURACY` (1e-6; about
    ``|p| > 4e8`` for base 10000) the table is still the best float64 can do, but
    its entries are off by more than that -- by 0.45 at ``p = 2**53``.
    """
    if positions.size == 0:
        return
    largest = float(np.max(np.abs(positions)))
    bound = float(np.finfo(np.float64).eps) * (1.0 + (2.0 + abs(np.log(base))) * largest)
    if bound > FLOAT64_ACCURACY:
        warnings.warn(
            f"float64 cannot resolve position {largest:g} to {FLOAT64_ACCURACY:g}: the phase "
            f"p * w is rounded to float64, so entries may be off by up to {bound:.2g}; "
            f"shift the positions nearer 0 (PE(p + k) is a rotation of PE(p))",
            PrecisionWarning,
            stacklevel=_outside_the_package(),
        )


def warn_if_unresolvable(positions: np.ndarray, dtype: np.dtype) -> None:
    """Warn when ``dtype`` cannot hold the phase of the fastest pair at these positions.

    The fastest pair turns by one radian per position. Beyond ``2 / eps(dtype)``
    (2048 for float16) the dtype has no numbers between consecutive integers, so
    positions -- and the phases ``p * w`` -- stop being representable in it. The
    table itself is still computed in float64 and rounded once, but anything that
    recomputes or compares phases in this dtype is wrong there.
    """
    if dtype == np.float64 or positions.size == 0:
        return
    limit = 2.0 / float(np.finfo(dtype).eps)
    largest = float(np.max(np.abs(positions)))
    if largest > limit:
        warnings.warn(
            f"{dtype} cannot resolve the phase at position {largest:g}: beyond {limit:g} it "
            f"has no values between consecutive positions. The table was computed in float64 "
            f"and rounded once (each entry within {float(np.finfo(dtype).eps):g} of the truth), "
            f"but phases or positions handled in {dtype} are wrong there; "
            f"use dtype=np.float32 or np.float64",
            PrecisionWarning,
            stacklevel=_outside_the_package(),
        )
