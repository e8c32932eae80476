"""Encoder layers recorded with PyTorch, loaded into :class:`sinpe.lab.nn.EncoderLayer`.

``scripts/make_torch_fixtures.py`` ran ``torch.nn.TransformerEncoderLayer`` in 16
configurations and stored inputs, weights and outputs in
``sinpe/data/torch_encoder_layer.npz`` (package data); :func:`recorded_layers`
loads them, so the NumPy layer can be compared with PyTorch without PyTorch.
NumPy only.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from sinpe.lab import nn

__all__ = ["RECORD_NAME", "RecordedLayer", "recorded_layers"]


#: The PyTorch record shipped as package data (see :func:`recorded_layers`).
RECORD_NAME = "torch_encoder_layer.npz"


@dataclass(frozen=True)
class RecordedLayer:
    """A PyTorch encoder layer, loaded into :class:`sinpe.lab.nn.EncoderLayer`, with its record.

    What :func:`recorded_layers` returns, one per case: ``case``
    (``"<norm>-<activation>-<mask>"``, e.g. ``"pre-gelu-causal"``), ``layer``
    (built from PyTorch's ``state_dict``), ``inputs`` and ``outputs`` (``(B, T, D)``
    float32, as PyTorch computed them) and the ``mask`` and ``key_padding_mask``
    PyTorch was given (or None).

    Examples
    --------
    >>> import numpy as np
    >>> _, layers = recorded_layers()
    >>> record = layers[0]
    >>> record.case, record.inputs.shape, record.mask.shape
    ('post-gelu-causal', (2, 5, 16), (5, 5))
    >>> bool(np.abs(record.run() - record.outputs).max() < 1e-5)
    True
    """

    case: str
    layer: nn.EncoderLayer
    inputs: np.ndarray
    outputs: np.ndarray
    mask: np.ndarray | None
    key_padding_mask: np.ndarray | None

    def run(self) -> np.ndarray:
        """The NumPy layer's output for the recorded input and masks (compare: ``outputs``)."""
        return self.layer(self.inputs, mask=self.mask, key_padding_mask=self.key_padding_mask)


def recorded_layers(path: str | Path | None = None) -> tuple[str, list[RecordedLayer]]:
    """``(torch_version, layers)``: encoder layers recorded by ``scripts/make_torch_fixtures.py``.

    ``path`` is an ``.npz`` file written by that script; by default the record
    shipped with sinpe (16 layers), so this works from an installed wheel, on
    Colab or Binder as in a clone. The layers are sorted by case name.
    """
    if path is not None:
        if not isinstance(path, (str, Path)):
            raise TypeError(
                f"path must be a file name or a pathlib.Path, got {type(path).__name__}; "
                f"or leave it out to load the record shipped with sinpe"
            )
        if not Path(path).is_file():
            raise FileNotFoundError(
                f"no file {str(path)!r}; leave path out to load the record shipped with sinpe"
            )
    source = resources.files("sinpe").joinpath("data", RECORD_NAME) if path is None else Path(path)
    with resources.as_file(source) as file, np.load(file) as record:
        arrays = {key: record[key] for key in record.files}
    if "n_heads" not in arrays or "torch_version" not in arrays:
        raise ValueError(
            "the file is not a record of scripts/make_torch_fixtures.py (no 'n_heads' or "
            "'torch_version'); leave path out to load the record shipped with sinpe"
        )
    n_heads, layers = int(arrays["n_heads"]), []
    for case in sorted({key.split("/")[0] for key in arrays if "/" in key}):
        norm, activation, _ = case.split("-")
        prefix = f"{case}/state/"
        state = {
            key[len(prefix) :]: value for key, value in arrays.items() if key.startswith(prefix)
        }
        layer = nn.EncoderLayer.from_state_dict(
            state, n_heads=n_heads, norm_first=norm == "pre", activation=activation
        )
        masks = (arrays.get(f"{case}/{name}") for name in ("mask", "key_padding_mask"))
        layers.append(RecordedLayer(case, layer, arrays[f"{case}/x"], arrays[f"{case}/y"], *masks))
    return str(arrays["torch_version"]), layers
