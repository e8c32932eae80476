"""requirements.lock as the tools and the tests read it (``make lock``: uv pip compile
--generate-hashes).

Each entry is a ``name==version`` line, with an environment marker when only some
platforms or Pythons need it, continued by its ``--hash=sha256:...`` lines; comments
(the header and the ``# via`` annotations) and blank lines carry no pins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

_PIN = re.compile(
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9_.\-]*)==(?P<version>[^\s;\\]+)(?:\s*;\s*(?P<marker>.+))?"
)
_HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class Entry:
    name: str  # canonical (PEP 503): lower case, runs of "-_." as one "-"
    version: str
    marker: Marker | None
    hashes: tuple[str, ...]

    def applies(self) -> bool:
        """Whether pip installs this entry on the running interpreter."""
        return self.marker is None or self.marker.evaluate()


def entries(path: Path) -> list[Entry]:
    """Every entry of the lock, in order; anything that is not a pin or a hash is an error."""
    found: list[list] = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        body = line.removesuffix("\\").strip()
        if raw[0].isspace():  # a continuation line: one hash of the entry above
            if not (found and _HASH.fullmatch(body)):
                raise ValueError(f"{path}, line {number}: not a hash: {raw!r}")
            found[-1][3].append(body.removeprefix("--hash="))
            continue
        match = _PIN.fullmatch(body)
        if not match:
            raise ValueError(f"{path}, line {number}: not an exact pin: {raw!r}")
        marker = Marker(match["marker"]) if match["marker"] else None
        found.append([canonicalize_name(match["name"]), match["version"], marker, []])
    return [Entry(name, version, marker, tuple(hashes)) for name, version, marker, hashes in found]


def pins(path: Path) -> dict[str, str]:
    """Canonical name -> the version pip installs here (entries whose markers match)."""
    result: dict[str, str] = {}
    for entry in entries(path):
        if entry.applies():
            if entry.name in result:
                raise ValueError(f"{path}: {entry.name} is pinned twice for this interpreter")
            result[entry.name] = entry.version
    return result
