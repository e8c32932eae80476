"""``sinpe inspect`` (issue 32) on files made by the sources' own formulas, re-typed here.

Every table, ``inv_freq`` vector and slope list below comes from the published code
re-typed in NumPy (``tests/sources.py``), step by step in its own dtype (float32 for
PyTorch, TensorFlow and Marian NMT; float64 then float32 for Hugging Face's Marian),
never from ``sinpe``; the command must name each one. Then the answers and exit codes for a
learned table, the gallery's bugs and every kind of broken file. Most tests run the
command in-process (:func:`sinpe.checkpoint.cli.main`); a few run it as a user does, with
``python -m sinpe`` and the installed ``sinpe`` script.
"""

from __future__ import annotations

import json
import math
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file
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

from sinpe.checkpoint import files
from sinpe.checkpoint.cli import main
from sinpe.checkpoint.models import SHIPPED_CONFIGS

F32 = np.float32
ROWS, WIDTH = 300, 64

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


@pytest.mark.parametrize(
    ("dim", "base", "factor", "original"),
    [(128, 500000.0, 8.0, 8192), (64, 10000.0, 4.0, 2048), (16, 100.0, 32.0, 16), (2, 1e4, 2.0, 4)],
)
def test_llama3_frequencies_is_transformers_rule(dim, base, factor, original):
    from sinpe.rope import llama3_frequencies

    expected = llama3_inv_freq(dim, base, factor, original=original, dtype=np.float64)
    got = llama3_frequencies(dim, factor, base=base, original_length=original)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


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


def test_one_bad_tensor_makes_the_file_fail(tmp_path, capsys):
    tensors = {"wpe.weight": annotated_transformer(ROWS, WIDTH, dtype=F32)}
    tensors["h.0.rotary_emb.inv_freq"] = np.array([1.0, 0.5, 0.3], dtype=F32)
    status, text, _ = run(capsys, save(tmp_path, "npz", tensors))
    assert status == 1
    assert text.splitlines()[-1] == "2 tensors inspected, 1 known, 1 unknown (exit 1)"


# --- bad input: a message and exit 2, never a traceback -----------------------------------


def good_file(folder: Path) -> Path:
    return save(
        folder, "safetensors", {"wpe.weight": annotated_transformer(ROWS, WIDTH, dtype=F32)}
    )


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


@pytest.mark.parametrize(
    ("tensors", "args", "message"),
    [
        (
            {"wpe.weight": np.zeros((4, 4)), "wte.weight": np.zeros(3)},
            ["--key", "wpe"],
            "no tensor 'wpe' in",
        ),
        ({"wte.weight": np.zeros((4, 4)), "lm_head": np.zeros(3)}, [], "no tensor of"),
    ],
)
def test_missing_keys_list_the_keys_that_exist(tmp_path, capsys, tensors, args, message):
    status, _, err = run(capsys, save(tmp_path, "npz", tensors), *args)
    assert status == 2
    assert message in err and f"the file holds: {', '.join(tensors)}" in err


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


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["inspect"])
    assert stopped.value.code == 2
    with pytest.raises(SystemExit) as stopped:
        main(["frobnicate", "x"])
    assert stopped.value.code == 2


def test_json_error_for_a_file_it_cannot_read(tmp_path, capsys):
    status, report, _ = run(capsys, tmp_path / "none.npy", "--json")
    assert status == 2 and report["exit"] == 2 and "no such file" in report["error"]


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


# --- as a user runs it ----------------------------------------------------------------------


def test_python_dash_m_sinpe(tmp_path):
    path = good_file(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "sinpe", "inspect", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "wpe.weight  (300 x 64, float32, table)" in done.stdout
    broken = subprocess.run(
        [sys.executable, "-m", "sinpe", "inspect", str(tmp_path / "x.npy")],
        capture_output=True,
        text=True,
    )
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert broken.stderr.strip() == f"sinpe inspect: error: no such file: {tmp_path / 'x.npy'}"


@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_a_reader_that_stops_reading_gets_no_traceback(flags):
    """``sinpe inspect ... | head``: the pipe closes early; the status stays the report's.

    ``true`` exits without reading, long before Python has started, so every write fails.
    """
    folder = SHIPPED_CONFIGS / "Meta-Llama-3.1-8B"
    command = [sys.executable, "-m", "sinpe", "inspect", str(folder), *flags]
    done = subprocess.run(
        f"{shlex.join(command)} | true; exit ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr


def test_the_installed_console_script(tmp_path):
    script = shutil.which("sinpe", path=str(Path(sys.executable).parent))
    assert script, "pip install -e . installs the sinpe command beside python"
    path = save(tmp_path, "npz", {"rotary_emb.inv_freq": llama3_inv_freq(128, dtype=F32)})
    done = subprocess.run([script, "inspect", str(path), "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (found,) = json.loads(done.stdout)["tensors"]
    assert (found["scaling"], found["factor"], found["base"]) == ("llama3", 8.0, 500000.0)


def test_the_api_page_shows_what_the_command_prints(root, tmp_path, capsys):
    """book/api/checkpoints.md's example report, run on the file it describes."""
    page = (root / "book" / "api" / "checkpoints.md").read_text(encoding="utf-8")
    shown = page.split("```text\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "model.safetensors"
    save_file(
        {
            "encoder.embed_positions.weights": fairseq_get_embedding(1026, 512, 1, dtype=F32),
            "decoder.rotary_emb.inv_freq": llama3_inv_freq(128, dtype=F32),
        },
        str(path),
    )
    status, report, _ = run(capsys, path)
    assert status == 0
    assert report.replace(str(path), "model.safetensors") == shown
