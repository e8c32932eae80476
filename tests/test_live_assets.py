"""scripts/live_assets.py: the live cells' runtime is taken only as pinned (issue 41).

On a tiny fake Pyodide tarball, carrier wheel and pyodide-lock.json in ``tmp_path`` (no
network): the dependencies come from the lock, a wheel whose bytes differ from the
lock's sha256 stops the build with its name and a non-zero exit, and so do a tarball
that is not the pinned one and a needed wheel that the pins give no licence.
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
WHEELS = {"numpy": b"numpy's bytes", "matplotlib": b"matplotlib's bytes", "six": b"six"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _lock() -> dict:
    depends = {"numpy": [], "matplotlib": ["numpy", "six"], "six": []}
    return {
        "info": {"version": "0.0.0"},
        "packages": {
            name: {
                "file_name": f"{name}-1.0-py3-none-any.whl",
                "sha256": _sha(data),
                "depends": depends[name],
            }
            for name, data in WHEELS.items()
        },
    }


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

    def build(wheels=WHEELS, change=lambda pins: None):
        carrier = _carrier(wheels)
        (cache / "carrier.whl").write_bytes(carrier)
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
