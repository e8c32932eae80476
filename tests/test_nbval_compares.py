"""nbval really compares stored outputs: a changed output makes exactly that cell fail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import nbformat

MARKER = "one-indexed == zero-indexed"


def test_a_changed_stored_output_fails_nbval(root, tmp_path):
    twin = root / "book" / "ch01_definition.ipynb"
    copy = tmp_path / twin.name
    shutil.copy(twin, copy)
    notebook = nbformat.read(copy, as_version=4)
    tampered = 0
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("name") == "stdout" and MARKER in output["text"]:
                output["text"] = output["text"].replace("exactly", "approximately")
                tampered += 1
    assert tampered == 1
    nbformat.write(notebook, copy)

    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "IPYKERNEL_CELL_NAME": "<IPY-INPUT>",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "--nbval",
            "--nbval-current-env",
            "--nbval-sanitize-with",
            str(root / "tests" / "nbval_sanitize.cfg"),
            str(copy),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 1, result.stdout[-2000:]
    assert re.search(r"\b1 failed\b", summary), summary
    assert "approximately" in result.stdout  # the report shows the stored (tampered) text
