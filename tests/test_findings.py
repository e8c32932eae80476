"""sinpe.checkpoint.findings: what the printers say of a finding (``sinpe inspect``).

The RoPE summary and the wavelength ladder of Llama 3.1's config, and the ``--json``
contract (:meth:`~sinpe.checkpoint.findings.Encoding.as_dict`).
"""

from __future__ import annotations

from checkpoints import CONFIGS, run


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
    status, report, _ = run(capsys, CONFIGS / "gemma-4-26B-A4B", "--json")
    assert status == 0 and report["exit"] == 0
    for entry in report["encodings"]:
        assert {"source", "kind", "base", "scaling", "head_dim", "rotary_dim", "pairing",
                "layers", "problems"} <= set(entry)  # fmt: skip
    assert report["encodings"][1]["scaling"]["type"] == "proportional"
