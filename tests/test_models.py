"""sinpe.checkpoint.models: reading what a PATH holds, and the configs shipped in sinpe/data.

Each shipped config has a SOURCE.txt naming its public source (repository, path,
commit, verbatim, the hash of the saved bytes) and reads as expected; a folder, a
config, an index of shards or a hub id that cannot be read exits 2 in one line.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from checkpoints import assert_refused, entries, put

from sinpe.checkpoint.models import SHIPPED_CONFIGS

CONFIGS = SHIPPED_CONFIGS


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


# --- bad input: exit 2, one line, never a traceback ------------------------------------------


BAD = {
    "not json": (lambda d: put(d / "config.json", b"{rope_theta: 1"), "is not JSON"),
    "empty folder": (lambda d: d, "nothing to inspect"),
    "index naming missing shards": (lambda d: put(d / "model.safetensors.index.json", json.dumps(
        {"weight_map": {"a": "model-00001-of-00002.safetensors"}}).encode()),
        "names 1 shard(s) not in"),
    "a hub id": (lambda d: "meta-llama/Llama-3.1-8B", "reads local files only, never the network"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, case):
    make, message = BAD[case]
    assert_refused(capsys, make(tmp_path), message)


MUTANTS = [
    (
        "checkpoint/models.py",
        "_read_index",
        "Path(s).name != s or not (where.parent / s).is_file()",
        "Path(s).name != s",
        "read_model: an index naming missing shards accepted",
    ),
]
