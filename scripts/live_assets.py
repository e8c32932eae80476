"""The files the book's live cells run on: Pyodide, its wheels and sinpe's, verified.

``python -m scripts.live_assets build DEST`` writes into ``DEST`` (the book's build
writes ``_build/html/_static/live/``, book/_ext/live_cells.py):

* Pyodide's core (``pyodide.js``, its WebAssembly, the standard library, its
  ``pyodide-lock.json``) from the npm tarball, checked against its sha512 integrity;
* the wheels of the packages the chapters import and of everything they depend on, the
  dependencies read from ``pyodide-lock.json`` (never listed by hand); the wheel files
  are Pyodide's own builds, as carried by a wheel on PyPI (the carrier, checked against
  its sha256; only the files under its ``folder`` are taken, none of its own code), and
  each is checked against the sha256 that ``pyodide-lock.json`` gives it and that
  ``book/_live/assets.json`` records with its licence;
* a pure-Python wheel that the carrier does not hold (SymPy and mpmath) is taken from the
  ``url`` its pin gives (PyPI), and checked against the pinned sha256 and against the
  lock's file name and version (its METADATA's too). Not against the lock's sha256: for
  such packages Pyodide ships a rebuild without the tests (``unvendored_tests``), whose
  bytes differ from the wheel on PyPI;
* sinpe's wheel, built from the work tree (``scripts.notebook_zips.build_wheel``);
* ``manifest.json``: the wheel file names, in the order the worker loads them at its
  start, and, for each package the pins name under ``on_import`` (SymPy: 6.7 MB that
  few pages need) and each of its dependencies, the wheels the worker fetches the first
  time a cell imports it (``{"sympy": ["mpmath-...", "sympy-..."], "mpmath":
  ["mpmath-..."]}``, keyed by import name).

Every pin is in one file, ``book/_live/assets.json``. Downloads are kept in
``_build/live-cache/`` (inside the repository, never ``$HOME``). A file that does not
match its pin stops the build with a message naming it and a non-zero exit.
"""

from __future__ import annotations

import argparse
import base64
import email.parser
import hashlib
import io
import json
import re
import sys
import tarfile
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINS = ROOT / "book" / "_live" / "assets.json"
CACHE = ROOT / "_build" / "live-cache"
MANIFEST = "manifest.json"


class AssetError(Exception):
    """A download that failed or a file that does not match its pin."""


def canonical(name: str) -> str:
    """A package's name as pyodide-lock.json's dependencies may spell it, normalised."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_integrity(data: bytes, integrity: str, what: str) -> None:
    """npm's ``sha512-<base64>`` integrity of ``data``."""
    algorithm, _, expected = integrity.partition("-")
    found = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if found != expected:
        raise AssetError(f"{what}: its {algorithm} is {found}, the pin says {expected}")


def fetch(url: str, cache: Path) -> bytes:
    """The file at ``url``, downloaded once into ``cache``."""
    target = cache / url.rsplit("/", 1)[-1]
    if not target.exists():
        cache.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(url, timeout=120) as response:
                data = response.read()
        except OSError as error:
            raise AssetError(
                f"could not download {url} ({error}); fetch it by hand into {cache}/"
            ) from error
        target.write_bytes(data)
    return target.read_bytes()


def resolve(roots: list[str], lock: dict) -> list[str]:
    """``roots`` and everything they depend on in ``lock``, dependencies first."""
    packages = {canonical(name): entry for name, entry in lock["packages"].items()}
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        name = canonical(name)
        if name in order or name in path:
            return
        if name not in packages:
            raise AssetError(
                f"{name} (needed by {' > '.join(path) or 'the pins'}) is not in pyodide-lock.json"
            )
        for dependency in packages[name]["depends"]:
            visit(dependency, (*path, name))
        order.append(name)

    for root in roots:
        visit(root, ())
    return order


def _wheel_version(data: bytes, file_name: str) -> tuple[str, str]:
    """The (canonical name, version) that a wheel's ``*.dist-info/METADATA`` declares."""
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        metadata = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
        if len(metadata) != 1:
            raise AssetError(f"{file_name}: no single .dist-info/METADATA in it")
        text = wheel.read(metadata[0]).decode("utf-8", "replace")
    fields = email.parser.HeaderParser().parsestr(text)
    return canonical(fields.get("Name", "")), fields.get("Version", "")


def _from_pypi(name: str, entry: dict, pin: dict, cache: Path) -> bytes:
    """The wheel of ``name`` downloaded from its pin's ``url``: the lock's file (name and
    version, the file name's and its METADATA's) with the pinned sha256."""
    file_name = pin["url"].rsplit("/", 1)[-1]
    if file_name != entry["file_name"]:
        raise AssetError(
            f"{pin['url']}: pyodide-lock.json's file for {name} is {entry['file_name']}"
        )
    data = fetch(pin["url"], cache)
    found = sha256(data)
    if found != pin["sha256"]:
        raise AssetError(
            f"{file_name}: sha256 {found} does not match book/_live/assets.json's {pin['sha256']}"
        )
    declared = _wheel_version(data, file_name)
    if declared != (name, entry["version"]):
        raise AssetError(
            f"{file_name}: its METADATA declares {declared[0]} {declared[1]}, "
            f"pyodide-lock.json {name} {entry['version']}"
        )
    return data


