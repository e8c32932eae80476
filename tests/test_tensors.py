"""sinpe.checkpoint.tensors: what each position tensor of a file is (``sinpe inspect``).

Every table, ``inv_freq`` vector and slope list below comes from the published code
re-typed in NumPy (``tests/sources.py``), step by step in its own dtype (float32 for
PyTorch, TensorFlow and Marian NMT; float64 then float32 for Hugging Face's Marian),
never from ``sinpe``; the command must name each one. Then the answers and exit codes for
a learned table, the gallery's bugs and tensors of the wrong kind, and a stored
``inv_freq`` or GGUF ``rope_freqs`` checked against what the config declares.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import gguf
import numpy as np
import pytest
from checkpoints import F32, GGUF_CASES, LLAMA, ROWS, WIDTH, model_folder, run, save, write_gguf
from sources import (
    alibi_get_slopes,
    annotated_transformer,
    fairseq_get_embedding,
    hf_yarn_inv_freq,
    llama3_inv_freq,
    marian_init_weight,
    marian_nmt_embeddings,
    ntk_inv_freq,
    paper_frequencies,
    rope_inv_freq,
    t2t_timing_signal,
    timestep_embedding,
    whisper_sinusoids,
)

from sinpe.checkpoint.configs import config_encodings
from sinpe.checkpoint.models import read_model
from sinpe.checkpoint.tensors import tensor_encoding
from sinpe.rope import llama3_frequencies

# --- the sources' tables, in each format -------------------------------------------------


#: convention name -> its source's table (ROWS x WIDTH), and the precision it computes in.
SOURCES = {
    "paper": (lambda: annotated_transformer(ROWS, WIDTH, dtype=F32), "float32"),
    "tensor2tensor": (lambda: t2t_timing_signal(ROWS, WIDTH, dtype=F32), "float32"),
    "whisper": (lambda: whisper_sinusoids(ROWS, WIDTH, dtype=F32), "float32"),
    "fairseq": (lambda: fairseq_get_embedding(ROWS, WIDTH, padding_idx=1, dtype=F32), "float32"),
    "hf-marian": (lambda: marian_init_weight(ROWS, WIDTH, dtype=F32), "float64"),
    "marian-nmt": (lambda: marian_nmt_embeddings(ROWS, WIDTH, dtype=F32), "float32"),
    "guided-diffusion": (
        lambda: timestep_embedding(np.arange(ROWS), WIDTH, dtype=F32),
        "float32",
    ),
}


FORMATS = ("npy", "npz", "safetensors")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("convention", sorted(SOURCES))
def test_each_source_is_named_in_each_format(tmp_path, capsys, fmt, convention):
    build, precision = SOURCES[convention]
    path = save(tmp_path, fmt, {"embed_positions.weight": build()})
    status, report, _ = run(capsys, path, "--json")
    assert status == 0, report
    (found,) = report["tensors"]
    assert found["verdict"] == "ok"
    assert convention in found["conventions"]
    assert found["base"] == 10000.0
    assert found["computed_in"] == precision
    if convention == "fairseq":
        assert "row 1 is the zero padding row" in found["first_position"]
        assert "tokens start at row 2" in found["first_position"]
    else:
        assert found["first_position"] == "row 0 is position 0"


def test_the_same_tables_are_named_together(tmp_path, capsys):
    # tensor2tensor, whisper and Marian NMT compute one table (n - 1 spacing, concat)
    path = save(tmp_path, "npy", {"wpe": t2t_timing_signal(ROWS, WIDTH, dtype=np.float64)})
    status, report, _ = run(capsys, path, "--json")
    assert status == 0
    found = report["tensors"][0]
    assert found["conventions"] == ["tensor2tensor", "whisper", "marian-nmt"]
    assert found["computed_in"] == "float64" and found["max_error"] < 1e-12


def test_another_base_and_first_position_are_found(tmp_path, capsys):
    table = t2t_timing_signal(ROWS, WIDTH, max_timescale=500000.0, start_index=7, dtype=np.float64)
    path = save(tmp_path, "npy", {"position_embeddings": table})
    status, report, _ = run(capsys, path, "--json")
    assert status == 0
    found = report["tensors"][0]
    assert found["base"] == 500000.0
    assert found["first_position"] == "row 0 is position 7"
    assert "tensor2tensor" in found["conventions"]


def test_fairseq_padding_row_zero(tmp_path, capsys):
    path = save(
        tmp_path, "npz", {"embed_positions.weights": fairseq_get_embedding(ROWS, 32, 0, dtype=F32)}
    )
    status, report, _ = run(capsys, path, "--json")
    assert status == 0
    found = report["tensors"][0]
    assert found["conventions"] == ["fairseq"]
    assert "row 0 is the zero padding row, tokens start at row 1" in found["first_position"]


def test_a_table_rounded_once_is_within_half_an_ulp(tmp_path, capsys):
    table = annotated_transformer(ROWS, WIDTH, dtype=np.float64).astype(np.float16)
    status, report, _ = run(capsys, save(tmp_path, "npy", {"pe": table}), "--json")
    found = report["tensors"][0]
    assert status == 0 and found["dtype"] == "float16"
    assert found["computed_in"] == "float64" and found["max_ulp"] <= 0.5


def test_a_vit_style_leading_axis_is_squeezed(tmp_path, capsys):
    table = annotated_transformer(ROWS, WIDTH, dtype=F32)[np.newaxis]
    status, text, _ = run(capsys, save(tmp_path, "safetensors", {"pos_embed": table}))
    assert status == 0
    assert "pos_embed  (1 x 300 x 64, float32, table)" in text
    assert "  convention: paper\n  base 10000, paper spacing, interleaved layout\n" in text


# --- RoPE inv_freq and ALiBi slopes ---------------------------------------------------------


INV_FREQ = {
    "plain.rotary_emb.inv_freq": (rope_inv_freq(128), "RoPE, plain: base 10000"),
    "llama.rotary_emb.inv_freq": (
        rope_inv_freq(128, 500000.0),
        "RoPE, plain: base 500000",
    ),
    "linear.rotary_emb.inv_freq": (
        (rope_inv_freq(128) / F32(4)).astype(F32),
        "linear interpolation (Position Interpolation): base 10000, factor 4",
    ),
    "ntk.rotary_emb.inv_freq": (
        ntk_inv_freq(128, 8.0),
        "NTK-aware scaling: base 10000 x factor 8",
    ),
    "yarn.rotary_emb.inv_freq": (
        hf_yarn_inv_freq(128, 10000.0, 16.0, 4096, dtype=F32),
        "YaRN (released ramp): base 10000, factor 16, original length 4096",
    ),
    "yarn_paper.rotary_emb.inv_freq": (
        paper_frequencies(128, 10000.0, 4.0, 2048, dtype=F32),
        "YaRN (paper ramp): base 10000, factor 4, original length 2048",
    ),
    "llama31.rotary_emb.inv_freq": (
        llama3_inv_freq(128, dtype=F32),
        "Llama 3.1: base 500000, factor 8, original length 8192",
    ),
}


@pytest.mark.parametrize("fmt", ["npz", "safetensors"])
def test_every_rope_scaling_is_named(tmp_path, capsys, fmt):
    path = save(tmp_path, fmt, {name: vector for name, (vector, _) in INV_FREQ.items()})
    status, text, _ = run(capsys, path)
    assert status == 0, text
    for name, (_, expected) in INV_FREQ.items():
        block = text.split(f"{name}  (64, float32, rope)\n", 1)[1].split("\n", 1)[0]
        assert expected in block, (name, block)


def test_yarn_at_a_short_context_keeps_its_ramp_apart(tmp_path, capsys):
    # d = 8, L = 16, s = 4: the two ramps differ on pair 0 (chapter 6's length lab)
    tensors = {"released.inv_freq": hf_yarn_inv_freq(8, 10000.0, 4.0, 16, dtype=F32)}
    tensors["paper.inv_freq"] = paper_frequencies(8, 10000.0, 4.0, 16, dtype=F32)
    status, report, _ = run(capsys, save(tmp_path, "npz", tensors), "--json")
    assert status == 0
    ramps = {t["name"]: (t["ramp"], t["original_length"]) for t in report["tensors"]}
    assert ramps == {"released.inv_freq": ("released", 16), "paper.inv_freq": ("paper", 16)}


def test_alibi_slopes_for_1_to_64_heads(tmp_path, capsys):
    tensors = {
        f"layer{n}.alibi_slopes": np.array(alibi_get_slopes(n), dtype=F32) for n in range(1, 65)
    }
    status, report, _ = run(capsys, save(tmp_path, "safetensors", tensors), "--json")
    assert status == 0
    for found in report["tensors"]:
        heads = int(found["name"].removeprefix("layer").split(".")[0])
        assert found["heads"] == heads
        assert found["summary"] == f"ALiBi slopes of {heads} heads"


@pytest.mark.parametrize(
    ("slopes", "slip"),
    [
        ([2.0 ** (-8 * h / 8) for h in range(8)], "first slope 1"),
        ([2.0 ** (-8 * (h + 1) / 12) for h in range(12)], "not a power of two"),
        (sorted(alibi_get_slopes(12), reverse=True), "sorted"),
    ],
)
def test_alibi_slips_are_named(tmp_path, capsys, slopes, slip):
    path = save(tmp_path, "npy", {"alibi_slopes": np.array(slopes)})
    status, text, _ = run(capsys, path)
    assert status == 1
    assert "known slip" in text and slip in text


def test_a_vector_of_no_known_kind(tmp_path, capsys):
    path = save(tmp_path, "npz", {"pos_weights": np.array([0.3, 0.9, 0.1, 0.5])})
    status, text, _ = run(capsys, path)
    assert status == 1
    assert "neither RoPE inv_freq nor ALiBi slopes" in text


# --- learned tables and the gallery's bugs ----------------------------------------------------


def test_a_learned_table_is_not_sinusoidal(tmp_path, capsys):
    learned = np.random.default_rng(3).uniform(-0.5, 0.5, (ROWS, WIDTH)).astype(F32)
    status, report, _ = run(
        capsys, save(tmp_path, "safetensors", {"wpe.weight": learned}), "--json"
    )
    assert status == 1
    found = report["tensors"][0]
    assert found["verdict"] == "unknown"
    assert found["summary"].startswith("not sinusoidal (learned?): ")
    assert found["reason"]


def test_a_long_learned_table_is_not_sinusoidal(tmp_path, capsys):
    # past 65504 rows the gallery's float16 phases overflow: still exit 1, not 2
    learned = np.random.default_rng(4).uniform(-0.5, 0.5, (70000, 8))
    status, text, _ = run(capsys, save(tmp_path, "npy", {"wpe": learned}))
    assert status == 1 and "not sinusoidal (learned?)" in text


def test_a_row_vector_is_a_vector(tmp_path, capsys):
    status, text, _ = run(capsys, save(tmp_path, "npz", {"inv_freq": rope_inv_freq(64)[None]}))
    assert status == 0 and "inv_freq  (1 x 32, float32, rope)" in text


def test_the_integer_division_bug_is_named(tmp_path, capsys):
    # Kyubyong/transformer (PR 81): 2 * i // d is 0, so every pair turns at frequency 1
    position = np.arange(ROWS, dtype=np.float64)[:, None]
    exponent = (2 * (np.arange(WIDTH) // 2)) // WIDTH
    table = position / np.power(10000, exponent)
    table[:, 0::2], table[:, 1::2] = np.sin(table[:, 0::2]), np.cos(table[:, 1::2])
    status, text, _ = run(capsys, save(tmp_path, "npy", {"pe": table.astype(F32)}))
    assert status == 1
    assert "a known bug: integer division 2*i//d" in text
    assert "verdict: KNOWN BUG" in text


def test_a_table_computed_in_float16_is_the_fp16_phases_bug(tmp_path, capsys):
    position = np.arange(ROWS).astype(np.float16)[:, None]
    div_term = np.exp(np.arange(0, WIDTH, 2) * -(math.log(10000.0) / WIDTH)).astype(np.float16)
    table = np.zeros((ROWS, WIDTH), dtype=np.float16)
    table[:, 0::2] = np.sin(position * div_term)
    table[:, 1::2] = np.cos(position * div_term)
    status, report, _ = run(capsys, save(tmp_path, "npz", {"pe": table}), "--json")
    assert status == 1
    found = report["tensors"][0]
    assert found["bug"] == "fp16 phases" and found["computed_in"] == "float16"
    assert found["conventions"] == ["paper"]


def test_re_initialised_table_is_named(tmp_path, capsys):
    noise = np.random.default_rng(0).normal(0.0, 0.02, (ROWS, WIDTH)).astype(F32)
    status, report, _ = run(capsys, save(tmp_path, "npy", {"pe": noise}), "--json")
    assert status == 1
    assert report["tensors"][0]["bug"] == "table overwritten by init"


# --- tensors it cannot inspect: a message and exit 2, never a traceback ------------------


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.zeros((2, 3, 4), dtype=F32), "neither a table (positions, d_model) nor a vector"),
        (np.arange(12).reshape(3, 4), "holds int64 values (position ids?)"),
        (np.zeros((2, 8), dtype=F32), "at least 3 rows"),
        (np.zeros(0, dtype=F32), "is empty"),
        (np.ones((4, 4), dtype=np.complex64), "complex64 values, not real floating-point"),
    ],
)
def test_tensors_of_the_wrong_kind_exit_2(tmp_path, capsys, array, message):
    status, text, _ = run(capsys, save(tmp_path, "npz", {"pos": array}), "--key", "pos")
    assert status == 2
    assert message in text and "cannot inspect (exit 2)" in text


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_exit_2(tmp_path, capsys, bad):
    table = annotated_transformer(ROWS, WIDTH, dtype=F32)
    table[17, 5] = bad
    vector = rope_inv_freq(16)
    vector[3] = bad
    tensors = {"wpe.weight": table, "rotary_emb.inv_freq": vector}
    status, report, _ = run(capsys, save(tmp_path, "safetensors", tensors), "--json")
    assert status == 2
    errors = sorted(t["error"] for t in report["tensors"])
    assert errors[0].startswith("rotary_emb.inv_freq: ") and "index 3" in errors[0]
    assert errors[1].startswith("wpe.weight: ") and "(17, 5)" in errors[1], errors[1]


def test_extreme_vectors_are_refused_without_a_warning(tmp_path, capsys):
    # filterwarnings = error (pyproject): an overflow warning would fail the test
    tensors = {"a.inv_freq": np.array([1e300, 1e-300, 1.0]), "b.inv_freq": np.array([1, 1e-200])}
    status, text, _ = run(capsys, save(tmp_path, "npz", tensors))
    assert status == 1
    assert text.count("not a known RoPE inv_freq") == 2


# --- a stored inv_freq against the config: fires on a file made to show it ---------------


def _inv_freq():
    return llama3_frequencies(64, 32.0, original_length=8192).astype(np.float32)


def test_a_consistent_inv_freq_is_silent(tmp_path, capsys):
    folder = model_folder(tmp_path, LLAMA, {"model.rotary_emb.inv_freq": _inv_freq()})
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
    folder = model_folder(tmp_path, {**LLAMA, **change}, {"model.rotary_emb.inv_freq": _inv_freq()})
    status, text, _ = run(capsys, folder)
    assert status == 1 and message in text


def test_an_inv_freq_in_bfloat16_is_a_problem(tmp_path, capsys):

    folder = model_folder(tmp_path, LLAMA)
    _write_bf16(folder / "model.safetensors", "model.rotary_emb.inv_freq", _inv_freq())
    status, text, _ = run(capsys, folder)
    assert status == 1 and "stored in bfloat16" in text


def test_tensor_encoding_checks_against_the_declared_rope(tmp_path):
    folder = model_folder(tmp_path, LLAMA)
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


# --- GGUF rope_freqs against Llama 3.1's formula and the stated factor -------------------


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


MUTANTS = [
    (
        "checkpoint/tensors.py",
        "_check_inv_freq",
        "('bfloat16', 'float16')",
        "('float16',)",
        "tensor_encoding: a bfloat16 inv_freq passes",
        1,
        2,
    ),
]
