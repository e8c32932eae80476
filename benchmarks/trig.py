"""Time the deterministic sincos against np.sin + np.cos, side by side in one run.

Usage::

    python benchmarks/trig.py [--repeats 5] [--json sinpe/data/benchmarks/trig.json]
    python benchmarks/trig.py --accuracy   # the error measurement of sinpe/_trig.py

Cases (float64 phases):

* ``table 65536 x 256``  -- ``p * w_i`` for positions ``0..65535`` and the 256
  frequencies of ``d_model = 512`` (a positional table's phases);
* ``uniform 1e6``        -- 10**6 seeded uniform phases in ``[-1e4, 1e4]``;
* ``positions < 2**20``  -- 10**6 phases ``p * w`` at seeded random positions below
  2**20 and random columns of ``d_model = 512`` (arbitrary positions: every phase
  below ``MEDIUM_LIMIT``, fdlibm's three-part reduction);
* ``positions < 2**30``  -- the same below 2**30 (about 60 % of the phases take the
  17-bit-piece reduction);
* ``huge 1e4``           -- 10**4 phases in ``[1e11, 1e16]``, beyond ``WIDE_LIMIT``:
  the exact Python-integer reduction, element by element.

Target: ``sincos`` costs at most 3x ``np.sin`` + ``np.cos`` on arbitrary positions.
The two are timed alternately, ``--repeats`` rounds, and each time is the best
round (the machine may be shared); the ratios come from the same run.

``--accuracy`` measures the largest error in ulps of ``sincos`` against mpmath (the
exact value at 256 bits, in ulps of its correctly rounded double) on seeded samples:
200 000 uniform phases in ``[-1e4, 1e4]``, 100 000 log-uniform ones in the range of
the 17-bit pieces, 20 000 log-uniform ones in ``[1e-300, 1.8e308]``, the doubles
nearest to ``k pi/2`` and their two neighbours for every ``k <= 2**20`` and for
100 000 random ``2**20 < k < 2**35``, and ``6381956970095103 * 2**797`` (about 10 minutes).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from timing import best_time, machine_info, write_results

import sinpe
from sinpe._trig import MEDIUM_LIMIT, WIDE_LIMIT, sincos


def cases() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    w = sinpe.frequencies(512)
    columns = w[rng.integers(0, w.size, 10**6)]
    return {
        "table 65536 x 256": np.arange(65536.0)[:, None] * w[None, :],
        "uniform 1e6": rng.uniform(-1e4, 1e4, 10**6),
        "positions < 2**20": rng.integers(0, 2**20, 10**6) * columns,
        "positions < 2**30": rng.integers(0, 2**30, 10**6) * columns,
        "huge 1e4": np.exp(rng.uniform(math.log(1e11), math.log(1e16), 10**4)),
    }


def timings(repeats: int) -> list[dict]:
    print(f"{'case':<18} | {'np.sin+np.cos ms':>16} {'sincos ms':>10} {'ratio':>7}")
    rows = []
    for name, phases in cases().items():
        native, ours = math.inf, math.inf
        for _ in range(repeats):  # alternate, so that both see the same load
            native = min(native, best_time(lambda p=phases: (np.sin(p), np.cos(p)), 1))
            ours = min(ours, best_time(lambda p=phases: sincos(p), 1))
        row = {
            "case": name,
            "size": int(phases.size),
            "np_sin_cos_ms": round(1e3 * native, 2),
            "sincos_ms": round(1e3 * ours, 2),
            "ratio": round(ours / native, 2),
        }
        rows.append(row)
        print(
            f"{name:<18} | {row['np_sin_cos_ms']:>16.1f} {row['sincos_ms']:>10.1f} "
            f"{row['ratio']:>6.2f}x",
            flush=True,
        )
    return rows


def ulp_errors(x: np.ndarray) -> tuple[float, float, float]:
    """Largest sin and cos errors in ulps against mpmath, and the correctly rounded share."""
    import mpmath

    sine, cosine = sincos(x)
    worst = [0.0, 0.0]
    exact = 0
    with mpmath.workprec(256):
        for value, ours in zip(x.tolist(), zip(sine.tolist(), cosine.tolist(), strict=True),
                               strict=True):  # fmt: skip
            phase = mpmath.mpf(value)
            for k, true in enumerate((mpmath.sin(phase), mpmath.cos(phase))):
                rounded = float(true)
                error = float(abs(mpmath.mpf(ours[k]) - true)) / math.ulp(rounded)
                worst[k] = max(worst[k], error)
                exact += ours[k] == rounded
    return worst[0], worst[1], exact / (2 * x.size)


def nearest_multiples(k: np.ndarray) -> np.ndarray:
    """The doubles nearest to ``k pi/2`` and their two neighbours."""
    import mpmath

    with mpmath.workprec(256):
        nearest = np.array([float(mpmath.mpf(int(j)) * mpmath.pi / 2) for j in k])
    return np.concatenate([nearest, np.nextafter(nearest, 0), np.nextafter(nearest, np.inf)])


def accuracy() -> None:
    rng = np.random.default_rng(2024)
    signs = rng.choice([-1.0, 1.0], 100_000)
    samples = {
        "uniform [-1e4, 1e4], 200 000": rng.uniform(-1e4, 1e4, 200_000),
        "log-uniform [1.65e6, 5.4e10], 100 000": signs
        * np.exp(rng.uniform(math.log(MEDIUM_LIMIT), math.log(WIDE_LIMIT), 100_000)),
        "log-uniform [1e-300, 1.8e308], 20 000": signs[:20_000]
        * np.exp(rng.uniform(math.log(1e-300), math.log(1.7e308), 20_000)),
        "near k pi/2, k <= 2**20 (all)": nearest_multiples(np.arange(1, 2**20 + 1)),
        "near k pi/2, 2**20 < k < 2**35 (100 000 k)": nearest_multiples(
            rng.integers(2**20 + 1, 2**35, 100_000)
        ),
        "hard case 6381956970095103 * 2**797": np.array([6381956970095103 * 2.0**797]),
    }
    for name, x in samples.items():
        start = time.perf_counter()
        sine, cosine, share = ulp_errors(x)
        print(
            f"{name:<44} {x.size:>8} points, max error: sin {sine:.3f} ulp, cos {cosine:.3f} "
            f"ulp; {100 * share:.2f} % correctly rounded ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="also write the timings to this JSON file")
    parser.add_argument("--accuracy", action="store_true", help="measure errors in ulps")
    args = parser.parse_args()
    machine = machine_info()
    print(", ".join(f"{k}: {v}" for k, v in machine.items()))
    if args.accuracy:
        accuracy()
        return
    rows = timings(args.repeats)
    write_results(args.json, machine, rows)


if __name__ == "__main__":
    main()
