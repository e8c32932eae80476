"""``sinpe inspect`` on the models people download: folders, configs, GGUF (issue 39).

The real configs are the ones shipped in ``sinpe/data/configs`` (each with a SOURCE.txt
naming its public source and quality); the GGUF files are written by llama.cpp's own
``gguf`` package (a test-only dependency) and read by sinpe's reader, which is checked
against the package's ``GGUFReader`` too. Families with no verbatim config found (OPT,
BLOOM, MPT, Falcon, Marian, GPT-NeoX, Cohere 2) are tested with configs built here,
clearly synthetic.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from pathlib import Path

import gguf
import numpy as np
import pytest
from test_rope_scaling import hf_llama3, hf_longrope, hf_yarn

import sinpe
from sinpe.checkpoint.cli import inspect_path, main
from sinpe.checkpoint.configs import config_encodings
from sinpe.checkpoint.gguf import GGUFArray, read_gguf
from sinpe.checkpoint.models import SHIPPED_CONFIGS, read_model
from sinpe.checkpoint.tensors import tensor_encoding
from sinpe.rope import llama3_frequencies

CONFIGS = SHIPPED_CONFIGS


def run(capsys, *args):
    status = main(["inspect", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def entries(path, *args):
    report = inspect_path(str(path), *args)
    return report, [e.as_dict() for e in report.encodings]


# (kind, base, scaling type, factor, original, head_dim, rotary_dim, pairing, layers) per entry
EXPECTED = {
    "Meta-Llama-3.1-8B": [("rope", 5e5, "llama3", 8.0, 8192, 128, 128, "concat", "all")],
    "Meta-Llama-3.1-405B": [("rope", 5e5, "llama3", 8.0, 8192, 128, 128, "concat", "all")],
    "Llama-3.2-1B": [("rope", 5e5, "llama3", 32.0, 8192, 64, 64, "concat", "all")],
    "Llama-3.2-3B": [("rope", 5e5, "llama3", 32.0, 8192, 128, 128, "concat", "all")],
    "Qwen2-7B-Instruct": [("rope", 1e6, None, None, None, 128, 128, "concat", "all")],
    "Qwen2.5-7B": [("rope", 1e6, None, None, None, 128, 128, "concat", "all")],
    "Qwen2.5-VL-3B-Instruct": [("rope", 1e6, None, None, None, 128, 128, "concat", "all")],
    "Qwen3-8B": [("rope", 1e6, None, None, None, 128, 128, "concat", "all")],
    "Qwen3-30B-A3B": [("rope", 1e6, None, None, None, 128, 128, "concat", "all")],
    "Mistral-Nemo-Base-2407": [("rope", 1e6, None, None, None, 128, 128, "concat", "all")],
    "Mixtral-8x7B-v0.1": [("rope", 1e6, None, None, None, 128, 128, "concat", "all")],
    "gemma-2-2b-it": [("rope", 1e4, None, None, None, 256, 256, "concat", "all")],
    "gemma-4-26B-A4B": [
        ("rope", 1e4, None, None, None, 256, 256, "concat", "sliding_attention"),
        ("rope", 1e6, "proportional", 1.0, None, 256, 64, "concat", "full_attention"),
    ],
    "phi-2": [("rope", 1e4, None, None, None, 80, 32, "concat", "all")],
    "Phi-3.5-mini-instruct": [("rope", 1e4, "longrope", 32.0, 4096, 96, 96, "concat", "all")],
    "DeepSeek-V3": [("rope", 1e4, "yarn", 40.0, 4096, 192, 64, "interleaved", "all")],
    "gpt-oss-20b": [("rope", 150000.0, "yarn", 32.0, 4096, 64, 64, "concat", "all")],
    "gpt2": [("learned", None, None, None, None, None, None, "unknown", "all")],
    "bert-base-uncased": [("learned", None, None, None, None, None, None, "unknown", "all")],
    "roberta-base": [("learned", None, None, None, None, None, None, "unknown", "all")],
    "t5-small": [("relative-bias", None, None, None, None, None, None, "unknown", "all")],
}


def test_every_shipped_config_is_expected_and_sourced():
    shipped = sorted(p.name for p in CONFIGS.iterdir() if p.is_dir())
    assert shipped == sorted(EXPECTED) and len(shipped) >= 15
    for name in shipped:
        source = (CONFIGS / name / "SOURCE.txt").read_text()
        assert source.startswith("quality: ") and "public repository" in source, name


SOURCE_LINES = {
    "repository": r"^public repository: [\w.-]+/[\w.-]+$",
    "path": r"^path in repository: \S.*$",
    "commit": r"^commit: [0-9a-f]{40}\b",
    "verbatim": r"^verbatim: yes\b",
    "sha256": r"^sha256 of saved bytes: [0-9a-f]{64}$",
}


def source_problems(text: str, config: bytes) -> list[str]:
    """What a SOURCE.txt lacks: a named repository, path, commit, 'verbatim', the hash."""
    missing = [k for k, line in SOURCE_LINES.items() if not re.search(line, text, re.M)]
    digest = re.search(SOURCE_LINES["sha256"], text, re.M)
    if digest and digest.group().split()[-1] != hashlib.sha256(config).hexdigest():
        missing.append("sha256 of config.json")
    return missing


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_source_names_repository_path_commit_and_says_verbatim(name):
    folder = CONFIGS / name
    config = (folder / "config.json").read_bytes()
    assert source_problems((folder / "SOURCE.txt").read_text(), config) == []


def test_source_check_fails_on_a_source_that_is_not_verbatim():
    folder = CONFIGS / "gpt2"
    text, config = (folder / "SOURCE.txt").read_text(), (folder / "config.json").read_bytes()
    assert source_problems(text.replace("verbatim: yes", "verbatim: no"), config) == ["verbatim"]
    assert source_problems(text.replace("commit: ", "commit: main "), config) == ["commit"]
    assert source_problems(text, config + b" ") == ["sha256 of config.json"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shipped_configs_read_right(name):
    report, found = entries(CONFIGS / name)
    assert report.exit_code == 0, found
    got = []
    for entry in found:
        scaling = entry["scaling"] or {}
        layers = entry["layers"] if isinstance(entry["layers"], str) else len(entry["layers"])
        got.append((entry["kind"], entry["base"], scaling.get("type"), scaling.get("factor"),
                    scaling.get("original_context"), entry["head_dim"], entry["rotary_dim"],
                    entry["pairing"], layers))  # fmt: skip
        assert entry["source"] == "config.json" and entry["problems"] == []
    assert got == EXPECTED[name]


def _config(name):
    return json.loads((CONFIGS / name / "config.json").read_text())


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
    [encoding] = [e for e in config_encodings(_config(name)) if e.kind == "rope"]
    np.testing.assert_allclose(encoding.details["inv_freq"], reference(_config(name)), rtol=1e-12)


def test_the_human_report_of_llama_31(capsys):
    status, text, _ = run(capsys, CONFIGS / "Meta-Llama-3.1-8B" / "config.json")
    assert status == 0
    assert (
        "RoPE, base 500000, llama3 \N{MULTIPLICATION SIGN}8 from 8192, head_dim 128, "
        "all 128 dims rotated, pairing concat (split-half)"
    ) in text
    assert (
        "64 pairs, wavelengths 6.28 to 2.05e+07 tokens, 29 kept, "
        "29 stretched \N{MULTIPLICATION SIGN}8, 6 blended" in text
    )
    assert "targets 65536 tokens" in text


def test_json_contract(capsys):
    status, text, _ = run(capsys, CONFIGS / "gemma-4-26B-A4B", "--json")
    report = json.loads(text)
    assert status == 0 and report["exit"] == 0
    for entry in report["encodings"]:
        assert {"source", "kind", "base", "scaling", "head_dim", "rotary_dim", "pairing",
                "layers", "problems"} <= set(entry)  # fmt: skip
    assert report["encodings"][1]["scaling"]["type"] == "proportional"


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
    config = {**_config("gpt-oss-20b"), "max_position_embeddings": 4096}
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


# --- cross-checks: each fires on a file made to show it, and is silent on a consistent one ---


def _folder(tmp_path, config, tensors=None, name="model.safetensors"):
    from safetensors.numpy import save_file

    (tmp_path / "config.json").write_text(json.dumps(config))
    if tensors is not None:
        save_file(tensors, str(tmp_path / name))
    return tmp_path


LLAMA = _config("Llama-3.2-1B")


def _inv_freq():
    return llama3_frequencies(64, 32.0, original_length=8192).astype(np.float32)


def test_a_consistent_inv_freq_is_silent(tmp_path, capsys):
    folder = _folder(tmp_path, LLAMA, {"model.rotary_emb.inv_freq": _inv_freq()})
    status, text, _ = run(capsys, folder)
    assert status == 0, text
    assert "the stored inv_freq equals the config's frequencies" in text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rope_theta": 10000.0}, "disagrees with the config's base 10000"),
        ({"rope_scaling": {**LLAMA["rope_scaling"], "factor": 8.0}}, "disagrees with the config"),
    ],
)
def test_an_inv_freq_against_another_config_is_a_problem(tmp_path, capsys, change, message):
    folder = _folder(tmp_path, {**LLAMA, **change}, {"model.rotary_emb.inv_freq": _inv_freq()})
    status, text, _ = run(capsys, folder)
    assert status == 1 and message in text


def test_an_inv_freq_in_bfloat16_is_a_problem(tmp_path, capsys):

    folder = _folder(tmp_path, LLAMA)
    _write_bf16(folder / "model.safetensors", "model.rotary_emb.inv_freq", _inv_freq())
    status, text, _ = run(capsys, folder)
    assert status == 1 and "stored in bfloat16" in text


def test_tensor_encoding_checks_against_the_declared_rope(tmp_path):
    folder = _folder(tmp_path, LLAMA)
    _write_bf16(folder / "model.safetensors", "model.rotary_emb.inv_freq", _inv_freq())
    model = read_model(folder)
    declared = config_encodings(model.config)
    found = tensor_encoding(model.tensors["model.rotary_emb.inv_freq"], declared)
    assert found.kind == "rope" and found.pairing == "concat"
    assert [p for p in found.problems if "stored in bfloat16" in p]
    alone = tensor_encoding(model.tensors["model.rotary_emb.inv_freq"])
    assert "stored in bfloat16" not in " ".join(alone.problems)  # nothing declared


def _write_bf16(path: Path, name: str, values: np.ndarray) -> None:
    raw = (values.astype(np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
    header = json.dumps({name: {"dtype": "BF16", "shape": [values.size],
                                "data_offsets": [0, len(raw)]}}).encode()  # fmt: skip
    header += b" " * (-len(header) % 8)
    path.write_bytes(struct.pack("<Q", len(header)) + header + raw)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({**LLAMA, "rope_scaling": {k: v for k, v in LLAMA["rope_scaling"].items()
                                    if k != "original_max_position_embeddings"}},
         "transformers 4.57.1 rejects this rope_scaling: KeyError"),
        ({**_config("Phi-3.5-mini-instruct"),
          "rope_scaling": {**_config("Phi-3.5-mini-instruct")["rope_scaling"], "factor": 32.0}},
         "exactly the three fields"),
        ({**_config("gpt-oss-20b"), "max_position_embeddings": 2048},
         "original_max_position_embeddings 4096 contradicts max_position_embeddings 2048"),
        ({**_config("DeepSeek-V3"), "max_position_embeddings": 131072},
         "YaRN factor 40 contradicts"),
        ({**LLAMA, "max_position_embeddings": 8192}, "contradicts max_position_embeddings 8192"),
    ],
)  # fmt: skip
def test_configs_transformers_would_reject_are_problems(tmp_path, capsys, config, message):
    status, text, _ = run(capsys, _folder(tmp_path, config))
    assert status == 1 and message in text, text


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


def _llama31_factors():
    plain = sinpe.frequencies(128, base=500000.0)
    return (plain / llama3_frequencies(128)).astype(np.float32)


GGUF_CASES = {
    "llama": (dict(keys=[("add_rope_freq_base", 500000.0), ("add_rope_dimension_count", 128)],
                   tensors={"rope_freqs.weight": _llama31_factors()}),
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


def test_rope_freqs_decode_to_llama31(tmp_path, capsys):
    path = write_gguf(tmp_path / "llama.gguf", "llama", **GGUF_CASES["llama"][0])
    status, text, _ = run(capsys, path)
    assert (
        status == 0
        and "llama3 \N{MULTIPLICATION SIGN}8 from 8192 (Llama 3.1's per-pair factors)" in text
    )


def test_rope_freqs_of_another_rule_is_a_problem(tmp_path, capsys):
    options = dict(GGUF_CASES["llama"][0])
    options["tensors"] = {"rope_freqs.weight": np.linspace(1, 8, 64, dtype=np.float32)}
    status, text, _ = run(capsys, write_gguf(tmp_path / "llama.gguf", "llama", **options))
    assert status == 1 and "not Llama 3.1's formula" in text


def test_rope_freqs_against_the_stated_factor_is_a_problem(tmp_path, capsys):
    options = dict(GGUF_CASES["llama"][0])
    options["keys"] = [*options["keys"], ("add_rope_scaling_type", gguf.RopeScalingType.LINEAR),
                       ("add_rope_scaling_factor", 4.0)]  # fmt: skip
    status, text, _ = run(capsys, write_gguf(tmp_path / "llama.gguf", "llama", **options))
    assert status == 1 and "states rope.scaling.factor 4" in text


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
    "garbage gguf": (lambda d: _put(d / "m.gguf", b"\x00" * 100), "not a GGUF file"),
    "wrong magic": (lambda d: _put(d / "m.gguf", b"GGML" + b"\x00" * 40), "not b'GGUF'"),
    "wrong version": (lambda d: _put(d / "m.gguf", _gguf_bytes(1) + b"\x00" * 8), "version 1"),
    "2**40 entries": (lambda d: _put(d / "m.gguf", _gguf_bytes(
        3, _key(b"general.architecture", 9, struct.pack("<IQ", 4, 2**40)), 1)), "2**40"),
    "2**40 keys": (lambda d: _put(d / "m.gguf", _gguf_bytes(3, b"", 2**40)), "metadata keys"),
    "not json": (lambda d: _put(d / "config.json", b"{rope_theta: 1"), "is not JSON"),
    "rope_scaling without factor": (lambda d: _put(d / "config.json", json.dumps(
        {**LLAMA, "rope_scaling": {"rope_type": "linear"}}).encode()), "needs 'factor'"),
    "unknown rope_type": (lambda d: _put(d / "config.json", json.dumps(
        {**LLAMA, "rope_scaling": {"rope_type": "ntk-by-parts", "factor": 2.0}}).encode()),
        "transformers knows default, linear, dynamic, yarn, longrope, llama3, proportional"),
    "empty folder": (lambda d: d, "nothing to inspect"),
    "index naming missing shards": (lambda d: _put(d / "model.safetensors.index.json", json.dumps(
        {"weight_map": {"a": "model-00001-of-00002.safetensors"}}).encode()),
        "names 1 shard(s) not in"),
    "longrope factors of the wrong length": (lambda d: _put(d / "config.json", json.dumps(
        {**_config("Phi-3.5-mini-instruct"), "rope_scaling": {
            **_config("Phi-3.5-mini-instruct")["rope_scaling"], "short_factor": [1.0] * 47}}
    ).encode()), "one factor per pair (48"),
    "a hub id": (lambda d: "meta-llama/Llama-3.1-8B", "reads local files only, never the network"),
}  # fmt: skip


def _put(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path.parent if path.name.endswith(".json") else path


def _cut(path: Path) -> Path:
    data = path.read_bytes()
    path.write_bytes(data[:40])
    return path


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, case):
    make, message = BAD[case]
    status, out, err = run(capsys, make(tmp_path))
    assert status == 2 and out == ""
    assert err.startswith("sinpe inspect: error: ") and len(err.splitlines()) == 1
    assert message.replace("2**40", str(2**40)) in err, err


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
    (
        "checkpoint/tensors.py",
        "_check_inv_freq",
        "('bfloat16', 'float16')",
        "('float16',)",
        "tensor_encoding: a bfloat16 inv_freq passes",
        1,
        2,
    ),
    (
        "checkpoint/models.py",
        "_read_index",
        "Path(s).name != s or not (where.parent / s).is_file()",
        "Path(s).name != s",
        "read_model: an index naming missing shards accepted",
    ),
]


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
    status, _, err = run(capsys, _folder(tmp_path, {**LLAMA, **change}))
    assert status == 2 and len(err.splitlines()) == 1, err


def test_the_api_page_shows_what_the_command_prints_on_a_folder_and_a_gguf(
    tmp_path, capsys, monkeypatch
):
    """book/api/checkpoints.md's model-folder and GGUF reports, run on what they describe."""
    root = Path(__file__).resolve().parent.parent
    page = (root / "book" / "api" / "checkpoints.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in page.split("```text\n")[1:]]
    status, folder, _ = run(capsys, CONFIGS / "Meta-Llama-3.1-8B")
    assert status == 0
    assert folder.replace(str(CONFIGS / "Meta-Llama-3.1-8B"), "Meta-Llama-3.1-8B") == blocks[1]
    write_gguf(tmp_path / "llama.gguf", "llama", **GGUF_CASES["llama"][0])
    monkeypatch.chdir(tmp_path)
    status, shown, _ = run(capsys, "llama.gguf")
    assert status == 0 and shown == blocks[2]
