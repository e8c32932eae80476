"""sinpe's tables are the same bits on every machine (issue 21).

Every table is built from :func:`sinpe._trig.sincos` (IEEE-754 basic operations only)
and from products and sums that are each one ufunc call, so:

- each entry equals, bit for bit, the same formula evaluated with Python floats
  (CPython rounds every operation on its own), and
- the bytes do not change when NumPy's SIMD dispatch above the baseline is disabled
  (NumPy's own np.sin / complex product do change there on AVX2 machines).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import sinpe
from sinpe import rope
from sinpe._trig import sincos_scalar

# Each entry: the expression evaluated in the child and here; its bytes are hashed.
TABLES = {
    "positional_encoding": "sinpe.positional_encoding(np.arange(3000) * 7.25, 256)",
    "positional_encoding concat": "sinpe.positional_encoding(np.arange(500), 96, layout='concat')",
    "table float64": "sinpe.table(5000, 512, start=123)",
    "table float32": "sinpe.table(3000, 128, dtype=np.float32)",
    "table concat": "sinpe.table(700, 64, layout='concat', base=500.0)",
    "encode whisper": "sinpe.encode(np.arange(1500), 384, 'whisper')",
    "encode guided-diffusion": "sinpe.encode(np.arange(0, 1000, 0.5), 128, 'guided-diffusion')",
    "apply_rope": "rope.apply_rope(np.ones((4, 300, 64)), np.arange(300))",
    "shift_matrix": "sinpe.shift_matrix(12345.5, 64)",
}

CHILD = """
import hashlib, json, sys
import numpy as np
import sinpe
from sinpe import rope
try:
    from numpy._core import _multiarray_umath as umath
except ImportError:  # NumPy 1.x
    from numpy.core import _multiarray_umath as umath
tables = json.loads(sys.argv[1])
out = {name: hashlib.sha256(np.ascontiguousarray(eval(expr)).tobytes()).hexdigest()
       for name, expr in tables.items()}
out["enabled"] = [g for g in umath.__cpu_dispatch__ if umath.__cpu_features__.get(g)]
json.dump(out, sys.stdout)
"""


def _digest(expression: str) -> str:
    value = eval(expression, {"sinpe": sinpe, "np": np, "rope": rope})
    return hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()


def test_tables_are_the_same_bytes_with_simd_dispatch_disabled(notebooks):
    groups = notebooks.dispatch_above_baseline()
    if not groups:
        pytest.skip("this CPU has no dispatch level above NumPy's baseline")
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", CHILD, json.dumps(TABLES)],
                env=environ,
                capture_output=True,
                check=True,
                text=True,
            ).stdout
        )
        for environ in (os.environ, {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(groups)})
    ]
    native, baseline = runs
    assert not baseline["enabled"], "the switch did not take effect"
    for name, expression in TABLES.items():
        assert native[name] == baseline[name] == _digest(expression), name


def test_positional_encoding_equals_the_scalar_formula_bit_for_bit():
    # PE(p, 2i) = sin(p w_i), PE(p, 2i + 1) = cos(p w_i): the phase is one float64
    # product and sincos_scalar evaluates the same algorithm with Python floats.
    omega = sinpe.frequencies(64).tolist()
    positions = [0.0, 1.0, 7.5, 123.0, 4096.0, 1e6 + 0.25, 3.0e8]
    table = sinpe.positional_encoding(positions, 64)
    for row, p in zip(table.tolist(), positions, strict=True):
        expected = []
        for w in omega:
            expected.extend(sincos_scalar(p * w))
        assert row == expected, p


def test_table_equals_angle_addition_in_python_floats_bit_for_bit():
    # Row a*B + b is sin(A + b w) = sin A cos bw + cos A sin bw and
    # cos(A + b w) = cos A cos bw + (-sin A) sin bw, with A = (start + a*B) w: each
    # product and sum rounded once, as CPython does.
    block, width, start = sinpe.TABLE_BLOCK, 16, 5.0
    omega = sinpe.frequencies(width).tolist()
    rows = [0, 1, block - 1, block, 3 * block + 17]
    table = sinpe.table(rows[-1] + 1, width, start=start)
    for j in rows:
        a, b = divmod(j, block)
        expected = []
        for w in omega:
            s_a, c_a = sincos_scalar((start + a * block) * w)
            s_b, c_b = sincos_scalar(b * w)
            expected += [s_a * c_b + c_a * s_b, c_a * c_b + (-s_a) * s_b]
        assert table[j].tolist() == expected, j


def test_float32_tables_are_the_float64_table_rounded_once():
    exact = sinpe.table(2000, 64)
    assert np.array_equal(sinpe.table(2000, 64, dtype=np.float32), exact.astype(np.float32))
