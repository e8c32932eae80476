"""sinpe.checkpoint.gguf: sinpe's own reader of GGUF files, which are hostile until shown otherwise.

The files are written by llama.cpp's own ``gguf`` package (a test-only dependency) and
read by sinpe's reader, which is checked against the package's ``GGUFReader``; then
llama.cpp's own test file, broken headers and a few hundred byte flips.
"""

from __future__ import annotations

import struct
from pathlib import Path

import gguf
import numpy as np
import pytest
from checkpoints import GGUF_CASES, assert_refused, put, run, write_gguf

from sinpe.checkpoint.cli import inspect_path
from sinpe.checkpoint.gguf import GGUFArray, read_gguf


def test_our_reader_agrees_with_the_gguf_package(tmp_path):
    path = write_gguf(tmp_path / "llama.gguf", "llama", **GGUF_CASES["llama"][0])
    ours = read_gguf(path)
    theirs = gguf.GGUFReader(str(path))
    for field in theirs.fields.values():
        if field.name.startswith("GGUF."):
            continue
        value = field.contents()
        assert ours.metadata[field.name] == pytest.approx(value), field.name
    [tensor] = theirs.tensors
    np.testing.assert_array_equal(ours.tensors()[tensor.name].read(), tensor.data)


VOCAB = Path(__file__).parent / "data" / "gguf"


@pytest.mark.parametrize("name", ["ggml-vocab-phi-3.gguf"])
def test_a_real_llama_cpp_file(name):
    """llama.cpp's own test file (vocabulary only, MIT): read, its vocabulary skipped."""
    found = read_gguf(VOCAB / name)
    assert found.architecture == "phi3"
    assert isinstance(found.metadata["tokenizer.ggml.tokens"], GGUFArray)
    assert inspect_path(str(VOCAB / name)).encodings[0].pairing == "concat"


# --- bad input: exit 2, one line, never a traceback ------------------------------------------


def _gguf_bytes(version=3, keys=b"", key_count=0, tensors=0):
    return b"GGUF" + struct.pack("<IQQ", version, tensors, key_count) + keys


def _key(name: bytes, kind: int, payload: bytes) -> bytes:
    return struct.pack("<Q", len(name)) + name + struct.pack("<I", kind) + payload


BAD = {
    "truncated gguf": (lambda d: _cut(write_gguf(d / "m.gguf", "llama")), "truncated or corrupt"),
    "garbage gguf": (lambda d: put(d / "m.gguf", b"\x00" * 100), "not a GGUF file"),
    "wrong magic": (lambda d: put(d / "m.gguf", b"GGML" + b"\x00" * 40), "not b'GGUF'"),
    "wrong version": (lambda d: put(d / "m.gguf", _gguf_bytes(1) + b"\x00" * 8), "version 1"),
    "2**40 entries": (lambda d: put(d / "m.gguf", _gguf_bytes(
        3, _key(b"general.architecture", 9, struct.pack("<IQ", 4, 2**40)), 1)), "2**40"),
    "2**40 keys": (lambda d: put(d / "m.gguf", _gguf_bytes(3, b"", 2**40)), "metadata keys"),
}  # fmt: skip


def _cut(path: Path) -> Path:
    data = path.read_bytes()
    path.write_bytes(data[:40])
    return path


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, case):
    make, message = BAD[case]
    assert_refused(capsys, make(tmp_path), message)


def test_hostile_gguf_files_never_raise_anything_else(tmp_path, capsys):
    """Every truncation and a few hundred byte flips of a real writer's file: exit 0, 1
    or 2, a message, never a traceback, and no allocation from a flipped length (the
    run stays small and quick: a 2**60-entry claim would hang or crash it)."""
    good = write_gguf(tmp_path / "good.gguf", "llama", **GGUF_CASES["llama"][0]).read_bytes()
    rng = np.random.default_rng(39)
    path = tmp_path / "m.gguf"
    cases = [good[:cut] for cut in range(0, len(good), 7)]
    for _ in range(300):
        data = bytearray(good)
        for where in rng.integers(0, len(good), size=rng.integers(1, 4)):
            data[where] = rng.integers(0, 256)
        cases.append(bytes(data))
    for data in cases:
        path.write_bytes(data)
        status, out, err = run(capsys, path)
        assert status in (0, 1, 2)
        if status == 2:  # the file, in one line; or a tensor of it, in its block
            assert len(err.splitlines()) == 1 or "cannot inspect (exit 2)" in out, err


MUTANTS = [
    (
        "checkpoint/gguf.py",
        "_value",
        "if length > KEPT_ARRAY:\n    cursor.at += length * width\n"
        "    return GGUFArray(inner, length)",
        "if length > KEPT_ARRAY:\n    cursor.at += length\n    return GGUFArray(inner, length)",
        "read_gguf: a long numeric array stepped over by its count, not its bytes",
    ),
    (
        "checkpoint/gguf.py",
        "_parse",
        "12 * keys",
        "0",
        "read_gguf: the key count not checked against the file before the loop",
    ),
]
