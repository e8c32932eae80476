"""sinpe.checkpoint.files: the tensors of a NumPy, safetensors or PyTorch file, read lazily.

Every kind of broken file exits 2 with a message (``sinpe inspect``), never a
traceback; PyTorch files are read with ``weights_only`` and nothing is unpickled; large
tensors are memory-mapped; dtypes NumPy lacks are listed, or widened (bfloat16).
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from checkpoints import F32, ROWS, WIDTH, good_file, run, save
from sources import annotated_transformer, fairseq_get_embedding

from sinpe.checkpoint import files

# --- bad input: a message and exit 2, never a traceback -----------------------------------


def truncated(folder: Path, fmt: str) -> Path:
    path = save(folder, fmt, {"wpe": annotated_transformer(ROWS, WIDTH, dtype=F32)})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


BROKEN = {
    "missing file": (lambda d: d / "nothing.safetensors", "no such file"),
    "folder of no model": (lambda d: _write(d / "notes.txt", b"hi").parent, "nothing to inspect"),
    "unknown format": (lambda d: _write(d / "model.h5", b"\x89HDF\r\n"), "unknown format '.h5'"),
    "truncated npy": (lambda d: truncated(d, "npy"), "truncated"),
    "truncated npz": (lambda d: truncated(d, "npz"), "cannot read model.npz"),
    "truncated safetensors": (lambda d: truncated(d, "safetensors"), "truncated"),
    "safetensors header garbage": (
        lambda d: _write(
            d / "x.safetensors", (20).to_bytes(8, "little") + b"{not json" + b" " * 11
        ),
        "corrupt safetensors header",
    ),
    "safetensors header too long": (
        lambda d: _write(d / "x.safetensors", (10**9).to_bytes(8, "little") + b"{}"),
        "exceeds the file",
    ),
    "empty safetensors": (lambda d: _write(d / "x.safetensors", b""), "truncated"),
    "npy of objects": (
        lambda d: _write(d / "obj.npy", _npy_bytes(np.array([{"a": 1}], dtype=object))),
        "holds Python objects",
    ),
    "not a zip": (lambda d: _write(d / "model.npz", b"hello"), "cannot read model.npz"),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_files_exit_2_with_a_message(tmp_path, capsys, case):
    make, message = BROKEN[case]
    status, _, err = run(capsys, make(tmp_path))
    assert status == 2
    assert err.startswith("sinpe inspect: error: ")
    assert message in err, err


@pytest.mark.parametrize("suffix", [".pt", ".pth", ".bin"])
def test_pytorch_files_without_torch_name_what_to_install(tmp_path, capsys, suffix, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    path = _write(tmp_path / f"model{suffix}", b"PK\x03\x04 not really")
    status, _, err = run(capsys, path)
    assert status == 2
    assert "needs PyTorch" in err and "pip install torch" in err and "sinpe[files]" in err


def test_pytorch_state_dict_is_read_with_weights_only(tmp_path, capsys):
    torch = pytest.importorskip("torch")  # not in requirements.lock: runs where installed
    state = {
        "model": {
            "embed_positions.weights": torch.tensor(fairseq_get_embedding(64, 16, 1, dtype=F32))
        }
    }
    torch.save(state, tmp_path / "checkpoint.pt")
    status, report, _ = run(capsys, tmp_path / "checkpoint.pt", "--json")
    assert status == 0
    assert report["tensors"][0]["name"] == "model.embed_positions.weights"


def test_pytorch_files_with_objects_or_truncated_exit_2(tmp_path, capsys):
    torch = pytest.importorskip("torch")  # not in requirements.lock: runs where installed

    class Payload:
        def __reduce__(self):
            return (print, ("unpickled!",))

    torch.save({"a": Payload()}, tmp_path / "evil.pth")
    status, out, err = run(capsys, tmp_path / "evil.pth")
    assert status == 2 and "unpickled!" not in out
    assert "never unpickled" in err and len(err.splitlines()) == 1
    torch.save({"wpe": torch.zeros(64, 8)}, tmp_path / "model.bin")
    data = (tmp_path / "model.bin").read_bytes()
    (tmp_path / "model.bin").write_bytes(data[: len(data) // 2])
    status, _, err = run(capsys, tmp_path / "model.bin")
    assert status == 2 and "cannot read model.bin" in err


# --- lazy reading ---------------------------------------------------------------------------


def test_large_safetensors_tensors_are_memory_mapped(tmp_path, monkeypatch):
    path = good_file(tmp_path)
    monkeypatch.setattr(files, "MAPPED_FROM", 1024)
    mapped = files.open_tensors(path)["wpe.weight"].read()
    assert isinstance(mapped, np.memmap)
    np.testing.assert_array_equal(mapped, annotated_transformer(ROWS, WIDTH, dtype=F32))


def test_npz_members_saved_uncompressed_are_mapped(tmp_path):
    table = annotated_transformer(ROWS, WIDTH, dtype=F32)
    np.savez(tmp_path / "a.npz", wpe=table)
    np.savez_compressed(tmp_path / "b.npz", wpe=table)
    stored = files.open_tensors(tmp_path / "a.npz")["wpe"].read()
    compressed = files.open_tensors(tmp_path / "b.npz")["wpe"].read()
    assert isinstance(stored, np.memmap) and not isinstance(compressed, np.memmap)
    np.testing.assert_array_equal(stored, table)
    np.testing.assert_array_equal(compressed, table)
    with zipfile.ZipFile(tmp_path / "a.npz") as archive:
        assert archive.getinfo("wpe.npy").compress_type == zipfile.ZIP_STORED


def test_tensors_of_other_dtypes_are_listed_not_read(tmp_path, capsys):
    # a float8 weight beside a float32 table: the file is read, the table inspected
    table = annotated_transformer(ROWS, WIDTH, dtype=F32)
    header = {
        "wpe.weight": {"dtype": "F32", "shape": [ROWS, WIDTH], "data_offsets": [0, table.nbytes]},
        "h.0.w": {
            "dtype": "F8_E4M3",
            "shape": [4],
            "data_offsets": [table.nbytes, table.nbytes + 4],
        },
    }
    text = json.dumps(header).encode()
    path = _write(
        tmp_path / "fp8.safetensors",
        len(text).to_bytes(8, "little") + text + table.tobytes() + bytes(4),
    )
    status, _, _ = run(capsys, path)
    assert status == 0
    status, out, _ = run(capsys, path, "--key", "h.0.w")
    assert status == 2 and "F8_E4M3" in out


def test_bfloat16_safetensors_are_widened(tmp_path, capsys):
    table = annotated_transformer(ROWS, WIDTH, dtype=np.float64).astype(F32)
    bits = (table.view(np.uint32) + 0x8000) >> 16  # round to bfloat16 (no ties here matter)
    header = json.dumps(
        {
            "wpe.weight": {
                "dtype": "BF16",
                "shape": [ROWS, WIDTH],
                "data_offsets": [0, bits.size * 2],
            }
        }
    ).encode()
    path = _write(
        tmp_path / "bf16.safetensors",
        len(header).to_bytes(8, "little") + header + bits.astype("<u2").tobytes(),
    )
    status, report, _ = run(capsys, path, "--json")
    assert status == 0
    found = report["tensors"][0]
    assert found["dtype"] == "bfloat16" and found["conventions"] == ["paper"]
