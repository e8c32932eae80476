"""One BLAS thread inside sinpe's loops of small products, for the call only (issue 27).

Each entry point is seen from inside (a callback it calls reads the BLAS pool with
threadpoolctl); the pool it found is back after it returns or raises; nested and
concurrent calls keep the limit until the last one ends; and a training run gives the
same bits with and without the limit. No test reads a clock.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import threadpoolctl
from threadpoolctl import threadpool_info, threadpool_limits

from sinpe import _threads, fourier
from sinpe._threads import one_blas_thread
from sinpe.lab import nn, probes, tasks, training


def blas_threads() -> list[int]:
    """The thread count of every BLAS pool threadpoolctl sees."""
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


@pytest.fixture
def two_threads():
    """A BLAS pool of two threads around the test: a reader's default Jupyter on 2 cores."""
    if not blas_threads():
        pytest.skip("no BLAS library that threadpoolctl controls")
    with threadpool_limits(limits=2, user_api="blas"):
        if set(blas_threads()) != {2}:
            pytest.skip("this BLAS does not run two threads")
        yield
    assert not getattr(_threads._state, "limited", False)


def model() -> nn.TokenModel:
    """A chapter-4 model (d = 32, 1 layer): large enough that OpenBLAS threads its products."""
    return nn.TokenModel(
        nn.ModelConfig(vocab=10, d_model=32, n_heads=1, d_ff=64, n_layers=1, max_len=16, seed=0)
    )


def test_train_runs_with_one_thread_and_restores_the_pool(two_threads):
    seen = []

    def task(*args):
        seen.append(blas_threads())
        return tasks.previous_token_task(*args)

    training.train(model(), task, steps=3, length=16, vocab=10, batch=32)
    assert seen == [[1]] * 3
    assert blas_threads() == [2]


def test_the_pool_is_restored_after_an_exception(two_threads):
    def task(*args):
        raise RuntimeError(f"inside: {blas_threads()}")

    with pytest.raises(RuntimeError, match=r"inside: \[1\]"):
        training.train(model(), task, steps=3, length=16, vocab=10)
    assert blas_threads() == [2]


class Recording(nn.MLP):
    """An MLP that notes the BLAS pool at every forward pass."""

    def forward(self, x):
        self.seen.append(blas_threads())
        return super().forward(x)


class RecordingTokens(nn.TokenModel):
    """A TokenModel that notes the BLAS pool at every forward pass."""

    def forward(self, tokens, mask=None, key_padding_mask=None):
        self.seen.append(blas_threads())
        return super().forward(tokens, mask=mask, key_padding_mask=key_padding_mask)


def solve_recording(seen, monkeypatch):
    """Make np.linalg.solve note the BLAS pool before solving."""
    solve = np.linalg.solve

    def recording(*args):
        seen.append(blas_threads())
        return solve(*args)

    monkeypatch.setattr(np.linalg, "solve", recording)


def test_every_entry_point_runs_with_one_thread(two_threads, monkeypatch):
    rng = np.random.default_rng(0)
    mlp = Recording([2, 8, 1], rng)
    mlp.seen = []
    x = rng.normal(size=(20, 2))
    training.fit_regression(mlp, x, x[:, :1], steps=2, eval_inputs=x, record_every=1)
    assert mlp.seen and all(seen == [1] for seen in mlp.seen)
    tokens = RecordingTokens(nn.ModelConfig(vocab=10, d_model=8, n_heads=2, d_ff=16, n_layers=1))
    tokens.seen = []
    training.token_accuracy(tokens, np.zeros((2, 4), dtype=int), np.zeros((2, 4), dtype=int))
    assert tokens.seen == [[1]]
    seen = []
    solve_recording(seen, monkeypatch)
    labels = (x[:, 0] > 0).astype(int)
    probes.linear_probe(x, labels, x, labels)
    fourier.feature_regression(x, x, x)
    probes.position_probes(rng.normal(size=(4, 5, 3)), n_train=2, max_offset=2)
    assert seen == [[1]] * 4  # 1 + 1 + the two probes of position_probes
    assert blas_threads() == [2]


def test_nested_calls_limit_once_and_keep_the_limit(two_threads, monkeypatch):
    entered = []
    limits = threadpoolctl.threadpool_limits

    def counting(*args, **kwargs):
        entered.append(kwargs)
        return limits(*args, **kwargs)

    monkeypatch.setattr(threadpoolctl, "threadpool_limits", counting)

    @one_blas_thread
    def inner():
        return blas_threads()

    @one_blas_thread
    def outer():
        return inner(), inner(), blas_threads()

    assert outer() == ([1], [1], [1])
    assert entered == [{"limits": 1, "user_api": "blas"}]
    assert blas_threads() == [2]


def in_thread(function):
    """What ``function()`` returns when run in a new thread."""
    result = []
    worker = threading.Thread(target=lambda: result.append(function()))
    worker.start()
    worker.join(60)
    return result[0]


def test_a_call_leaves_the_pool_to_other_threads():
    """With OpenBLAS's shared pool only one thread at a time may set limits (threadpoolctl):
    a call in the main thread must give that back, or later calls elsewhere do nothing."""
    if not blas_threads():
        pytest.skip("no BLAS library that threadpoolctl controls")

    @one_blas_thread
    def limited():
        return blas_threads()

    assert limited() == [1]

    def elsewhere():
        with threadpool_limits(limits=2, user_api="blas"):
            outside = blas_threads()
            return outside, limited(), blas_threads()

    outside, inside, after = in_thread(elsewhere)
    if outside != [2]:
        pytest.skip("this BLAS does not run two threads")
    assert (inside, after) == ([1], [2])


def test_a_call_ending_in_another_thread_keeps_the_limit(two_threads):
    @one_blas_thread
    def short_call():
        return blas_threads()

    @one_blas_thread
    def long_call():
        return in_thread(short_call), blas_threads()

    assert long_call() == ([1], [1])
    assert blas_threads() == [2]


def test_results_are_bit_identical_with_and_without_the_limit(two_threads):
    limited, free = model(), model()
    options = dict(length=16, vocab=10, steps=20, batch=32, lr=1e-2, seed=3)
    held_out = tasks.previous_token_task(np.random.default_rng(7), 64, 16, 10)
    seen = []

    def task(*args):
        seen.append(blas_threads())
        return tasks.previous_token_task(*args)

    log = training.train(limited, tasks.previous_token_task, held_out=held_out, **options)
    free_log = training.train.__wrapped__(free, task, held_out=held_out, **options)
    assert seen == [[2]] * 20  # the undecorated run had two threads
    assert log == free_log  # every loss and accuracy, exactly
    for (name, value), (free_name, free_value) in zip(
        limited.state_dict().items(), free.state_dict().items(), strict=True
    ):
        assert name == free_name
        assert value.tobytes() == free_value.tobytes(), name
