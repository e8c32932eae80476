"""EncoderLayer.from_state_dict computes what torch.nn.TransformerEncoderLayer computes.

The expected outputs were recorded with PyTorch by scripts/make_torch_fixtures.py
(sinpe/data/torch_encoder_layer.npz, shipped as package data); PyTorch itself is
not needed to run these tests. When torch is importable, one more test compares
live on fresh weights.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sinpe.lab import nn, pytorch_record

FIXTURE_PATH = Path(__file__).parent.parent / "sinpe" / "data" / "torch_encoder_layer.npz"
FIXTURES = np.load(FIXTURE_PATH)
CASES = sorted({key.split("/")[0] for key in FIXTURES.files if "/" in key})


def test_fixture_covers_every_option():
    assert len(CASES) == 16
    assert str(FIXTURES["torch_version"]).startswith("2.")


TORCH_VERSION, RECORDED = pytorch_record.recorded_layers(FIXTURE_PATH)


def test_recorded_layers_loads_every_case():
    assert [recorded.case for recorded in RECORDED] == CASES
    assert TORCH_VERSION == str(FIXTURES["torch_version"])
    masked = {recorded.case for recorded in RECORDED if recorded.mask is not None}
    assert masked == {case for case in CASES if f"{case}/mask" in FIXTURES.files}


@pytest.mark.parametrize("recorded", RECORDED, ids=CASES)
def test_matches_recorded_torch_output(recorded):
    got = recorded.run()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, recorded.outputs, rtol=1e-4, atol=2e-5)


def test_wrong_options_do_not_match():
    # The comparison can fail: the same weights read as pre-LN give other numbers.
    case = "post-relu-none"
    prefix = f"{case}/state/"
    state = {key[len(prefix) :]: FIXTURES[key] for key in FIXTURES.files if key.startswith(prefix)}
    layer = nn.EncoderLayer.from_state_dict(state, n_heads=4, norm_first=True)
    got = layer(FIXTURES[f"{case}/x"])
    assert not np.allclose(got, FIXTURES[f"{case}/y"], rtol=1e-3, atol=1e-3)


def test_state_dict_round_trip_keeps_torch_names():
    case = "pre-gelu-causal"
    prefix = f"{case}/state/"
    state = {key[len(prefix) :]: FIXTURES[key] for key in FIXTURES.files if key.startswith(prefix)}
    layer = nn.EncoderLayer.from_state_dict(state, n_heads=4, norm_first=True, activation="gelu")
    exported = layer.state_dict()
    assert sorted(exported) == sorted(state)
    for key, value in state.items():
        np.testing.assert_array_equal(exported[key], value)


def test_live_against_torch_when_available():
    torch = pytest.importorskip("torch", reason="torch not installed; recorded fixtures cover it")
    torch.manual_seed(1)
    reference = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()
    x = torch.randn(3, 4, 8)
    with torch.no_grad():
        expected = reference(x).numpy()
    state = {k: v.numpy() for k, v in reference.state_dict().items()}
    layer = nn.EncoderLayer.from_state_dict(state, n_heads=2)
    np.testing.assert_allclose(layer(x.numpy()), expected, rtol=1e-4, atol=2e-5)
