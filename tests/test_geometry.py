"""sinpe.geometry, the numbers behind the figures of chapter 3, against brute force and
closed forms."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import sinpe
from sinpe import geometry


@pytest.mark.parametrize(("d", "base"), [(8, 10000.0), (64, 100.0), (128, 1e5)])
def test_dot_product_by_offset_matches_tables(d, base):
    table = sinpe.positional_encoding(np.arange(300), d, base=base)
    offsets = np.arange(-40, 41)
    expected = [table[100] @ table[100 + k] for k in offsets]
    np.testing.assert_allclose(
        geometry.dot_product_by_offset(offsets, d, base=base), expected, atol=1e-9
    )


def test_distance_by_offset_matches_tables_and_mpmath():
    table = sinpe.positional_encoding(np.arange(200), 32)
    for k in (1, 7, 150):
        assert geometry.distance_by_offset(k, 32) == pytest.approx(
            np.linalg.norm(table[k + 20] - table[20]), rel=1e-12
        )
    # Tiny offsets: no cancellation (relative accuracy), against 50-digit arithmetic.
    with mpmath.workdps(50):
        for delta in (1e-9, 1e-4):
            exact = mpmath.sqrt(
                sum(
                    4
                    * mpmath.sin(
                        mpmath.mpf(delta) * mpmath.power(10000, mpmath.mpf(-2 * i) / 32) / 2
                    )
                    ** 2
                    for i in range(16)
                )
            )
            assert geometry.distance_by_offset(delta, 32) == pytest.approx(float(exact), rel=1e-12)


def test_nearest_distinct_position_golden_width_two():
    # d = 2: distance 2|sin(delta/2)|, smallest where delta is nearest a multiple of 2 pi.
    offset, distance = geometry.nearest_distinct_position(100, 2)
    brute = min(range(1, 100), key=lambda k: abs(math.sin(k / 2)))
    assert offset == brute == 44
    assert distance == pytest.approx(2 * abs(math.sin(22)), rel=1e-12)


def test_aliasing_against_brute_force():
    d, base, context, far = 16, 30.0, 3000, 64
    table = sinpe.positional_encoding(np.arange(context), d, base=base)
    distances = np.linalg.norm(table[1:] - table[0], axis=1)  # offsets 1 .. context-1
    best = far + int(np.argmin(distances[far - 1 :]))
    result = geometry.aliasing(context, d, base=base, far=far)
    assert result.far_offset == best
    assert result.distance == pytest.approx(distances[best - 1], rel=1e-9)
    assert result.looks_like == 1 + int(np.argmax(distances >= result.distance - 1e-12))


@pytest.mark.parametrize(
    ("context", "d", "base"),
    [(10, 8, 10000.0), (512, 64, 10000.0), (4096, 32, 100.0), (2, 4, 10.0)],
)
def test_dimension_ranges_against_dense_sampling(context, d, base):
    grid = np.linspace(0, context - 1, 200_001)
    sampled = np.ptp(sinpe.positional_encoding(grid, d, base=base), axis=0)
    closed = geometry.dimension_ranges(context, d, base=base)
    np.testing.assert_allclose(closed, sampled, atol=1e-6)


def test_principal_plane_against_covariance_eigenvectors():
    rng = np.random.default_rng(0)
    points = rng.normal(size=(50, 6)) * [5, 3, 1, 0.5, 0.2, 0.1]
    plane = geometry.principal_plane(points)
    centred = points - points.mean(axis=0)
    vectors = np.linalg.eigh(np.cov(centred.T))[1]
    top = vectors[:, ::-1][:, :2]
    np.testing.assert_allclose(np.abs(plane), np.abs(centred @ top), atol=1e-9)
    np.testing.assert_allclose(plane.mean(axis=0), 0, atol=1e-12)
    assert np.var(plane[:, 0]) >= np.var(plane[:, 1])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: geometry.nearest_distinct_position(1, 8), ValueError),
        (lambda: geometry.nearest_distinct_position(10.0, 8), TypeError),
        (lambda: geometry.aliasing(50, 8, far=64), ValueError),
        (lambda: geometry.dimension_ranges(0, 8), ValueError),
        (lambda: geometry.dot_product_by_offset([np.nan], 8), ValueError),
        (lambda: geometry.distance_by_offset(1, 7), ValueError),
        (lambda: geometry.principal_plane(np.zeros(5)), ValueError),
    ],
)
def test_bad_input(call, error):
    with pytest.raises(error):
        call()
