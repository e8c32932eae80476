"""sinpe.fourier.integer_features against its definition."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sinpe.fourier import integer_features


@given(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), st.integers(1, 12))
def test_definition_and_period(x, k):
    features = integer_features(x, k)
    expected = [f(n * x) for n in range(1, k + 1) for f in (math.sin, math.cos)]
    np.testing.assert_allclose(features, expected, atol=1e-12)
    np.testing.assert_allclose(integer_features(x + 2 * math.pi, k), features, atol=1e-9)


@pytest.mark.parametrize(
    ("x", "k", "error"),
    [
        (1.0, 0, ValueError),
        (1.0, 2.0, TypeError),
        (np.nan, 2, ValueError),
        ("a", 2, TypeError),
    ],
)
def test_bad_input(x, k, error):
    with pytest.raises(error):
        integer_features(x, k)


# NeRF and Fourier-feature mappings, against hand values and the formulas of the papers
# (Mildenhall et al. 2020, eq. 4; Tancik et al. 2020) and the official code.
import sinpe.fourier as fourier  # noqa: E402
from sinpe.lab import nn, training  # noqa: E402


def test_nerf_official_golden():
    np.testing.assert_allclose(
        fourier.nerf_encoding([0.5], 2, convention="official"),
        [0.5, 0.4794255386, 0.8775825619, 0.8414709848, 0.5403023059],
        atol=5e-11,
    )


@pytest.mark.parametrize(
    ("convention", "frequencies", "size"),
    [("official", 10, 63), ("official", 4, 27), ("paper", 10, 60), ("paper", 4, 24)],
)
def test_nerf_sizes_on_3d_input(convention, frequencies, size):
    assert fourier.nerf_encoding(np.zeros((5, 3)), frequencies, convention=convention).shape == (
        5,
        size,
    )


def test_nerf_paper_formula_and_order():
    point = [0.3, -0.7]
    got = fourier.nerf_encoding(point, 3)
    expected = [
        f(2**level * math.pi * p) for p in point for level in range(3) for f in (math.sin, math.cos)
    ]
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_nerf_official_order_is_frequency_major():
    point = [0.3, -0.7, 1.1]
    got = fourier.nerf_encoding(point, 2, convention="official")
    expected = list(point) + [
        f(2**level * p) for level in range(2) for f in (math.sin, math.cos) for p in point
    ]
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_paper_form_wraps_with_period_two_and_official_does_not():
    p = np.array([[-0.9], [0.25]])
    paper = fourier.nerf_encoding(p, 10)
    np.testing.assert_allclose(fourier.nerf_encoding(p + 2.0, 10), paper, atol=1e-9)
    official = fourier.nerf_encoding(p, 10, convention="official")
    assert not np.allclose(fourier.nerf_encoding(p + 2.0, 10, convention="official"), official)


def test_gaussian_features_formula():
    rng = np.random.default_rng(0)
    B = fourier.gaussian_matrix(4, 2, 3.0, rng)
    x = rng.uniform(size=(6, 2))
    got = fourier.gaussian_features(x, B)
    phases = 2 * math.pi * np.array([[xi @ b for b in B] for xi in x])
    np.testing.assert_allclose(got, np.concatenate([np.sin(phases), np.cos(phases)], 1), atol=1e-12)
    assert np.std(fourier.gaussian_matrix(4000, 1, 3.0, rng)) == pytest.approx(3.0, rel=0.05)


def test_log_spaced_matrix_matches_tancik():
    frequencies = 2.0 ** np.linspace(0, 5.0, 8) - 1
    B = fourier.log_spaced_matrix(8, 2, 5.0)
    np.testing.assert_allclose(B[:8, 0], frequencies)
    np.testing.assert_allclose(B[8:, 1], frequencies)
    assert np.all(B[:8, 1] == 0) and np.all(B[8:, 0] == 0)


def test_log_spaced_matrix_is_correctly_rounded():
    from decimal import Decimal, localcontext

    with localcontext() as context:
        context.prec = 60
        exact = [float((Decimal(2).ln() * Decimal(4 * k) / 31).exp()) - 1.0 for k in range(32)]
    np.testing.assert_array_equal(fourier.log_spaced_matrix(32, 2, 4.0)[:32, 0], exact)
    np.testing.assert_array_equal(fourier.log_spaced_matrix(1, 2, 4.0), np.zeros((2, 2)))
    np.testing.assert_allclose(
        fourier.log_spaced_matrix(5, 1, -1.5)[:, 0], 2.0 ** np.linspace(0, -1.5, 5) - 1, rtol=1e-15
    )


def test_psnr():
    assert fourier.psnr([0.5], [0.5]) == math.inf
    assert fourier.psnr(np.zeros(4), np.full(4, 0.01)) == pytest.approx(40.0)


def test_psnr_returns_the_full_float():
    # Formatting belongs where the number is shown; the library does not round.
    expected = -10.0 * math.log10(1 / 3)  # 4.771212547196624...
    got = fourier.psnr(np.zeros(3), np.full(3, 3**-0.5))
    assert got == pytest.approx(expected, rel=1e-15, abs=0)
    assert got != round(expected, 12)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: fourier.nerf_encoding(1.0, 4), ValueError),
        (lambda: fourier.nerf_encoding([1.0], 0), ValueError),
        (lambda: fourier.nerf_encoding([1.0], 2, convention="nerfstudio"), ValueError),
        (lambda: fourier.nerf_encoding([np.inf], 2), ValueError),
        (lambda: fourier.gaussian_features([1.0, 2.0], np.eye(3)), ValueError),
        (lambda: fourier.gaussian_matrix(4, 2, -1.0, np.random.default_rng(0)), ValueError),
        (lambda: fourier.log_spaced_matrix(0, 2, 4.0), ValueError),
        (lambda: fourier.log_spaced_matrix(4, 2, float("nan")), ValueError),
    ],
)
def test_bad_input_for_mappings(call, error):
    with pytest.raises(error):
        call()


def test_mlp_gradients_and_fit():
    rng = np.random.default_rng(0)
    for output in ("linear", "sigmoid"):
        mlp = nn.MLP([3, 5, 4, 2], rng, output=output)
        errors = training.check_gradients(mlp, rng.normal(size=(6, 3)))
        assert max(errors.values()) < 1e-6
    x = np.linspace(0, 1, 32)[:, None]
    mlp = nn.MLP([1, 16, 1], np.random.default_rng(1))
    log = training.fit_regression(
        mlp, x, 2 * x - 1, steps=300, lr=1e-2, eval_inputs=x, record_every=100
    )
    assert log.steps == [100, 200, 300] and log.losses[-1] < 1e-3


# ---------------------------------------------------------------------------------
# The image-fitting toy: the photograph, the split, and the kernel-only fit


def test_hopper_image_is_a_block_average_of_the_full_crop():
    full = fourier.hopper_image(480)
    small = fourier.hopper_image(48)
    assert full.shape == (480, 480, 3) and small.shape == (48, 48, 3)
    for i, j in [(0, 0), (7, 31), (47, 47)]:
        block = full[10 * i : 10 * i + 10, 10 * j : 10 * j + 10]
        np.testing.assert_allclose(small[i, j], block.mean(axis=(0, 1)), rtol=1e-12)
    assert 0.0 <= full.min() and full.max() <= 1.0 and full.std() > 0.1


@pytest.mark.parametrize(
    "size, error",
    [(7, ValueError), (0, ValueError), (960, ValueError), (1.5, TypeError), ("96", TypeError)],
)
def test_hopper_image_refuses_a_size_that_does_not_divide_the_crop(size, error):
    with pytest.raises(error, match="size"):
        fourier.hopper_image(size)


def test_interpolation_split_takes_even_pixels_to_fit_and_odd_ones_to_test():
    height, width = 4, 6
    image = np.arange(height * width * 2, dtype=float).reshape(height, width, 2)
    train_x, train_y, test_x, test_y = fourier.interpolation_split(image)
    train = [(r, c) for r in range(0, height, 2) for c in range(0, width, 2)]
    test = [(r, c) for r in range(1, height, 2) for c in range(1, width, 2)]
    assert train_x.tolist() == [[r / height, c / width] for r, c in train]
    assert test_x.tolist() == [[r / height, c / width] for r, c in test]
    assert train_y.tolist() == [image[r, c].tolist() for r, c in train]
    assert test_y.tolist() == [image[r, c].tolist() for r, c in test]
    grey = fourier.interpolation_split(image[..., 0])
    assert grey[1].shape == (6, 1) and grey[3].shape == (6, 1)


@pytest.mark.parametrize(
    "image, error",
    [
        (np.ones(4), ValueError),
        (np.ones((1, 4)), ValueError),
        (np.ones((2, 2, 2, 2)), ValueError),
        (np.full((2, 2), np.nan), ValueError),
        (np.array([["a", "b"], ["c", "d"]]), TypeError),
    ],
)
def test_interpolation_split_refuses_what_is_not_an_image(image, error):
    with pytest.raises(error, match="image"):
        fourier.interpolation_split(image)


def test_feature_regression_is_least_squares_with_an_intercept():
    rng = np.random.default_rng(0)
    features, targets = rng.normal(size=(30, 5)), rng.normal(size=(30, 2))
    new = rng.normal(size=(7, 5))
    design = np.hstack([features, np.ones((30, 1))])
    weights = np.linalg.lstsq(design, targets, rcond=None)[0]
    expected = np.hstack([new, np.ones((7, 1))]) @ weights
    got = fourier.feature_regression(features, targets, new, ridge=1e-12)
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)


def test_feature_regression_recovers_an_affine_target_and_shrinks_with_the_ridge():
    rng = np.random.default_rng(1)
    features = rng.normal(size=(40, 3))
    targets = features @ np.array([[1.0], [-2.0], [0.5]]) + 3.0
    exact = fourier.feature_regression(features, targets, features, ridge=1e-10)
    np.testing.assert_allclose(exact, targets, rtol=1e-8)
    shrunk = fourier.feature_regression(features, targets, features, ridge=1e12)
    assert np.abs(shrunk).max() < 1e-6  # every weight, the intercept too, goes to 0


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(train_targets=np.ones((5, 1))), ValueError),  # 4 rows of features
        (dict(test_features=np.ones((2, 2))), ValueError),  # 3 columns for training
        (dict(train_features=np.ones(4)), ValueError),
        (dict(ridge=0.0), ValueError),
        (dict(ridge=-1.0), ValueError),
        (dict(ridge=np.nan), ValueError),
        (dict(ridge="1e-3"), TypeError),
        (dict(test_features=np.full((2, 3), np.inf)), ValueError),
    ],
)
def test_feature_regression_refuses_mismatched_or_bad_input(kwargs, error):
    arguments = dict(
        train_features=np.ones((4, 3)),
        train_targets=np.ones((4, 1)),
        test_features=np.ones((2, 3)),
        ridge=1e-3,
    )
    arguments.update(kwargs)
    with pytest.raises(error):
        fourier.feature_regression(**arguments)


def test_feature_regression_says_what_to_do_when_it_cannot_solve():
    repeated = np.ones((4, 3))
    with pytest.raises(ValueError, match="ridge"):
        fourier.feature_regression(repeated, np.ones((4, 1)), repeated, ridge=1e-300)
    huge = np.full((4, 3), 1e200) * np.arange(1, 5)[:, None]
    with pytest.raises(ValueError, match="scale"):
        fourier.feature_regression(huge, np.ones((4, 1)), huge)


def test_an_image_without_channels_is_refused():
    with pytest.raises(ValueError, match="channel"):
        fourier.interpolation_split(np.ones((2, 2, 0)))
