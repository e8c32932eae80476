"""Time sinpe's training with one BLAS thread and with the default pool, side by side in one run.

Usage::

    env -u OPENBLAS_NUM_THREADS python benchmarks/threads.py [--repeats 3] [--busy]
        [--json benchmarks/results/threads.json]

Issue 27: ``training.train`` and the other entry points of many small matrix products
run with one BLAS thread (``sinpe/_threads.py``), as the book's build does with
``OPENBLAS_NUM_THREADS=1`` and a reader's Jupyter does not. Each case is timed through
the decorated functions (``one thread``) and again with the limiter disabled, so that
the same calls run on the default pool (``default``: a thread per core):

* ``ch08 first cell``  -- chapter 8's first workload: six chapter-4 models (d = 32, one
  layer, one head, length 16, batch 32, lr 1e-2), previous token for 200 steps and
  reversal for 150, seeds 0-2, exactly as ``trained()`` there;
* ``token_accuracy``   -- chapter 8's accuracies at lengths 16 to 128 (three of those
  models, 100 sequences each);
* ``fit_regression``   -- one image fit of chapter 5 (MLP 128-64-64-3 on 2304 pixels,
  Gaussian features, 120 steps);
* ``position_probes``  -- the two probes of chapter 6 on (48, 16, 32) hidden states;
* ``feature_regression`` -- chapter 8's kernel fit on the same image features.

``--busy`` keeps one core busy with a spinning process during the run (what a reader's
machine often has: a browser, the notebook server, another kernel); OpenBLAS threads
then wait for that core. Rounds alternate, so both columns see the same load; each time
is the best round, and the ratio default / one thread comes from the same run. What
each case computes is compared bit for bit (``same bits``): on the default pool, the
prediction of ``feature_regression`` differs in its last bits from the book's.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
from threadpoolctl import threadpool_info
from timing import machine_info, write_results

from sinpe import _threads, fourier
from sinpe.lab import nn, probes, tasks, training


def blas_threads() -> list[int]:
    """The thread count of every BLAS pool threadpoolctl sees."""
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


@contextmanager
def limiter_disabled() -> Iterator[None]:
    """Decorated calls run as if nested in a decorated call that set no limit."""
    _threads._state.limited = True
    try:
        yield
    finally:
        _threads._state.limited = False


@_threads.one_blas_thread
def decorated_pool() -> list[int]:
    return blas_threads()


def chapter_8() -> str:
    """Chapter 8's first cell; a digest of the six trained models' weights."""
    digest = hashlib.sha256()
    for task, steps in ((tasks.previous_token_task, 200), (tasks.reversal_task, 150)):
        for seed in range(3):
            model = nn.TokenModel(
                nn.ModelConfig(
                    vocab=10,
                    d_model=32,
                    n_heads=1,
                    d_ff=64,
                    n_layers=1,
                    encoding="sinusoidal",
                    max_len=16,
                    seed=seed,
                )
            )
            training.train(
                model, task, length=16, vocab=10, steps=steps, batch=32, lr=1e-2, seed=seed
            )
            for value in model.state_dict().values():
                digest.update(value.tobytes())
    return digest.hexdigest()


def image_features() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chapter 5's training pixels: Gaussian features (sigma 4), colours, test features."""
    train_x, train_y, test_x, _ = fourier.interpolation_split(fourier.hopper_image(96))
    matrix = fourier.gaussian_matrix(64, 2, 4.0, np.random.default_rng(10))
    return (
        fourier.gaussian_features(train_x, matrix),
        train_y,
        fourier.gaussian_features(test_x, matrix),
    )


def cases() -> dict[str, Callable[[], object]]:
    """Each case as a function of nothing, returning what it computed."""
    features, colours, test_features = image_features()
    models = [
        nn.TokenModel(
            nn.ModelConfig(
                vocab=10,
                d_model=32,
                n_heads=1,
                d_ff=64,
                n_layers=1,
                encoding="sinusoidal",
                max_len=16,
                seed=seed,
            )
        )
        for seed in range(3)
    ]
    inputs = [
        tasks.previous_token_task(np.random.default_rng(7), 100, length, 10)
        for length in (16, 32, 64, 128)
    ]
    states = nn.TokenModel(
        nn.ModelConfig(vocab=10, d_model=32, n_heads=4, d_ff=64, n_layers=4, max_len=16, seed=0)
    ).hidden_states(tasks.previous_token_task(np.random.default_rng(11), 48, 16, 10)[0])[2]

    def fit() -> bytes:
        model = nn.MLP([features.shape[1], 64, 64, 3], np.random.default_rng(0), output="sigmoid")
        log = training.fit_regression(model, features, colours, steps=120, lr=6e-3)
        return np.array(log.losses).tobytes()

    return {
        "ch08 first cell": chapter_8,
        "token_accuracy": lambda: [
            training.token_accuracy(model, *pair, per_position=True).tobytes()
            for model in models
            for pair in inputs
        ],
        "fit_regression": fit,
        "position_probes": lambda: probes.position_probes(states, n_train=32, max_offset=3),
        "feature_regression": lambda: fourier.feature_regression(
            features, colours, test_features
        ).tobytes(),
    }


def seconds(function: Callable[[], object]) -> tuple[float, object]:
    """Seconds of one call of ``function``, and what it returned."""
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    machine = machine_info()
    pools = blas_threads()
    variable = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    machine["blas_threads"] = f"{pools} (OPENBLAS_NUM_THREADS {variable})"
    machine["busy_core"] = str(args.busy)
    print(", ".join(f"{k}: {v}" for k, v in machine.items()))
    if pools and max(pools) == 1:
        print("note: the default pool has one thread already; unset OPENBLAS_NUM_THREADS")
    with limiter_disabled():
        assert decorated_pool() == pools, "the limiter is not disabled: see limiter_disabled"
    spinner = None
    if args.busy:
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    print(f"{'case':<19} | {'one thread s':>12} {'default s':>10} {'ratio':>7}  same bits")
    rows = []
    try:
        for name, case in cases().items():
            limited, free = math.inf, math.inf
            for _ in range(args.repeats):  # alternate, so that both see the same load
                took, ours = seconds(case)
                limited = min(limited, took)
                with limiter_disabled():
                    took, theirs = seconds(case)
                free = min(free, took)
            row = {
                "case": name,
                "one_thread_s": round(limited, 3),
                "default_s": round(free, 3),
                "ratio": round(free / limited, 2),
                "same_bits": ours == theirs,
            }
            rows.append(row)
            print(
                f"{name:<19} | {limited:>12.3f} {free:>10.3f} {row['ratio']:>6.2f}x  "
                f"{'yes' if row['same_bits'] else 'NO'}",
                flush=True,
            )
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    write_results(args.json, machine, rows)


if __name__ == "__main__":
    main()