def take_wheels(
    names: list[str],
    lock: dict,
    pins: dict,
    carrier: zipfile.ZipFile,
    folder: str,
    dest: Path,
    cache: Path = CACHE,
) -> list[str]:
    """Copy the wheel of each of ``names`` into ``dest``, out of the carrier (checked
    against pyodide-lock.json's sha256 and the pinned one) or, if its pin gives a
    ``url``, from there (:func:`_from_pypi`); returns their file names."""
    packages = {canonical(name): entry for name, entry in lock["packages"].items()}
    recorded = {canonical(name): pin for name, pin in pins.items()}
    written = []
    for name in names:
        entry = packages[name]
        if name not in recorded:
            raise AssetError(
                f"{name} ({entry['file_name']}) is needed but book/_live/assets.json records "
                'no licence and sha256 for it: add it under "wheels"'
            )
        if "url" in recorded[name]:
            data = _from_pypi(name, entry, recorded[name], cache)
            (dest / entry["file_name"]).write_bytes(data)
            written.append(entry["file_name"])
            continue
        try:
            data = carrier.read(folder + entry["file_name"])
        except KeyError:
            raise AssetError(f"{entry['file_name']} is not in the carrier under {folder}") from None
        found = sha256(data)
        if found != entry["sha256"]:
            raise AssetError(
                f"{entry['file_name']}: sha256 {found} does not match pyodide-lock.json's "
                f"{entry['sha256']}"
            )
        if found != recorded[name]["sha256"]:
            raise AssetError(
                f"{entry['file_name']}: sha256 {found} does not match book/_live/assets.json's "
                f"{recorded[name]['sha256']}"
            )
        (dest / entry["file_name"]).write_bytes(data)
        written.append(entry["file_name"])
    return written


def build(dest: Path, pins_path: Path = PINS, cache: Path = CACHE) -> dict:
    """Write the live cells' files into ``dest``; returns the manifest."""
    pins = json.loads(pins_path.read_text())
    dest.mkdir(parents=True, exist_ok=True)
    pyodide = pins["pyodide"]
    tarball = fetch(pyodide["url"], cache)
    check_integrity(tarball, pyodide["integrity"], pyodide["url"])
    carrier_pin = pins["carrier"]
    carrier_bytes = fetch(carrier_pin["url"], cache)
    if sha256(carrier_bytes) != carrier_pin["sha256"]:
        raise AssetError(
            f"{carrier_pin['url']}: sha256 {sha256(carrier_bytes)}, "
            f"the pin says {carrier_pin['sha256']}"
        )
    carrier_path = cache / carrier_pin["url"].rsplit("/", 1)[-1]
    with tarfile.open(cache / pyodide["url"].rsplit("/", 1)[-1]) as archive:
        for name in pyodide["core"]:
            member = archive.extractfile(f"package/{name}")
            if member is None:
                raise AssetError(f"{name} is not in the Pyodide tarball")
            (dest / name).write_bytes(member.read())
    lock = json.loads((dest / "pyodide-lock.json").read_text())
    names = resolve(pins["packages"], lock)
    later = {root: resolve([root], lock) for root in pins.get("on_import", [])}
    with zipfile.ZipFile(carrier_path) as carrier:
        wheels = take_wheels(
            names, lock, pins["wheels"], carrier, carrier_pin["folder"], dest, cache
        )
        extra = list(dict.fromkeys(n for needed in later.values() for n in needed))
        extra = [name for name in extra if name not in names]
        taken = take_wheels(
            extra, lock, pins["wheels"], carrier, carrier_pin["folder"], dest, cache
        )
        files = dict(zip(extra, taken, strict=True))
    packages = {canonical(name): entry for name, entry in lock["packages"].items()}
    on_import = {  # a dependency may be imported first, alone (sinpe.numerics: mpmath)
        module: [files[dependency] for dependency in resolve([name], lock) if dependency in files]
        for name in extra
        for module in packages[name]["imports"]
    }
    from scripts import notebook_zips

    for old in dest.glob("sinpe-*.whl"):
        old.unlink()
    wheels.append(notebook_zips.build_wheel(dest).name)
    manifest = {"pyodide": pyodide["version"], "wheels": wheels, "on_import": on_import}
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.live_assets", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("build", help="write the live cells' files into DEST")
    command.add_argument("dest", type=Path)
    arguments = parser.parse_args(argv)
    try:
        manifest = build(arguments.dest)
    except AssetError as error:
        print(f"live cells: {error}", file=sys.stderr)
        return 1
    size = sum(path.stat().st_size for path in arguments.dest.iterdir())
    print(
        f"{arguments.dest}: Pyodide {manifest['pyodide']}, "
        f"{len(manifest['wheels'])} wheels, {size / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
