"""Time sinpe.lab.nn.EncoderLayer (NumPy) and, side by side, torch.nn.TransformerEncoderLayer.

Usage::

    python benchmarks/bench_encoder_layer.py            # NumPy only
    /path/to/env-with-torch/bin/python benchmarks/bench_encoder_layer.py \
        [--json sinpe/data/benchmarks/encoder_layer.json]

Both run in float32 on the same weights and inputs, with the same number of
threads, in the same process; each time is the best of several repeats. The
ratio column is NumPy time / PyTorch time (target for the forward pass at
batch 32, length 128, d_model 256, 8 heads, d_ff 1024: at most 2).
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from timing import best_time, machine_info, write_results

from sinpe.lab import nn

SHAPES = [  # (batch, length, d_model, heads, d_ff)
    (8, 64, 128, 4, 512),
    (32, 128, 256, 8, 1024),
    (4, 512, 512, 8, 2048),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1))
    if torch is not None:
        torch.set_num_threads(threads)
    machine = machine_info() | {
        "torch": torch.__version__ if torch else "not installed",
        "threads": str(threads),
        "dtype": "float32",
        "repeats": str(args.repeats),
    }
    print(", ".join(f"{k}: {v}" for k, v in machine.items()))
    rows = []
    header = f"{'B':>3} {'T':>4} {'D':>4} {'H':>2} {'F':>5} | {'pass':<16}| {'numpy ms':>9}"
    print(header + (f" {'torch ms':>9} {'ratio':>6}" if torch else ""))
    for batch, length, width, heads, d_ff in SHAPES:
        rng = np.random.default_rng(0)
        layer = nn.EncoderLayer(
            nn.ModelConfig(d_model=width, n_heads=heads, d_ff=d_ff, encoding="none"), rng
        ).astype(np.float32)
        x = rng.normal(size=(batch, length, width)).astype(np.float32)
        dout = rng.normal(size=x.shape).astype(np.float32)

        def numpy_forward(layer=layer, x=x):
            layer.forward(x)

        def numpy_both(layer=layer, x=x, dout=dout):
            layer.forward(x)
            layer.backward(dout)

        times = {
            "forward": best_time(numpy_forward, args.repeats),
            "forward+backward": best_time(numpy_both, args.repeats),
        }
        torch_rows = {}
        if torch is not None:
            reference = torch.nn.TransformerEncoderLayer(
                width, heads, d_ff, dropout=0.0, batch_first=True
            )
            reference.load_state_dict(
                {k: torch.from_numpy(v) for k, v in layer.state_dict().items()}
            )
            tx = torch.from_numpy(x)
            tdout = torch.from_numpy(dout)

            def torch_forward(reference=reference, tx=tx):
                with torch.no_grad():
                    reference.eval()(tx)

            def torch_both(reference=reference, tx=tx, tdout=tdout):
                reference.train()
                inputs = tx.clone().requires_grad_(True)
                reference(inputs).backward(tdout)

            torch_rows = {
                "forward": best_time(torch_forward, args.repeats),
                "forward+backward": best_time(torch_both, args.repeats),
            }
        for name, seconds in times.items():
            row = {
                "batch": batch,
                "length": length,
                "d_model": width,
                "heads": heads,
                "d_ff": d_ff,
                "pass": name,
                "numpy_ms": round(1e3 * seconds, 2),
            }
            if torch_rows:
                row["torch_ms"] = round(1e3 * torch_rows[name], 2)
                row["ratio"] = round(seconds / torch_rows[name], 2)
            rows.append(row)
            line = (
                f"{batch:>3} {length:>4} {width:>4} {heads:>2} {d_ff:>5} | {name:<16}| "
                f"{1e3 * seconds:>9.1f}"
            )
            if torch_rows:
                line += f" {1e3 * torch_rows[name]:>9.1f} {seconds / torch_rows[name]:>6.2f}"
            print(line, flush=True)
    write_results(args.json, machine, rows)


if __name__ == "__main__":
    main()
