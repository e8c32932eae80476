"""The tools behind `make test` and `make check` (issue 29): the timing table and the
choice of chapters a change affects."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def stages():
    from scripts import stages

    return stages


@pytest.fixture(scope="module")
def changed():
    from scripts import changed_chapters

    return changed_chapters


def test_the_table_marks_a_stage_over_its_budget(stages):
    Timed = stages.Timed
    text = stages.table([Timed("lint", 3.2, 10.0), Timed("unit", 95.0, 90.0),
                         Timed("pdf", 0.4, 60.0, reused=True)])  # fmt: skip
    lines = text.splitlines()
    assert lines[1].split() == ["lint", "3", "10"]
    assert lines[2].split() == ["unit", "95", "90", "over", "budget"]
    assert lines[3].split() == ["pdf", "0", "60", "reused", "(same", "inputs)"]
    assert lines[4].split() == ["total", "99", "160"]
    # side by side: marked, and the total is the clock's
    text = stages.table([Timed("pdf", 50.0, 60.0, beside=True),
                         Timed("new-chapter", 40.0, 180.0, beside=True)], wall=51.0)  # fmt: skip
    assert [line.split() for line in text.splitlines()[1:]] == [
        ["pdf", "50", "60", "beside", "others"],
        ["new-chapter", "40", "180", "beside", "others"],
        ["total", "51", "240"],
    ]


def test_a_stage_without_a_budget_is_refused(stages):
    assert stages.parse(["lint:10", "pdf:60:reuse"]) == [
        ("lint", 10.0, False), ("pdf", 60.0, True)
    ]  # fmt: skip
    for wrong in ("lint", "lint:10:maybe", "lint:10:reuse:reuse"):
        with pytest.raises(SystemExit, match="STAGE:SECONDS"):
            stages.parse([wrong])


def test_lanes_are_read_from_bars_and_commas(stages):
    assert stages.plan(["a:1,b:2:reuse|c:3", "d:4"]) == [
        [[("a", 1.0, False), ("b", 2.0, True)], [("c", 3.0, False)]],
        [[("d", 4.0, False)]],
    ]


def _git_tree(path):
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / ".gitignore").write_text("_build/\n")
    (path / "a.md").write_text("one")
    return path


def test_a_stage_is_reused_only_on_the_same_inputs_with_its_outputs(stages, tmp_path,
                                                                     monkeypatch):  # fmt: skip
    root = _git_tree(tmp_path / "repo")
    monkeypatch.delenv("FRESH", raising=False)
    key = stages.inputs_key("pdf", root)
    assert key == stages.inputs_key("pdf", root) != stages.inputs_key("notebooks", root)
    stamp = root / "_build" / "stages" / "pdf.key"
    stamp.parent.mkdir(parents=True)
    stamp.write_text(key)
    assert not stages.reusable("pdf", key, root)  # its PDF is missing
    (root / "_build" / "pdf").mkdir()
    (root / "_build" / "pdf" / "sinpe-book.pdf").write_bytes(b"%PDF")
    assert stages.reusable("pdf", key, root)
    (root / "_build" / "ignored.txt").write_text("outputs do not count")
    assert stages.inputs_key("pdf", root) == key
    for change in ("a.md", "new-untracked.md"):  # an edit, a file not yet added
        (root / change).write_text("two")
        assert stages.inputs_key("pdf", root) != key
        (root / change).write_text("one") if change == "a.md" else (root / change).unlink()
    assert stages.inputs_key("pdf", root) == key
    monkeypatch.setenv("FRESH", "1")
    assert not stages.reusable("pdf", key, root)


def test_the_run_stops_at_the_first_failing_stage_and_still_prints(root, tmp_path):
    (tmp_path / "Makefile").write_text("ok:\n\t@true\nbad:\n\t@false\nnever:\n\t@touch ran\n")
    run = subprocess.run(
        [sys.executable, "-m", "scripts.stages", "ok:5", "bad:5", "never:5"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert run.returncode != 0 and "stage bad failed" in run.stderr
    assert "ok" in run.stdout and "bad" in run.stdout and "never" not in run.stdout
    assert not (tmp_path / "ran").exists()


def test_lanes_run_side_by_side_and_a_failure_stops_the_next_entry(root, tmp_path):
    """``wait`` ends only once ``touch`` beside it has run (it gives up after 30 s), so
    it passes only if the two lanes really run at once; ``bad`` fails beside ``ok``, and
    the entry after them never starts."""
    (tmp_path / "Makefile").write_text(
        "wait:\n\t@for i in $$(seq 300); do test -f flag && exit 0; sleep 0.1; done; exit 1\n"
        "touch:\n\t@touch flag\nok:\n\t@echo ok-output\nbad:\n\t@false\n"
        "never:\n\t@touch ran\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    run = lambda *entries: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "scripts.stages", *entries],
        cwd=tmp_path, capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    together = run("wait:5|touch:5")
    assert together.returncode == 0, together.stdout + together.stderr
    assert "beside others" in together.stdout
    stopped = run("bad:5|ok:5", "never:5")
    assert stopped.returncode != 0 and "stage bad failed" in stopped.stderr
    assert "ok-output" in stopped.stdout  # the other lane's output is shown
    assert not (tmp_path / "ran").exists()


def test_the_makefile_times_every_stage_of_make_test(root, stages):
    makefile = (root / "Makefile").read_text()
    entries = makefile.split("STAGES :=", 1)[1].split("\n\n", 1)[0].replace("\\\n", " ")
    steps = stages.plan(entries.split())
    names = [stage[0] for lanes in steps for lane in lanes for stage in lane]
    every = ["lint", "unit", "twins-check", "reader", "portability", "pdf", "book-strict"]
    assert sorted(names) == sorted([*every, "browser", "pdf-check", "new-chapter"])
    where = {
        stage[0]: (step, lane, index)
        for step, lanes in enumerate(steps)
        for lane, in_lane in enumerate(lanes)
        for index, stage in enumerate(in_lane)
    }

    def before(first, then):  # done before it starts: an earlier entry, or its own lane
        (step, lane, index), (step2, lane2, index2) = where[first], where[then]
        return step < step2 or (step == step2 and lane == lane2 and index < index2)

    # what a stage needs comes first: the PDF before the HTML build (which serves it),
    # the HTML before the browser and the PDF's check (which compares their numbers)
    assert before("pdf", "book-strict") and not before("book-strict", "pdf")
    assert before("book-strict", "browser") and before("book-strict", "pdf-check")
    assert "-m scripts.stages $(foreach stage,$(STAGES),'$(stage)')" in makefile


def test_a_chapter_is_affected_by_its_text_and_the_modules_it_uses(root, changed, notebooks):
    chapters = notebooks.chapters()
    names = lambda found: [path.stem for path in found]  # noqa: E731
    assert names(changed.affected({"book/ch02_rotation.md"}, chapters)) == [
        "ch02_rotation", "claims_ledger"
    ]  # fmt: skip
    # binary is used by chapters 1 and 6 (directly) only
    assert names(changed.affected({"sinpe/binary.py"}, chapters)) == [
        "ch01_definition", "ch06_rope_alibi", "claims_ledger"
    ]  # fmt: skip
    # a module every module imports, a data file and the lock affect every chapter
    for everything in ("sinpe/_validation.py", "sinpe/data/x.npz", "requirements.lock"):
        assert names(changed.affected({everything}, chapters)) == names(chapters)
    assert changed.affected({"README.md", "scripts/mutants.py"}, chapters) == []


def test_module_use_is_read_from_imports_and_attributes(changed):
    import ast

    code = "import sinpe\nfrom sinpe import rope\nfrom sinpe.lab import nn as net\n"
    code += "x = sinpe.alibi.slopes(4)\n"
    found = changed.imported_modules(ast.parse(code))
    assert found == {"sinpe", "sinpe.rope", "sinpe.lab", "sinpe.lab.nn", "sinpe.alibi"}
    assert "sinpe.core" in changed.closure({"sinpe.rope"})  # rope imports the core


def test_nbval_runs_write_their_seconds_and_record_keeps_the_reader_s(tmp_path):
    """scripts/notebook_times.py: each run's seconds as JSON, keyed by notebook; only
    ``record`` writes the committed measurement, with what the run was."""
    from scripts import notebook_times

    times = notebook_times.NotebookTimes(tmp_path / "runs" / "reader.json")

    class Report:
        def __init__(self, fspath, duration):
            self.fspath, self.duration = fspath, duration

    for fspath, duration in [("book/ch01_a.ipynb", 0.5), ("book/ch01_a.ipynb", 1.25),
                             ("x/claims_ledger.ipynb", 0.04)]:  # fmt: skip
        times.pytest_runtest_logreport(Report(fspath, duration))

    class Terminal:
        def __init__(self):
            self.lines = []

        def section(self, title):
            self.lines.append(f"== {title}")

        def write_line(self, line):
            self.lines.append(line)

    terminal = Terminal()
    times.pytest_terminal_summary(terminal)
    assert (
        terminal.lines[0] == "== seconds per notebook"
        and "1.8 s  book/ch01_a.ipynb" in (terminal.lines[1])
    )
    run = json.loads((tmp_path / "runs" / "reader.json").read_text())
    assert run["run"] == "reader" and run["seconds"] == {"ch01_a": 1.8, "claims_ledger": 0.0}
    assert run["date"][:2] == "20" and "cores" in run["machine"]
    recorded = notebook_times.record(tmp_path / "runs" / "reader.json", tmp_path / "kept.json")
    assert json.loads((tmp_path / "kept.json").read_text()) == recorded
    assert recorded["how"] == notebook_times.DESCRIPTIONS["reader"]
    (tmp_path / "odd.json").write_text(json.dumps({**run, "run": "odd"}))
    with pytest.raises(SystemExit, match="unknown run 'odd'"):
        notebook_times.record(tmp_path / "odd.json", tmp_path / "kept.json")


def test_every_nbval_run_asks_for_its_seconds(notebooks):
    assert notebooks.seconds_option("reader")[0] == "--notebook-seconds"
    assert notebooks.seconds_option("reader")[1].endswith("_build/notebook-seconds/reader.json")
    assert "scripts.notebook_times" in notebooks.NBVAL
