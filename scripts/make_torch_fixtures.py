"""Record what torch.nn.TransformerEncoderLayer computes, for tests/test_pytorch_record.py.

PyTorch is not a dependency of sinpe. This script runs once, in an environment
that has it, and stores inputs, weights and outputs in sinpe/data/ (package data,
loaded by sinpe.lab.pytorch_record.recorded_layers):

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch numpy
    /tmp/torchenv/bin/python -m scripts.make_torch_fixtures

Each case is a layer with random weights (LayerNorm weights too), evaluated in
eval mode with batch_first=True on a random batch, with and without masks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parent.parent / "sinpe" / "data" / "torch_encoder_layer.npz"
D_MODEL, N_HEADS, D_FF, BATCH, LENGTH = 16, 4, 32, 2, 5


def main() -> None:
    torch.manual_seed(0)
    arrays: dict[str, np.ndarray] = {}
    causal = torch.triu(torch.ones(LENGTH, LENGTH, dtype=torch.bool), 1)
    float_mask = torch.randn(LENGTH, LENGTH)
    padding = torch.tensor([[False] * LENGTH, [False] * (LENGTH - 2) + [True] * 2])
    masks = {
        "none": (None, None),
        "causal": (causal, None),
        "float": (float_mask, None),
        "padding": (None, padding),
    }
    for norm_first in (False, True):
        for activation in ("relu", "gelu"):
            for mask_name, (mask, key_padding) in masks.items():
                case = f"{'pre' if norm_first else 'post'}-{activation}-{mask_name}"
                layer = torch.nn.TransformerEncoderLayer(
                    D_MODEL,
                    N_HEADS,
                    D_FF,
                    dropout=0.0,
                    activation=activation,
                    batch_first=True,
                    norm_first=norm_first,
                )
                with torch.no_grad():
                    for name, parameter in layer.named_parameters():
                        if name.startswith("norm"):
                            parameter.copy_(
                                torch.randn_like(parameter) * 0.3
                                + (1.0 if name.endswith("weight") else 0.0)
                            )
                        elif name.endswith("bias"):
                            parameter.copy_(torch.randn_like(parameter) * 0.1)
                layer.eval()
                x = torch.randn(BATCH, LENGTH, D_MODEL)
                with torch.no_grad():
                    # The reference computation (PyTorch's "slow path").
                    torch.backends.mha.set_fastpath_enabled(False)
                    y = layer(x, src_mask=mask, src_key_padding_mask=key_padding)
                    # The eval-mode fast path must agree, except where it is known not
                    # to: with a float src_mask it returned NaN in torch 2.13
                    # (https://github.com/pytorch/pytorch/issues/118628).
                    torch.backends.mha.set_fastpath_enabled(True)
                    fast = layer(x, src_mask=mask, src_key_padding_mask=key_padding)
                if mask_name != "float":
                    assert torch.allclose(fast, y, rtol=1e-4, atol=1e-5), case
                else:
                    print(f"{case}: fast path finite: {bool(torch.isfinite(fast).all())}")
                for name, value in layer.state_dict().items():
                    arrays[f"{case}/state/{name}"] = value.numpy()
                arrays[f"{case}/x"] = x.numpy()
                arrays[f"{case}/y"] = y.numpy()
                if mask is not None:
                    arrays[f"{case}/mask"] = mask.numpy()
                if key_padding is not None:
                    arrays[f"{case}/key_padding_mask"] = key_padding.numpy()
    arrays["torch_version"] = np.array(torch.__version__)
    arrays["n_heads"] = np.array(N_HEADS)  # read back by sinpe.lab.pytorch_record.recorded_layers
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {len(arrays)} arrays to {OUT} with torch {torch.__version__}")


if __name__ == "__main__":
    main()
