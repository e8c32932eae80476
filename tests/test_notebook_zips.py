"""The notebook downloads of the book (scripts/notebook_zips.py): self-contained, fresh,
reproducible."""

from __future__ import annotations

import json
import zipfile

import pytest


@pytest.fixture(scope="module")
def notebook_zips():
    from scripts import notebook_zips

    return notebook_zips


@pytest.fixture(scope="module")
def built(notebook_zips, tmp_path_factory):
    target = tmp_path_factory.mktemp("downloads")
    executed, fresh = notebook_zips.write_zips(target)
    return executed, fresh


def _notebooks(path):
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        return {
            name: json.loads(archive.read(name))
            for name in archive.namelist()
            if name.endswith(".ipynb")
        }


def test_both_zips_hold_every_reader_s_edition_and_what_runs_them(root, notebook_zips, built):
    editions = sorted(path.name for path in (root / "notebooks").glob("*.ipynb"))
    twins = sorted(path.name for path in (root / "book").glob("*.ipynb"))
    assert editions == twins and len([n for n in editions if n.startswith("ch")]) >= 8
    wheel = notebook_zips.wheel_name()
    for path in built:
        with zipfile.ZipFile(path) as archive:
            names = sorted(archive.namelist())
            folder = "sinpe-notebooks/"
            assert names == sorted(
                folder + name for name in [*editions, wheel, "requirements.txt", "README.md"]
            )
            requirements = archive.read(folder + "requirements.txt").decode()
            readme = archive.read(folder + "README.md").decode()
            assert archive.read(folder + wheel) == (path.parent / wheel).read_bytes()
        assert requirements.splitlines()[3] == f"./{wheel}[plot,symbolic,reference]"
        assert notebook_zips.INSTALL in readme and notebook_zips.START in readme
        pins = notebook_zips.lockfile.pins(notebook_zips.LOCK)
        for line in requirements.splitlines()[4:]:
            name, version = line.split("==")
            assert pins[name] == version, line
        for needed in ("numpy", "matplotlib", "sympy", "mpmath", "ipykernel", "threadpoolctl"):
            assert f"\n{needed}==" in requirements, needed


def test_the_wheel_holds_the_package_and_the_recorded_benchmarks(notebook_zips, built):
    with zipfile.ZipFile(built[0].parent / notebook_zips.wheel_name()) as wheel:
        names = set(wheel.namelist())
    assert {"sinpe/__init__.py", "sinpe/claims.py", "sinpe/py.typed"} <= names
    assert {"sinpe/data/benchmarks/table.json", "sinpe/data/benchmarks/encoder_layer.json"} <= names


def test_the_executed_zip_is_the_reader_s_editions_byte_for_byte(root, built):
    with zipfile.ZipFile(built[0]) as archive:
        for name in archive.namelist():
            if name.endswith(".ipynb"):
                source = root / "notebooks" / name.removeprefix("sinpe-notebooks/")
                assert archive.read(name) == source.read_bytes(), name


def test_the_fresh_zip_has_no_outputs_and_the_same_cells(root, built):
    executed, fresh = _notebooks(built[0]), _notebooks(built[1])
    outputs = 0
    for name, notebook in fresh.items():
        original = executed[name]
        assert [cell["source"] for cell in notebook["cells"]] == [
            cell["source"] for cell in original["cells"]
        ]
        for cell, before in zip(notebook["cells"], original["cells"], strict=True):
            assert cell.get("metadata") == before.get("metadata")
            if cell["cell_type"] == "code":
                outputs += len(before["outputs"])
                assert cell["outputs"] == [] and cell["execution_count"] is None
    assert outputs > 100  # the executed ones do have outputs


def test_the_zips_are_the_same_bytes_when_built_again(notebook_zips, built, tmp_path):
    again = notebook_zips.write_zips(tmp_path)
    for first, second in zip(built, again, strict=True):
        assert first.name == second.name
        assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(again[0]) as archive:
        assert {entry.date_time for entry in archive.infolist()} == {notebook_zips.TIMESTAMP}
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [*(path.name for path in again), notebook_zips.wheel_name()]
    )


def test_a_book_without_notebooks_is_an_error(notebook_zips, tmp_path):
    with pytest.raises(FileNotFoundError, match="make twins"):
        notebook_zips.write_zips(tmp_path / "out", reader=tmp_path)
