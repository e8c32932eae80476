"""Time and memory of ``sinpe inspect`` on the models people download (issue 39).

Usage::

    python benchmarks/inspect_models.py [--shards 191] [--gguf-gb 40] [--folder /tmp]

Two measurements, each of ``python -m sinpe inspect`` run as a user runs it, in a child
process (wall clock, and peak resident set from ``ru_maxrss``):

* a 405B-style folder: the shipped Llama 3.1 405B ``config.json``, a
  ``model.safetensors.index.json`` naming ``--shards`` shards, and the shards themselves,
  written with safetensors' own writer, each holding its share of the 405B's tensor
  names as zero-size tensors (the shard holding ``rotary_emb.inv_freq`` holds it whole).
  Target: at most 1 s;
* a sparse ``--gguf-gb`` GB GGUF file: metadata at the start (a 128256-token vocabulary
  and its merges, written by llama.cpp's ``gguf`` package), one tensor index entry per
  layer weight, and a sparse hole as the data. Target: at most 0.5 s, peak RSS < 100 MB.

Also the same two in this process (the reader alone, without Python's start-up). The
files are deleted at the end. Not a test: no test depends on wall-clock time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sinpe import frequencies
from sinpe.checkpoint.cli import inspect_path
from sinpe.checkpoint.models import SHIPPED_CONFIGS
from sinpe.rope import llama3_frequencies

LAYERS_405B = 126
PER_LAYER = (
    "input_layernorm.weight", "mlp.down_proj.weight", "mlp.gate_proj.weight",
    "mlp.up_proj.weight", "post_attention_layernorm.weight", "self_attn.k_proj.weight",
    "self_attn.o_proj.weight", "self_attn.q_proj.weight", "self_attn.v_proj.weight",
)  # fmt: skip


def names_405b() -> list[str]:
    names = ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"]
    for layer in range(LAYERS_405B):
        names += [f"model.layers.{layer}.{part}" for part in PER_LAYER]
    return [*names, "model.layers.0.self_attn.rotary_emb.inv_freq"]


def write_folder(folder: Path, shards: int) -> Path:
    from safetensors.numpy import save_file

    folder.mkdir()
    (folder / "config.json").write_bytes(
        (SHIPPED_CONFIGS / "Meta-Llama-3.1-405B" / "config.json").read_bytes()
    )
    names = names_405b()
    weight_map = {}
    for shard in range(shards):
        file = f"model-{shard + 1:05d}-of-{shards:05d}.safetensors"
        mine = names[shard::shards]
        tensors = {name: np.zeros((0, 16384), np.float32) for name in mine}
        for name in mine:
            if name.endswith("inv_freq"):
                tensors[name] = llama3_frequencies(128).astype(np.float32)
            weight_map[name] = file
        save_file(tensors, str(folder / file))
    index = {"metadata": {"total_size": 810 * 2**30}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    return folder


def write_gguf(path: Path, gigabytes: float) -> Path:
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(131072)
    writer.add_embedding_length(4096)
    writer.add_head_count(32)
    writer.add_rope_freq_base(500000.0)
    writer.add_rope_dimension_count(128)
    tokens = [f"tok{i}" for i in range(128256)]
    writer.add_token_list(tokens)
    writer.add_token_merges([f"t{i} o{i}" for i in range(280147)])
    writer.add_token_types([1] * len(tokens))
    factors = frequencies(128, base=500000.0) / llama3_frequencies(128, base=500000.0)
    writer.add_tensor("rope_freqs.weight", factors.astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with path.open("r+b") as handle:  # the weights: a sparse hole
        handle.truncate(int(gigabytes * 1e9))
    return path


def child(path: Path) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit status) of ``python -m sinpe inspect PATH``."""
    code = (
        "import resource, sys, time; start = time.perf_counter(); "
        "from sinpe.checkpoint.cli import main; status = main(['inspect', sys.argv[1]]); "
        "sys.stderr.write(f'{time.perf_counter() - start} "
        "{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n'); sys.exit(status)"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    inner, rss = done.stderr.split()[-2:]
    del inner
    return wall, int(rss) / 1024, done.returncode


def in_process(path: Path) -> float:
    start = time.perf_counter()
    report = inspect_path(str(path))
    assert report.exit_code == 0, report.as_dict()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=191)
    parser.add_argument("--gguf-gb", type=float, default=40.0)
    parser.add_argument("--folder", default=None)
    arguments = parser.parse_args()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sinpe.checkpoint.cli"], check=True)
    print(
        f"python start-up and import of sinpe.checkpoint.cli alone: "
        f"{time.perf_counter() - start:.3f} s (included in each command's time below)"
    )
    with tempfile.TemporaryDirectory(dir=arguments.folder) as scratch:
        folder = write_folder(Path(scratch) / "llama-405b", arguments.shards)
        wall, rss, status = child(folder)
        alone = min(in_process(folder) for _ in range(3))
        print(
            f"405B-style folder ({arguments.shards} shards + index): exit {status}, "
            f"{wall:.3f} s (target <= 1 s), peak RSS {rss:.0f} MB; "
            f"in process {alone:.3f} s"
        )
        path = write_gguf(Path(scratch) / "model.gguf", arguments.gguf_gb)
        size = os.stat(path).st_size / 1e9
        wall, rss, status = child(path)
        alone = min(in_process(path) for _ in range(3))
        print(
            f"sparse {size:.0f} GB GGUF (128256-token vocabulary): exit {status}, "
            f"{wall:.3f} s (target <= 0.5 s), peak RSS {rss:.0f} MB (target < 100 MB); "
            f"in process {alone:.3f} s"
        )
    print(
        f"this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


if __name__ == "__main__":
    main()
