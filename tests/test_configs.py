"""sinpe.checkpoint.configs: what a config.json, params.json or GGUF metadata says of positions.

Read as transformers reads it: the shipped configs' frequencies against the released
functions (re-typed in tests/test_rope_scaling.py), configs built here for the families
with no verbatim copy found (OPT, BLOOM, MPT, Falcon, Marian, GPT-NeoX, Cohere 2, Llama 4,
Gemma 3), what transformers would reject, and GGUF files written by llama.cpp's own
``gguf`` package.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from checkpoints import (
    GGUF_CASES,
    LLAMA,
    assert_refused,
    entries,
    model_folder,
    put,
    run,
    shipped,
    write_gguf,
)
from test_rope_scaling import hf_llama3, hf_longrope, hf_yarn

from sinpe.checkpoint.configs import config_encodings

# --- the shipped configs against the released functions ----------------------------------


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("Meta-Llama-3.1-8B", lambda c: hf_llama3({**c["rope_scaling"], "rope_theta": 5e5}, 128)),
        ("Llama-3.2-1B", lambda c: hf_llama3({**c["rope_scaling"], "rope_theta": 5e5}, 64)),
        ("DeepSeek-V3", lambda c: hf_yarn({**c["rope_scaling"], "rope_theta": 1e4}, 64, 163840)[0]),
        ("gpt-oss-20b", lambda c: hf_yarn({**c["rope_scaling"], "rope_theta": 150000}, 64, 131072,
                                           truncate=False)[0]),
        ("Phi-3.5-mini-instruct", lambda c: hf_longrope(
            {**c["rope_scaling"], "rope_theta": 1e4, "original_max_position_embeddings": 4096},
            96, 131072)[0]),
        ("phi-2", lambda c: 1 / 1e4 ** (np.arange(0, 32, 2) / 32)),
    ],
)  # fmt: skip
def test_effective_frequencies_equal_the_released_functions(name, reference):
    [encoding] = [e for e in config_encodings(shipped(name)) if e.kind == "rope"]
    np.testing.assert_allclose(encoding.details["inv_freq"], reference(shipped(name)), rtol=1e-12)


# --- synthetic configs of the families with no verbatim copy found -------------------------


@pytest.mark.parametrize(
    ("config", "kind", "text"),
    [
        ({"model_type": "opt", "max_position_embeddings": 2048}, "learned", "2050 rows"),
        ({"model_type": "bloom", "n_head": 16}, "alibi", "16 heads"),
        ({"model_type": "mpt", "n_heads": 32, "attn_config": {"alibi": True, "alibi_bias_max": 8}},
         "alibi", "2^(-8"),
        ({"model_type": "falcon", "alibi": True, "num_attention_heads": 71}, "alibi", "71 heads"),
        ({"model_type": "marian", "max_position_embeddings": 512}, "sinusoidal", "512 rows"),
        ({"model_type": "bert", "max_position_embeddings": 512,
          "position_embedding_type": "relative_key"}, "relative-bias", "relative_key"),
    ],
)  # fmt: skip
def test_synthetic_configs_of_other_families(config, kind, text):
    [found] = config_encodings(config)
    assert found.kind == kind and text in found.summary


def test_synthetic_gpt_neox_falcon_and_cohere2():
    [neox] = config_encodings({"model_type": "gpt_neox", "hidden_size": 512,
                               "num_attention_heads": 8, "rotary_emb_base": 10000})  # fmt: skip
    assert neox.rotary_dim == 16 and neox.head_dim == 64 and neox.pairing == "concat"
    assert any("0.25" in note for note in neox.notes)
    [falcon] = config_encodings({"model_type": "falcon", "alibi": False, "hidden_size": 4544,
                                 "num_attention_heads": 71})  # fmt: skip
    assert falcon.kind == "rope" and falcon.head_dim == 64
    cohere = config_encodings(
        {"model_type": "cohere2", "hidden_size": 512, "num_attention_heads": 4,
         "num_hidden_layers": 8, "rope_theta": 50000.0}
    )  # fmt: skip
    assert [(e.kind, e.layers) for e in cohere] == [
        ("rope", "sliding_attention"),
        ("none", "full_attention"),
    ]
    assert cohere[0].pairing == "interleaved"


def test_a_yarn_config_without_its_original_length():
    """v5's standardize_rope_params (and v4's `or`) take max_position_embeddings."""
    config = {**shipped("gpt-oss-20b"), "max_position_embeddings": 4096}
    config["rope_scaling"] = {
        k: v for k, v in config["rope_scaling"].items() if k != "original_max_position_embeddings"
    }
    [found] = config_encodings(config)
    assert found.scaling.original_context == 4096 and found.problems == []
    assert any("taken as max_position_embeddings = 4096" in note for note in found.notes)


# No verbatim public copy of a Llama 4 or an older-format Gemma 3 config was found, so
# these two layouts are tested on configs built here (synthetic, named as such).
LLAMA4_TEXT = {
    "model_type": "llama4_text", "head_dim": 128, "hidden_size": 5120,
    "num_attention_heads": 40, "num_hidden_layers": 48, "rope_theta": 500000.0,
    "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                     "high_freq_factor": 1.0, "original_max_position_embeddings": 8192},
}  # fmt: skip


def test_llama4_without_no_rope_layers_takes_every_fourth_layer():
    rope, nope = config_encodings(LLAMA4_TEXT)
    assert (rope.kind, rope.base, rope.scaling.type, rope.scaling.factor) == (
        "rope", 5e5, "llama3", 16.0)  # fmt: skip
    assert nope.kind == "none" and nope.layers == list(range(3, 48, 4))
    assert rope.layers == [i for i in range(48) if (i + 1) % 4] and rope.problems == []


def test_llama4_no_rope_layers_given():
    rope, nope = config_encodings({**LLAMA4_TEXT, "no_rope_layers": [1, 0, 1, 0]})
    assert rope.layers == [0, 2] and nope.layers == [1, 3] and nope.kind == "none"


def test_gemma3_sliding_window_pattern_without_layer_types():
    config = {"model_type": "gemma3_text", "head_dim": 256, "hidden_size": 1152,
              "num_attention_heads": 4, "num_hidden_layers": 26, "rope_theta": 1e6,
              "rope_local_base_freq": 1e4, "rope_scaling": None,
              "sliding_window_pattern": 6}  # fmt: skip
    found = [(e.base, e.layers) for e in config_encodings(config)]
    assert found == [(1e6, "full_attention"), (1e4, "sliding_attention")]


def test_params_json_is_interleaved_llama31(tmp_path, capsys):
    params = {"dim": 4096, "n_heads": 32, "n_layers": 32, "rope_theta": 500000.0,
              "use_scaled_rope": True}  # fmt: skip
    (tmp_path / "params.json").write_text(json.dumps(params))
    report, [found] = entries(tmp_path)
    assert found["source"] == "params.json" and found["pairing"] == "interleaved"
    assert found["scaling"]["type"] == "llama3" and report.exit_code == 0


# --- what transformers would reject: a problem (exit 1) or bad input (exit 2) ------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({**LLAMA, "rope_scaling": {k: v for k, v in LLAMA["rope_scaling"].items()
                                    if k != "original_max_position_embeddings"}},
         "transformers 4.57.1 rejects this rope_scaling: KeyError"),
        ({**shipped("Phi-3.5-mini-instruct"),
          "rope_scaling": {**shipped("Phi-3.5-mini-instruct")["rope_scaling"], "factor": 32.0}},
         "exactly the three fields"),
        ({**shipped("gpt-oss-20b"), "max_position_embeddings": 2048},
         "original_max_position_embeddings 4096 contradicts max_position_embeddings 2048"),
        ({**shipped("DeepSeek-V3"), "max_position_embeddings": 131072},
         "YaRN factor 40 contradicts"),
        ({**LLAMA, "max_position_embeddings": 8192}, "contradicts max_position_embeddings 8192"),
    ],
)  # fmt: skip
def test_configs_transformers_would_reject_are_problems(tmp_path, capsys, config, message):
    status, text, _ = run(capsys, model_folder(tmp_path, config))
    assert status == 1 and message in text, text


@pytest.mark.parametrize(
    "change",
    [
        {"num_hidden_layers": 2**40, "sliding_window_pattern": 6, "model_type": "gemma3_text"},
        {"sliding_window_pattern": "six", "model_type": "gemma3_text", "num_hidden_layers": 4},
        {"head_dim": 2**40},
        {"head_dim": "128"},
        {"rope_theta": "1e4"},
        {"rope_scaling": ["llama3"]},
        {"rope_scaling": {"rope_type": 3, "factor": 2.0}},
        {"rope_scaling": {"rope_type": "linear", "factor": "2"}},
        {"model_type": "llama4_text", "num_hidden_layers": 8, "no_rope_layer_interval": 0},
        {"partial_rotary_factor": -1},
        {"layer_types": ["full_attention"], "rope_parameters": {"full_attention": 7}},
    ],
)
def test_hostile_config_values_exit_2(tmp_path, capsys, change):
    status, _, err = run(capsys, model_folder(tmp_path, {**LLAMA, **change}))
    assert status == 2 and len(err.splitlines()) == 1, err


BAD = {
    "rope_scaling without factor": (lambda d: put(d / "config.json", json.dumps(
        {**LLAMA, "rope_scaling": {"rope_type": "linear"}}).encode()), "needs 'factor'"),
    "unknown rope_type": (lambda d: put(d / "config.json", json.dumps(
        {**LLAMA, "rope_scaling": {"rope_type": "ntk-by-parts", "factor": 2.0}}).encode()),
        "transformers knows default, linear, dynamic, yarn, longrope, llama3, proportional"),
    "longrope factors of the wrong length": (lambda d: put(d / "config.json", json.dumps(
        {**shipped("Phi-3.5-mini-instruct"), "rope_scaling": {
            **shipped("Phi-3.5-mini-instruct")["rope_scaling"], "short_factor": [1.0] * 47}}
    ).encode()), "one factor per pair (48"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, case):
    make, message = BAD[case]
    assert_refused(capsys, make(tmp_path), message)


# --- GGUF files written by llama.cpp's gguf package -----------------------------------------


@pytest.mark.parametrize("arch", sorted(GGUF_CASES))
def test_gguf_rope_architectures(tmp_path, arch):
    options, pairing, scaling, factor, original = GGUF_CASES[arch]
    path = write_gguf(tmp_path / f"{arch}.gguf", arch, **options)
    report, found = entries(path)
    assert report.exit_code == 0, found
    first = found[0]
    assert first["source"] == "gguf" and first["kind"] == "rope" and first["pairing"] == pairing
    assert first["architecture"] == arch
    if scaling is None:
        assert first["scaling"] is None
    else:
        assert (first["scaling"]["type"], first["scaling"]["factor"],
                first["scaling"]["original_context"]) == (scaling, factor, original)  # fmt: skip


def test_gguf_gpt2_bloom_and_the_legacy_key(tmp_path):
    table = np.random.default_rng(0).normal(0, 0.02, (64, 16)).astype(np.float32)
    gpt2 = write_gguf(tmp_path / "gpt2.gguf", "gpt2", tensors={"position_embd.weight": table})
    report, found = entries(gpt2)
    assert [e["kind"] for e in found] == ["learned", "learned"] and report.exit_code == 0
    bloom = write_gguf(tmp_path / "bloom.gguf", "bloom", keys=[("add_max_alibi_bias", 8.0)])
    assert entries(bloom)[1][0]["kind"] == "alibi"
    legacy = write_gguf(tmp_path / "old.gguf", "llama", legacy_linear=4.0)
    [entry] = entries(legacy)[1]
    assert entry["scaling"]["type"] == "linear" and entry["scaling"]["factor"] == 4.0


MUTANTS = [
    (
        "checkpoint/configs.py",
        "",
        "dict.fromkeys(('gptj', 'cohere', 'cohere2', 'deepseek_v2', 'deepseek_v3'), 'interleaved')",
        "dict.fromkeys(('gptj', 'cohere', 'cohere2', 'deepseek_v2', 'deepseek_v3'), 'concat')",
        "config_encodings: Cohere, GPT-J and DeepSeek read as split-half",
    ),
    (
        "checkpoint/configs.py",
        "_validate",
        "original > longest or (rope_type == 'llama3' and original == longest)",
        "original > longest",
        "config_encodings: llama3's original context equal to max_position_embeddings accepted",
    ),
    (
        "checkpoint/configs.py",
        "_rope_entry",
        "('llama3', 'yarn', 'longrope')",
        "('llama3', 'longrope')",
        "config_encodings: yarn's missing original length not taken from max_position_embeddings",
    ),
    (
        "checkpoint/configs.py",
        "_validate",
        "'5.17.0'",
        "'4.57.1'",
        "config_encodings: the release that fills original_max_position_embeddings mixed up",
    ),
]
