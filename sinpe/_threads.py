"""One BLAS thread during sinpe's loops of small matrix products.

NumPy's OpenBLAS splits every product above about 2**18 multiply-adds across a thread
per core. On the matrices of sinpe's toy models (hundreds of rows, tens of columns) the
threads cost more than they give, and far more when another process holds a core
(chapter 8's first cell took 59 s instead of 7.5 s in a default Jupyter on 2 cores).
A reader's Jupyter does not set ``OPENBLAS_NUM_THREADS=1``, so the entry points that
run such products are decorated with :func:`one_blas_thread`. Their results are those
of a run with ``OPENBLAS_NUM_THREADS=1``, bit for bit.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

# Whether this thread is inside a decorated call: a nested call (position_probes calls
# linear_probe) costs an attribute read, not a threadpoolctl scan. Per thread,
# as threadpoolctl's limits are: with OpenBLAS's process-wide pool, only the thread that
# set a limit may change it, until it leaves its ``with`` block.
_state = threading.local()


def one_blas_thread(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function``, run with one BLAS thread; the pool is restored when it returns or raises.

    For entry points, not per-step functions: the outermost call pays for threadpoolctl
    (about 0.2 ms), nested ones for an attribute read. The undecorated function is
    ``__wrapped__``.
    """

    @functools.wraps(function)
    def limited(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if getattr(_state, "limited", False):
            return function(*args, **kwargs)
        from threadpoolctl import threadpool_limits  # on first use: import sinpe stays lean

        with threadpool_limits(limits=1, user_api="blas"):
            _state.limited = True
            try:
                return function(*args, **kwargs)
            finally:
                _state.limited = False

    return limited
