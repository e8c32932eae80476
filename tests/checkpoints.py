"""Checkpoint files for the tests of sinpe.checkpoint, and ``sinpe inspect`` run in-process.

Tensors saved in each format (:func:`save`), a model folder of a config and its tensors
(:func:`model_folder`), GGUF files written by llama.cpp's own ``gguf`` package
(:func:`write_gguf`, :data:`GGUF_CASES`), the shipped configs (:func:`shipped`),
and the command run in-process (:func:`run`, :func:`entries`). The tests named for each
module of sinpe/checkpoint share them.
"""

from __future__ import annotations

import json
from pathlib import Path

import gguf
import numpy as np
from safetensors.numpy import save_file
from sources import annotated_transformer

import sinpe
from sinpe.checkpoint.cli import inspect_path, main
from sinpe.checkpoint.models import SHIPPED_CONFIGS
from sinpe.rope import llama3_frequencies

F32 = np.float32
ROWS, WIDTH = 300, 64
CONFIGS = SHIPPED_CONFIGS


# --- saving in each format, running the command -------------------------------------------


def save(folder: Path, fmt: str, tensors: dict[str, np.ndarray]) -> Path:
    """The tensors in one file of the format (a .npy holds the single tensor)."""
    if fmt == "npy":
        ((name, array),) = tensors.items()
        path = folder / f"{name}.npy"
        np.save(path, array)
    elif fmt == "npz":
        path = folder / "model.npz"
        np.savez(path, **tensors)
    else:
        path = folder / "model.safetensors"
        save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(path))
    return path


def run(capsys, *args: str) -> tuple[int, dict | str, str]:
    """main(["inspect", *args]) in-process: exit status, JSON (with --json) or text, stderr."""
    status = main(["inspect", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, (json.loads(out) if "--json" in args else out), err


def assert_refused(capsys, path, message: str) -> None:
    """``sinpe inspect path`` exits 2 with one line on stderr that says ``message``."""
    status, out, err = run(capsys, path)
    assert status == 2 and out == ""
    assert err.startswith("sinpe inspect: error: ") and len(err.splitlines()) == 1
    assert message.replace("2**40", str(2**40)) in err, err


def good_file(folder: Path) -> Path:
    return save(
        folder, "safetensors", {"wpe.weight": annotated_transformer(ROWS, WIDTH, dtype=F32)}
    )


def entries(path, *args):
    report = inspect_path(str(path), *args)
    return report, [e.as_dict() for e in report.encodings]


# --- model folders and the shipped configs -----------------------------------------------


def shipped(name):
    return json.loads((CONFIGS / name / "config.json").read_text())


def model_folder(tmp_path, config, tensors=None, name="model.safetensors"):
    (tmp_path / "config.json").write_text(json.dumps(config))
    if tensors is not None:
        save_file(tensors, str(tmp_path / name))
    return tmp_path


LLAMA = shipped("Llama-3.2-1B")


def put(path: Path, data: bytes) -> Path:
    """``data`` written to ``path``: the folder of a ``.json`` file, else the file."""
    path.write_bytes(data)
    return path.parent if path.name.endswith(".json") else path


# --- GGUF files written by llama.cpp's gguf package -----------------------------------------


def write_gguf(path: Path, arch: str, *, keys=(), tensors=None, legacy_linear=None) -> Path:
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_context_length(4096)
    writer.add_embedding_length(4096)
    writer.add_head_count(32)
    for name, value in keys:
        getattr(writer, name)(value)
    if legacy_linear is not None:
        writer.add_float32(f"{arch}.rope.scale_linear", legacy_linear)
    for name, array in (tensors or {}).items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def llama31_factors():
    plain = sinpe.frequencies(128, base=500000.0)
    return (plain / llama3_frequencies(128)).astype(np.float32)


GGUF_CASES = {
    "llama": (dict(keys=[("add_rope_freq_base", 500000.0), ("add_rope_dimension_count", 128)],
                   tensors={"rope_freqs.weight": llama31_factors()}),
              "interleaved", "llama3", 8.0, 8192),
    "qwen2": (dict(keys=[("add_rope_freq_base", 1e6),
                         ("add_rope_scaling_type", gguf.RopeScalingType.YARN),
                         ("add_rope_scaling_factor", 4.0),
                         ("add_rope_scaling_orig_ctx_len", 32768)]),
              "concat", "yarn", 4.0, 32768),
    "phi3": (dict(keys=[("add_rope_freq_base", 1e4), ("add_rope_dimension_count", 96)],
                  tensors={"rope_factors_long.weight": np.linspace(1, 20, 48, dtype=np.float32),
                           "rope_factors_short.weight": np.ones(48, np.float32)}),
             "concat", "longrope", None, None),
    "deepseek2": (dict(keys=[("add_rope_freq_base", 1e4), ("add_rope_dimension_count", 64),
                             ("add_rope_scaling_type", gguf.RopeScalingType.YARN),
                             ("add_rope_scaling_factor", 40.0),
                             ("add_rope_scaling_orig_ctx_len", 4096)]),
                  "interleaved", "yarn", 40.0, 4096),
}  # fmt: skip
