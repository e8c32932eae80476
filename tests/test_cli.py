"""sinpe.checkpoint.cli: the ``sinpe inspect`` command, its summary, exit codes and pages.

Most tests run the command in-process (:func:`sinpe.checkpoint.cli.main`); a few run it
as a user does, with ``python -m sinpe`` and the installed ``sinpe`` script. The API
page's example reports are the command's output on the files they describe.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from checkpoints import CONFIGS, F32, GGUF_CASES, ROWS, WIDTH, good_file, run, save, write_gguf
from safetensors.numpy import save_file
from sources import annotated_transformer, fairseq_get_embedding, llama3_inv_freq

from sinpe.checkpoint.cli import main
from sinpe.checkpoint.models import SHIPPED_CONFIGS

# --- the summary and the exit status -----------------------------------------------------


def test_one_bad_tensor_makes_the_file_fail(tmp_path, capsys):
    tensors = {"wpe.weight": annotated_transformer(ROWS, WIDTH, dtype=F32)}
    tensors["h.0.rotary_emb.inv_freq"] = np.array([1.0, 0.5, 0.3], dtype=F32)
    status, text, _ = run(capsys, save(tmp_path, "npz", tensors))
    assert status == 1
    assert text.splitlines()[-1] == "2 tensors inspected, 1 known, 1 unknown (exit 1)"


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
