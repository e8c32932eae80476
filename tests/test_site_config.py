"""The site configuration: one repository URL, launch buttons, offline MathJax."""

from __future__ import annotations

import re
import subprocess
import sys

import yaml


def _config(root):
    return yaml.safe_load((root / "_config.yml").read_text())


def test_launch_buttons_point_at_the_repository(root):
    config = _config(root)
    assert config["repository"]["url"].startswith("https://github.com/")
    assert config["repository"]["branch"] == "main"
    assert config["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"


def test_mathjax_is_served_locally(root):
    config = _config(root)["sphinx"]["config"]
    assert not config["mathjax_path"].startswith(("http:", "https:", "//"))
    assert "sphinx_thebe" not in config["extensions"]


def test_scheduled_workflows_keep_the_notebooks_and_links_checked(root):
    """Issue 19: a weekly run on the newest releases and newer Pythons, and a link check."""
    import yaml

    scheduled = yaml.safe_load((root / ".github" / "workflows" / "scheduled.yml").read_text())
    triggers = scheduled[True]  # YAML 1.1 reads the key "on" as True
    assert triggers["schedule"][0]["cron"] and "workflow_dispatch" in triggers
    assert scheduled["jobs"]["locked"]["steps"][-1]["run"].startswith(".ci/run")
    newest = scheduled["jobs"]["newest"]
    assert {"3.12", "3.13"} <= set(newest["strategy"]["matrix"]["python-version"])
    commands = " ".join(step.get("run", "") for step in newest["steps"])
    assert "--nbval-lax" in commands and "--upgrade -r /tmp/newest.in" in commands
    # The chapters are listed when the job runs, not typed: every twin, the ledger last.
    assert "--nbval-current-env $(python -m scripts.book twins)" in commands
    listed = subprocess.run(
        [sys.executable, "-m", "scripts.book", "twins"],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    twins = sorted(path.relative_to(root).as_posix() for path in root.glob("book/ch*.ipynb"))
    assert listed == [*twins, "book/claims_ledger.ipynb"]
    for path in (root / ".github" / "workflows").glob("*.yml"):
        assert not re.search(r"\bch\d\d_\w+", path.read_text()), f"{path.name} types a chapter"
    links = yaml.safe_load((root / ".github" / "workflows" / "links.yml").read_text())
    link_commands = " ".join(step.get("run", "") for step in links["jobs"]["links"]["steps"])
    assert links[True]["schedule"] and "--check-links" in link_commands
    assert "check-links" not in (root / "Makefile").read_text()  # offline make test


def test_workflows_pin_every_action_and_ask_for_least_privilege(root):
    """Issue 27: actions by commit SHA (tag in a comment), permissions declared, and the
    jobs that run make in the Debian the project is tested on."""
    workflows = sorted((root / ".github" / "workflows").glob("*.yml"))
    assert {path.name for path in workflows} >= {"test.yml", "release.yml", "pages.yml"}
    for path in workflows:
        text = path.read_text()
        for line in re.findall(r"uses:\s*(\S+.*)", text):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40} # v[\d.]+", line), (path, line)
        workflow = yaml.safe_load(text)
        assert workflow["permissions"] == {"contents": "read"}, path.name
        for name, job in workflow["jobs"].items():
            runs = " ".join(step.get("run", "") for step in job["steps"])
            if "make" in runs or ".ci/run" in runs:
                assert job["container"].endswith("-bookworm"), (path.name, name)
    release = yaml.safe_load((root / ".github" / "workflows" / "release.yml").read_text())
    assert release[True]["push"]["tags"] == ["v*"]
    publish = next(job for job in release["jobs"].values() if "environment" in job)
    assert publish["permissions"] == {"id-token": "write"}


def test_the_book_links_offline_through_inventories_it_ships(root):
    """Issue 31: ``make book`` installs nothing; the intersphinx inventories are files
    of the repository, each a Sphinx inventory of the project it names."""
    mapping = _config(root)["sphinx"]["config"]["intersphinx_mapping"]
    projects = {"python": "Python", "sympy": "SymPy"}
    assert set(mapping) == set(projects)
    for key, (url, inventory) in mapping.items():
        assert url.startswith("https://") and not inventory.startswith("/")
        head = (root / inventory).read_bytes()[:200].decode("ascii", "replace")
        assert head.startswith("# Sphinx inventory version 2"), inventory
        assert f"# Project: {projects[key]}\n" in head, inventory
    make = (root / "Makefile").read_text()
    # apt-get appears only in what make pdf prints to install TeX, never run
    runs_apt = [line for line in make.splitlines() if "apt-get" in line and "echo" not in line]
    assert not runs_apt and "doc-inventories" not in make
