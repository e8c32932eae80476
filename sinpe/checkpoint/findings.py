"""What ``sinpe inspect`` found, as typed values: one :class:`Encoding` per finding.

The readers (:mod:`~sinpe.checkpoint.files`, :mod:`~sinpe.checkpoint.gguf`,
:mod:`~sinpe.checkpoint.models`) and the analyses (:mod:`~sinpe.checkpoint.configs`,
:mod:`~sinpe.checkpoint.tensors`) produce these; the printers
(:mod:`~sinpe.checkpoint.cli`) read their attributes, never string keys.
:meth:`Encoding.as_dict` is the ``--json`` contract; :func:`ladder` and
:func:`rope_summary` describe a RoPE finding for both printers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sinpe.core import frequencies

__all__ = ["KINDS", "PAIRINGS", "Encoding", "Ladder", "Report", "Scaling", "ladder", "rope_summary"]

#: What an encoding can be.
KINDS = ("sinusoidal", "learned", "rope", "alibi", "relative-bias", "none", "unknown")
#: How RoPE pairs the entries of a head: (x_2i, x_2i+1), (x_i, x_i+d/2), or not known.
PAIRINGS = ("interleaved", "concat", "unknown")


@dataclass(frozen=True)
class Scaling:
    """A context extension: ``type`` (transformers' rope_type, GGUF's for GGUF),
    ``factor``, ``original_context`` and the type's other parameters."""

    type: str
    factor: float | None = None
    original_context: int | None = None
    parameters: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "type": self.type,
            "factor": self.factor,
            "original_context": self.original_context,
            **self.parameters,
        }


@dataclass(frozen=True)
class Ladder:
    """The implied RoPE frequencies in a few numbers: wavelengths in tokens (``2 pi /
    theta``) of the fastest and slowest turning pair, how many pairs are kept, stretched
    by the full factor, blended between, or not turning at all, and the target context."""

    fastest_wavelength: float
    slowest_wavelength: float
    pairs: int
    kept: int
    stretched: int
    blended: int
    still: int = 0
    target_context: int | None = None

    def as_dict(self) -> dict:
        return dict(vars(self))


@dataclass
class Encoding:
    """One finding: what encodes positions, where, and what is wrong with it.

    ``source`` is a tensor name, ``"config.json"``, ``"params.json"`` or ``"gguf"``;
    ``kind`` one of :data:`KINDS`; ``pairing`` one of :data:`PAIRINGS`; ``layers``
    ``"all"`` or the layer indices or layer types it applies to; ``problems`` the
    reasons for exit status 1; ``notes`` what the file cannot tell or leaves to a
    default, said plainly; ``summary`` the one-line human form.
    """

    source: str
    kind: str
    summary: str = ""
    base: float | None = None
    scaling: Scaling | None = None
    head_dim: int | None = None
    rotary_dim: int | None = None
    pairing: str = "unknown"
    layers: str | list[int] = "all"
    context: int | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ladder: Ladder | None = None
    details: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.pairing not in PAIRINGS:
            raise ValueError(f"pairing must be one of {PAIRINGS}, got {self.pairing!r}")

    def as_dict(self) -> dict:
        """The ``--json`` entry: the contract's keys, then the details."""
        return {
            "source": self.source,
            "kind": self.kind,
            "base": self.base,
            "scaling": None if self.scaling is None else self.scaling.as_dict(),
            "head_dim": self.head_dim,
            "rotary_dim": self.rotary_dim,
            "pairing": self.pairing,
            "layers": self.layers,
            "context": self.context,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "summary": self.summary,
            "ladder": None if self.ladder is None else self.ladder.as_dict(),
            **self.details,
        }


@dataclass
class Report:
    """Everything found about one model: the files read, and the encodings."""

    path: str
    read: list[str] = field(default_factory=list)
    encodings: list[Encoding] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 known and consistent, 1 a problem (or nothing known), 2 something unreadable."""
        if self.unreadable:
            return 2
        if any(e.problems or e.kind == "unknown" for e in self.encodings):
            return 1
        return 0

    def as_dict(self) -> dict:
        return {
            "file": self.path,
            "read": list(self.read),
            "encodings": [e.as_dict() for e in self.encodings],
            "errors": list(self.unreadable),
            "exit": self.exit_code,
        }


# --- the ladder and the summary of a RoPE finding -------------------------------


def ladder(theta: np.ndarray, rotary_dim: int, base: float, scaling: Scaling | None) -> Ladder:
    """The ladder of ``theta`` against the plain frequencies of ``rotary_dim`` at ``base``."""
    plain = frequencies(rotary_dim, base=base)[: theta.size]
    turning = theta > 0
    with np.errstate(divide="ignore"):
        stretch = np.where(turning, plain / np.where(turning, theta, 1.0), np.inf)
    factor = scaling.factor if scaling is not None and scaling.factor else 1.0
    kept = turning & np.isclose(stretch, 1.0, rtol=1e-6, atol=0)
    stretched = turning & ~kept & np.isclose(stretch, factor, rtol=1e-6, atol=0)
    wavelengths = 2 * np.pi / theta[turning] if turning.any() else np.array([np.inf])
    target = None
    if scaling is not None and scaling.original_context and scaling.factor:
        target = round(scaling.original_context * scaling.factor)
    return Ladder(
        fastest_wavelength=float(wavelengths.min()),
        slowest_wavelength=float(wavelengths.max()),
        pairs=int(theta.size),
        kept=int(kept.sum()),
        stretched=int(stretched.sum()),
        blended=int((turning & ~kept & ~stretched).sum()),
        still=int((~turning).sum()),
        target_context=target,
    )


def rope_summary(encoding: Encoding) -> str:
    """The one-line human form of a RoPE encoding."""
    parts = [f"RoPE, base {encoding.base:g}"]
    scaling = encoding.scaling
    if scaling is None:
        parts.append("no scaling")
    elif scaling.type == "proportional":
        parts.append(
            f"proportional, {scaling.parameters['partial_rotary_factor']:g} of the pairs turning"
        )
    else:
        text = f"{scaling.type}"
        if scaling.factor is not None:
            text += f" \N{MULTIPLICATION SIGN}{scaling.factor:g}"
        if scaling.original_context:
            text += f" from {scaling.original_context}"
        parts.append(text)
    parts.append(f"head_dim {encoding.head_dim}")
    if encoding.rotary_dim == encoding.head_dim:
        parts.append(f"all {encoding.rotary_dim} dims rotated")
    else:
        parts.append(f"{encoding.rotary_dim} of {encoding.head_dim} dims rotated")
    names = {"concat": "concat (split-half)", "interleaved": "interleaved (x_2i, x_2i+1)"}
    parts.append(f"pairing {names.get(encoding.pairing, 'unknown')}")
    if encoding.layers != "all":
        parts.append(_shown_layers(encoding.layers))
    return ", ".join(parts)


def _shown_layers(layers: str | list[int]) -> str:
    if layers == "all":
        return "every layer"
    if isinstance(layers, str):
        return f"the {layers} layers"
    more = ", ..." if len(layers) > 6 else ""
    return f"{len(layers)} layers ({', '.join(map(str, layers[:6]))}{more})"
