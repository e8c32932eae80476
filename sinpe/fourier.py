"""Fourier features: the same sines and cosines, put in front of a network.

The map of the textbook remark (:func:`integer_features`: whatever network follows it,
the result is ``2 pi``-periodic), NeRF's ``gamma(p)`` and Tancik et al.'s Fourier
features, with the image-fitting toy of chapter 5 that compares them. NumPy only.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sinpe._threads import one_blas_thread
from sinpe._validation import (
    FLAG,
    POSITIONS,
    Condition,
    Integer,
    Optional,
    Options,
    Real,
    check_entries,
    check_pair,
    check_phases,
    check_real_array,
    constrained,
)
from sinpe.core import _rational_powers

__all__ = [
    "feature_regression",
    "gaussian_features",
    "gaussian_matrix",
    "hopper_image",
    "integer_features",
    "interpolation_split",
    "log_spaced_matrix",
    "nerf_encoding",
    "psnr",
]

NERF_CONVENTIONS = ("paper", "official")


@constrained(n_frequencies=Integer(hint="such as 8 (the highest multiple)"), x=POSITIONS)
def integer_features(x: npt.ArrayLike, n_frequencies: int) -> np.ndarray:
    """``[sin x, cos x, sin 2x, cos 2x, ..., sin kx, cos kx]`` on a new last axis.

    Every feature is ``2 pi``-periodic in ``x``, so any function of these
    features is too.

    Parameters
    ----------
    x : array_like of real
        Finite inputs (angles, in radians).
    n_frequencies : int
        The highest multiple ``k``: the output has ``2 k`` features.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``np.shape(x) + (2 k,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.fourier import integer_features
    >>> integer_features(np.pi / 2, 2).round(12).tolist()
    [1.0, 0.0, 0.0, -1.0]
    """
    angles = np.asarray(x)
    check_entries((angles.size, 2 * int(n_frequencies)), what="the features")
    multiples = np.arange(1, int(n_frequencies) + 1, dtype=np.float64)
    phases = angles[..., np.newaxis] * multiples  # (..., k)
    features = np.empty((*angles.shape, 2 * int(n_frequencies)))
    features[..., 0::2] = np.sin(phases)
    features[..., 1::2] = np.cos(phases)
    return features


def _coordinates(x: npt.ArrayLike) -> np.ndarray:
    points = check_real_array(x, name="x")
    if points.ndim == 0:
        raise ValueError("x must have a last axis of coordinates, shape (..., n_coords)")
    return points


#: A count of features, coordinates or frequencies.
_COUNT = Integer(hint="such as 8")


def _linear_frequencies(count: int) -> np.ndarray:
    """``linspace(2**0, 2**(count - 1), count)``, each entry an exact fraction rounded once.

    nerf-pytorch's ``torch.linspace(2.**0., 2.**max_freq, steps=N_freqs)``, with the
    same bits on every machine.
    """
    if count == 1:
        return np.ones(1)  # linspace(1, 1, 1)
    span = 2 ** (count - 1) - 1
    return np.array([float(1 + Fraction(k * span, count - 1)) for k in range(count)])


@constrained(
    n_frequencies=Integer(1, 1000, hint="such as 10 (NeRF's; beyond 1000, 2**k overflows)"),
    convention=Options(*NERF_CONVENTIONS),
    include_input=Optional(FLAG),
    log_sampling=FLAG,
)
def nerf_encoding(
    x: npt.ArrayLike,
    n_frequencies: int,
    *,
    convention: str = "paper",
    include_input: bool | None = None,
    log_sampling: bool = True,
) -> np.ndarray:
    """NeRF's positional encoding ``gamma`` of each coordinate.

    Parameters
    ----------
    x : array_like of real, shape (..., n_coords)
        Points; NeRF normalises scene coordinates to about [-1, 1].
    n_frequencies : int
        ``L``: frequencies ``2^0, ..., 2^(L-1)`` (see ``log_sampling``); at most 1000.
    convention : {"paper", "official"}, optional
        ``"paper"`` (Mildenhall et al. 2020, eq. 4): for each coordinate ``p``,
        ``[sin(2^0 pi p), cos(2^0 pi p), ..., sin(2^(L-1) pi p), cos(2^(L-1) pi p)]``,
        coordinates one after another: ``2 L n_coords`` values.
        ``"official"`` (bmild/nerf and nerf-pytorch, ``Embedder``):
        ``[x, sin(2^0 x), cos(2^0 x), sin(2^1 x), cos(2^1 x), ...]`` where each
        block holds all coordinates, with no ``pi`` (bmild/nerf #12: scene bounds
        are loose, and without ``pi`` the lowest frequency does not wrap):
        ``n_coords (1 + 2 L)`` values.
    include_input : bool, optional
        Put the raw coordinates first, as ``Embedder(include_input=True)``.
        Default: True for ``"official"``, False for ``"paper"``.
    log_sampling : bool, optional
        True (default, as the paper): frequencies ``2^0, 2^1, ..., 2^(L-1)``.
        False: ``L`` frequencies evenly spaced from ``2^0`` to ``2^(L-1)``, as
        ``Embedder(log_sampling=False)`` (each correctly rounded here; float32
        there). Either convention; ``"paper"`` multiplies them by ``pi``.

    Returns
    -------
    numpy.ndarray
        float64 features on the last axis: ``2 L n_coords`` values, plus
        ``n_coords`` when the input is included.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.fourier import nerf_encoding
    >>> nerf_encoding([0.5], 2, convention="official").round(10).tolist()
    [0.5, 0.4794255386, 0.8775825619, 0.8414709848, 0.5403023059]
    >>> nerf_encoding(np.zeros((4, 3)), 10).shape, nerf_encoding(np.zeros(3), 10,
    ...     convention="official").shape
    ((4, 60), (63,))

    With ``log_sampling=False`` and ``L = 3`` the frequencies are 1, 2.5, 4:

    >>> features = nerf_encoding([np.pi / 5], 3, convention="official",
    ...                          include_input=False, log_sampling=False)
    >>> round(float(features[2]), 12)   # sin(2.5 * pi / 5)
    1.0
    """
    points = _coordinates(x)
    include = convention == "official" if include_input is None else include_input
    linear = not log_sampling
    scales = 2.0 ** np.arange(n_frequencies)  # (L,), exact powers of two
    if linear:
        scales = _linear_frequencies(n_frequencies)  # same ends, evenly spaced
    with np.errstate(over="ignore"):
        check_phases(np.pi * points[..., np.newaxis] * scales)
    if convention == "paper":
        phases = np.pi * points[..., :, np.newaxis] * scales  # (..., n_coords, L)
        features = np.stack([np.sin(phases), np.cos(phases)], axis=-1)  # (..., n, L, 2)
        flat = features.reshape(*points.shape[:-1], -1)
        return np.concatenate([points, flat], axis=-1) if include else flat
    phases = points[..., np.newaxis, :] * scales[:, np.newaxis]  # (..., L, n_coords)
    blocks = np.stack([np.sin(phases), np.cos(phases)], axis=-2)  # (..., L, 2, n_coords)
    if include:
        return np.concatenate([points, blocks.reshape(*points.shape[:-1], -1)], axis=-1)
    return blocks.reshape(*points.shape[:-1], -1)


@constrained(
    n_features=_COUNT, n_coords=_COUNT, sigma=Real(0.0, closed="neither", hint="e.g. 10.0")
)
def gaussian_matrix(
    n_features: int, n_coords: int, sigma: float, rng: np.random.Generator
) -> np.ndarray:
    """``B`` with entries drawn from ``N(0, sigma^2)``, shape ``(n_features, n_coords)``.

    Tancik et al.'s Gaussian Fourier features: ``sigma > 0`` is the scale they
    tune (10 for their 2-D images); the features are ``2 n_features`` values.
    """
    check_entries((n_features, n_coords), what="B")
    return rng.normal(0.0, float(sigma), size=(n_features, n_coords))


@constrained(
    n_per_axis=_COUNT,
    n_coords=_COUNT,
    scale=Real(-1074.0, 1023.0, hint="e.g. 10.0, as Tancik et al. (2**scale must be a float64)"),
)
def log_spaced_matrix(n_per_axis: int, n_coords: int, scale: float) -> np.ndarray:
    """Tancik et al.'s axis-aligned "positional encoding" mapping as a matrix ``B``.

    Frequencies ``2^linspace(0, scale, n_per_axis) - 1`` along each axis (as in
    their 2-D regression notebook), so ``B`` has ``n_per_axis * n_coords`` rows:
    the frequencies of axis 0 in its first column, then those of axis 1, ...
    Each power is correctly rounded (its exponent an exact fraction), so ``B``
    has the same bits on every machine. ``scale`` is from -1074 to 1023, where
    ``2^scale`` is a nonzero float64.

    Examples
    --------
    >>> from sinpe.fourier import log_spaced_matrix
    >>> log_spaced_matrix(3, 2, 2.0).tolist()
    [[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 3.0]]
    """
    check_entries((n_per_axis * n_coords, n_coords), what="B")
    if n_per_axis == 1:
        frequencies = np.zeros(1)  # linspace(0, scale, 1) is [0]
    else:
        numerator, denominator = Fraction(float(scale)).as_integer_ratio()
        frequencies = (
            _rational_powers(2.0, n_per_axis, numerator, denominator * (n_per_axis - 1)) - 1.0
        )
    return np.concatenate(
        [np.outer(frequencies, np.eye(n_coords)[axis]) for axis in range(n_coords)]
    )


def gaussian_features(x: npt.ArrayLike, B: npt.ArrayLike) -> np.ndarray:
    """Fourier features ``[sin(2 pi x B^T) | cos(2 pi x B^T)]`` (sines first, as in the code).

    Parameters
    ----------
    x : array_like of real, shape (..., n_coords)
    B : array_like of real, shape (m, n_coords)
        :func:`gaussian_matrix`, :func:`log_spaced_matrix`, or ``np.eye(n_coords)``
        for the "basic" mapping.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(..., 2 m)``.
    """
    points = _coordinates(x)
    matrix = check_real_array(B, name="B")
    if matrix.ndim != 2 or matrix.shape[1] != points.shape[-1]:
        raise ValueError(
            f"B must have shape (m, {points.shape[-1]}) to match x, got {matrix.shape}"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        phases = 2.0 * np.pi * points @ matrix.T  # (..., m)
    check_phases(phases)
    return np.concatenate([np.sin(phases), np.cos(phases)], axis=-1)


def psnr(prediction: npt.ArrayLike, target: npt.ArrayLike) -> float:
    """Peak signal-to-noise ratio ``-10 log10(MSE)`` in decibels, for values in [0, 1].

    Two arrays of the same shape (no broadcasting); ``inf`` for identical inputs.
    The full float is returned: after training, its late digits depend on the
    machine, so round it where it is shown.

    Examples
    --------
    >>> from sinpe.fourier import psnr
    >>> f"{psnr([0.0, 1.0], [0.1, 0.9]):.6f}"
    '20.000000'
    """
    guess, truth = check_pair(
        prediction, target, ("prediction", "target"), hint="compare images pixel for pixel"
    )
    with np.errstate(over="ignore"):
        error = float(np.mean((guess - truth) ** 2))
    if not np.isfinite(error):
        raise ValueError(
            "the mean squared error of prediction and target overflows float64; "
            "compare images scaled to [0, 1]"
        )
    return float("inf") if error == 0 else float(-10.0 * np.log10(error))


@constrained(
    size=Integer(
        1,
        480,
        hint="a divisor of 480 such as 96",
        conditions=(
            Condition("divide 480", lambda v: 480 % v == 0, "the crop is averaged in blocks", (7,)),
        ),
    )
)
def hopper_image(size: int = 96) -> np.ndarray:
    """Matplotlib's photograph of Grace Hopper: its central 480 x 480 pixels, averaged down.

    The image of the fitting toy of Chapter 5, shipped with Matplotlib (nothing
    is downloaded). Rows 60-539 and columns 16-495, averaged over
    ``480 / size`` square blocks: a float64 array ``(size, size, 3)`` of RGB
    values in [0, 1]; ``size`` must divide 480.
    """
    from matplotlib import cbook
    from matplotlib.image import imread

    with cbook.get_sample_data("grace_hopper.jpg") as file:  # type: ignore[union-attr]  # a file
        photo = imread(file).astype(float) / 255  # type: ignore[arg-type]  # a JPEG file
    square = photo[60:540, 16:496]  # the central 480 x 480 crop
    block = 480 // size
    return square.reshape(size, block, size, block, 3).mean(axis=(1, 3))


def interpolation_split(
    image: npt.ArrayLike,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tancik et al.'s protocol: fit every other pixel, test on the pixels in between.

    Pixel ``(r, c)`` of an ``H x W`` image (``H, W >= 2``) has the coordinates
    ``(r / H, c / W)``. The training pixels are ``image[::2, ::2]``, the test
    pixels ``image[1::2, 1::2]``: pure interpolation.

    Returns
    -------
    train_x, train_y, test_x, test_y : numpy.ndarray
        Coordinates ``(N, 2)`` in raster order and their values ``(N, C)``
        (``C = 1`` for a 2-d image).

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.fourier import interpolation_split
    >>> train_x, train_y, test_x, test_y = interpolation_split(np.arange(16.0).reshape(4, 4))
    >>> train_x.tolist(), train_y[:, 0].tolist()
    ([[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [0.5, 0.5]], [0.0, 2.0, 8.0, 10.0])
    """
    pixels = check_real_array(image, name="image")
    if pixels.ndim == 2:
        pixels = pixels[..., np.newaxis]
    if pixels.ndim != 3 or pixels.shape[0] < 2 or pixels.shape[1] < 2:
        raise ValueError(
            f"image must have shape (H, W) or (H, W, C) with H, W >= 2, got {np.shape(image)}"
        )
    height, width, channels = pixels.shape
    if channels == 0:
        raise ValueError(f"image must have at least one channel, got shape {np.shape(image)}")
    coords = np.stack(
        np.meshgrid(np.arange(height) / height, np.arange(width) / width, indexing="ij"),
        axis=-1,
    )  # (H, W, 2)
    train, test = (slice(None, None, 2),) * 2, (slice(1, None, 2),) * 2
    return (
        coords[train].reshape(-1, 2),
        pixels[train].reshape(-1, channels),
        coords[test].reshape(-1, 2),
        pixels[test].reshape(-1, channels),
    )


@one_blas_thread
@constrained(ridge=Real(0.0, closed="neither", hint="such as 1e-3"))
def feature_regression(
    train_features: npt.ArrayLike,
    train_targets: npt.ArrayLike,
    test_features: npt.ArrayLike,
    *,
    ridge: float = 1e-3,
) -> np.ndarray:
    """Ridge regression on fixed features: what their kernel alone predicts, with no network.

    Fits ``targets ~ [features, 1] @ W`` by minimising
    ``|[F, 1] W - Y|^2 + ridge |W|^2`` (the bias penalised too) and returns
    ``[F_test, 1] @ W``, shape ``(M, C)``. With sine-cosine features this is kernel
    ridge regression with ``k(x, y) = 1 + sum_j cos(2 pi b_j . (x - y))``: the fit
    depends on the frequencies ``b_j``, on ``ridge > 0`` and on the constant
    feature. BLAS runs on one thread: the matrices are small.

    Parameters
    ----------
    train_features : array_like of real, shape (N, F)
    train_targets : array_like of real, shape (N, C)
    test_features : array_like of real, shape (M, F)
    ridge : float, optional
        The penalty, which keeps the solve well posed when features repeat.
    """
    train = check_real_array(train_features, name="train_features")
    targets = check_real_array(train_targets, name="train_targets")
    test = check_real_array(test_features, name="test_features")
    if train.ndim != 2 or targets.ndim != 2 or test.ndim != 2:
        raise ValueError(
            f"train_features, train_targets and test_features must be 2-d, got shapes "
            f"{train.shape}, {targets.shape} and {test.shape}"
        )
    if train.shape[0] != targets.shape[0] or train.shape[1] != test.shape[1] or not train.size:
        raise ValueError(
            f"train_features {train.shape} and train_targets {targets.shape} need the same "
            f"rows, and test_features {test.shape} the same columns as train_features"
        )
    design = np.hstack([train, np.ones((train.shape[0], 1))])
    with np.errstate(over="ignore", invalid="ignore"):
        gram = design.T @ design + ridge * np.eye(design.shape[1])
        try:
            weights = np.linalg.solve(gram, design.T @ targets)
        except np.linalg.LinAlgError as error:
            raise ValueError(
                f"ridge={ridge!r} is too small for these features (the regression is "
                f"singular); pass a larger ridge, such as 1e-3"
            ) from error
        prediction = np.hstack([test, np.ones((test.shape[0], 1))]) @ weights
    if not np.isfinite(prediction).all():
        raise ValueError(
            "the regression overflows float64 for features and targets this large; "
            "scale them to order 1 (sine-cosine features already are)"
        )
    return prediction
