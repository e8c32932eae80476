"""scripts/live_assets.py: the live cells' runtime is taken only as pinned (issue 41).

On a tiny fake Pyodide tarball, carrier wheel and pyodide-lock.json in ``tmp_path`` (no
network): the dependencies come from the lock, a wheel whose bytes differ from the
lock's sha256 stops the build with its name and a non-zero exit, and so do a tarball
that is not the pinned one and a needed wheel that the pins give no licence. A wheel
pinned with a ``url`` (SymPy's, from PyPI) is taken from there, its sha256 the pin's
(not the lock's, of Pyodide's rebuild), and fails if its bytes or its version differ.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import zipfile

import pytest

from scripts import live_assets, notebook_zips

FOLDER = "carrier/assets/pyodide/"
WHEELS = {
    "numpy": b"numpy's bytes",
    "matplotlib": b"matplotlib's bytes",
    "six": b"six",
    "mpmath": b"mpmath",
}
#: On PyPI, not in the carrier: its URL in the pins; the lock's sha256 is of another build.
PYPI_URL = "https://example.invalid/packages/sympy-1.0-py3-none-any.whl"


def _pure_wheel(name: str = "sympy", version: str = "1.0", extra: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{name}/__init__.py", b"x = 1\n" + extra)
        metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nabout it\n"
        archive.writestr(f"{name}-{version}.dist-info/METADATA", metadata)
    return buffer.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _lock() -> dict:
    depends = {"numpy": [], "matplotlib": ["numpy", "six"], "six": [], "mpmath": []}
    packages = {
        name: {
            "file_name": f"{name}-1.0-py3-none-any.whl",
            "sha256": _sha(data),
            "version": "1.0",
            "depends": depends[name],
            "imports": [name],
        }
        for name, data in WHEELS.items()
    }
    packages["sympy"] = {
        "file_name": "sympy-1.0-py3-none-any.whl",
        "sha256": _sha(b"Pyodide's own rebuild of it"),
        "version": "1.0",
        "depends": ["numpy", "mpmath"],
        "imports": ["sympy"],
    }
    return {"info": {"version": "0.0.0"}, "packages": packages}


def _tarball(lock: dict) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in {
            "pyodide.js": b"//",
            "pyodide-lock.json": json.dumps(lock).encode(),
        }.items():
            info = tarfile.TarInfo("package/" + name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _carrier(wheels: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in wheels.items():
            archive.writestr(f"{FOLDER}{name}-1.0-py3-none-any.whl", data)
        archive.writestr("carrier/code.py", "never taken")
    return buffer.getvalue()


@pytest.fixture
def pinned(tmp_path, monkeypatch):
    """A cache holding the fake downloads, and pins that match them; returns a function
    that writes the pins (changed by ``change``) and builds into tmp_path/site."""
    cache = tmp_path / "cache"
    cache.mkdir()
    lock = _lock()
    tarball = _tarball(lock)
    (cache / "pyodide.tgz").write_bytes(tarball)

    def sinpe_wheel(target):
        (target / "sinpe-0-py3-none-any.whl").write_bytes(b"sinpe")
        return target / "sinpe-0-py3-none-any.whl"

    monkeypatch.setattr(notebook_zips, "build_wheel", sinpe_wheel)

    def build(wheels=WHEELS, change=lambda pins: None, pypi=None):
        carrier = _carrier(wheels)
        (cache / "carrier.whl").write_bytes(carrier)
        # as fetched from PyPI
        (cache / "sympy-1.0-py3-none-any.whl").write_bytes(pypi or _pure_wheel())
        integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
        pins = {
            "pyodide": {"version": "0.0.0", "url": "https://example.invalid/pyodide.tgz",
                        "integrity": integrity, "core": ["pyodide.js", "pyodide-lock.json"]},
            "carrier": {"url": "https://example.invalid/carrier.whl", "sha256": _sha(carrier),
                        "folder": FOLDER},
            "packages": ["matplotlib"],
            "wheels": {name: {"licence": "MIT", "sha256": _sha(data)}
                       for name, data in WHEELS.items()},
        }  # fmt: skip
        pins["wheels"]["sympy"] = {"licence": "BSD", "sha256": _sha(_pure_wheel()),
                                   "url": PYPI_URL}  # fmt: skip
        change(pins)
        path = tmp_path / "assets.json"
        path.write_text(json.dumps(pins))
        return live_assets.build(tmp_path / "site", pins_path=path, cache=cache)

    return build


def test_the_pinned_files_build_and_dependencies_come_first(pinned, tmp_path):
    manifest = pinned()
    assert manifest["wheels"] == [
        "numpy-1.0-py3-none-any.whl",
        "six-1.0-py3-none-any.whl",
        "matplotlib-1.0-py3-none-any.whl",
        "sinpe-0-py3-none-any.whl",
    ]
    written = {path.name for path in (tmp_path / "site").iterdir()}
    assert written == set(manifest["wheels"]) | {"pyodide.js", "pyodide-lock.json", "manifest.json"}
    assert json.loads((tmp_path / "site" / "manifest.json").read_text()) == manifest


def test_a_wheel_from_pypi_is_taken_by_its_pin_not_the_lock(pinned, tmp_path):
    def with_sympy(pins):
        pins["packages"].append("sympy")

    manifest = pinned(change=with_sympy)
    assert manifest["wheels"][-2] == "sympy-1.0-py3-none-any.whl"  # after numpy, its dependency
    assert (tmp_path / "site" / "sympy-1.0-py3-none-any.whl").read_bytes() == _pure_wheel()


def test_a_package_on_import_waits_for_its_first_import(pinned, tmp_path):
    def sympy_later(pins):
        pins["on_import"] = ["sympy"]

    manifest = pinned(change=sympy_later)
    assert "sympy-1.0-py3-none-any.whl" not in manifest["wheels"]
    # numpy is loaded at the start already; mpmath waits too, for its own import as well
    assert manifest["on_import"] == {
        "mpmath": ["mpmath-1.0-py3-none-any.whl"],
        "sympy": ["mpmath-1.0-py3-none-any.whl", "sympy-1.0-py3-none-any.whl"],
    }
    assert (tmp_path / "site" / "sympy-1.0-py3-none-any.whl").read_bytes() == _pure_wheel()


def test_a_tampered_wheel_from_pypi_fails_with_its_name(pinned):
    def with_sympy(pins):
        pins["packages"].append("sympy")

    with pytest.raises(
        live_assets.AssetError,
        match=r"sympy-1\.0-py3-none-any\.whl: sha256 \w+ does not match book/_live/assets\.json",
    ):
        pinned(change=with_sympy, pypi=_pure_wheel(extra=b"# changed"))


def test_a_wheel_from_pypi_of_another_version_fails(pinned):
    def pinned_to(wheel: bytes, url: str = PYPI_URL):
        def change(pins):
            pins["packages"].append("sympy")
            pins["wheels"]["sympy"].update(sha256=_sha(wheel), url=url)

        return change

    other = _pure_wheel(version="1.1")  # its METADATA says 1.1, its file name 1.0
    with pytest.raises(live_assets.AssetError, match=r"declares sympy 1\.1, pyodide-lock\.json"):
        pinned(change=pinned_to(other), pypi=other)
    named = PYPI_URL.replace("1.0", "1.1")
    with pytest.raises(
        live_assets.AssetError, match=r"pyodide-lock\.json's file for sympy is sympy-1\.0"
    ):
        pinned(change=pinned_to(other, named), pypi=other)


def test_a_tampered_wheel_fails_with_its_name(pinned):
    tampered = dict(WHEELS, six=b"six, changed")
    with pytest.raises(
        live_assets.AssetError, match=r"six-1\.0-py3-none-any\.whl: sha256 .* pyodide-lock"
    ):
        pinned(wheels=tampered)


def test_a_wheel_the_pins_record_otherwise_fails(pinned):
    def change(pins):
        pins["wheels"]["numpy"]["sha256"] = "0" * 64

    with pytest.raises(live_assets.AssetError, match=r"numpy-1\.0.*assets\.json"):
        pinned(change=change)


def test_a_needed_wheel_without_a_licence_fails(pinned):
    with pytest.raises(live_assets.AssetError, match=r"six .*no licence"):
        pinned(change=lambda pins: pins["wheels"].pop("six"))


def test_a_tarball_that_is_not_the_pinned_one_fails(pinned):
    def change(pins):
        pins["pyodide"]["integrity"] = "sha512-" + base64.b64encode(bytes(64)).decode()

    with pytest.raises(live_assets.AssetError, match=r"pyodide\.tgz: its sha512"):
        pinned(change=change)


def test_the_command_exits_non_zero_with_the_message(monkeypatch, capsys, tmp_path):
    def fail(dest):
        raise live_assets.AssetError("x.whl: sha256 a does not match")

    monkeypatch.setattr(live_assets, "build", fail)
    assert live_assets.main(["build", str(tmp_path)]) == 1
    assert "live cells: x.whl: sha256 a does not match" in capsys.readouterr().err


def test_the_pins_record_a_licence_and_sha256_for_each_wheel():
    pins = json.loads(live_assets.PINS.read_text())
    for name, pin in pins["wheels"].items():
        assert pin["licence"], name
        assert len(pin["sha256"]) == 64, name
        if "url" in pin:  # a pure-Python wheel, from PyPI itself
            assert pin["url"].startswith("https://files.pythonhosted.org/"), name
            assert pin["url"].endswith("-py3-none-any.whl"), name
