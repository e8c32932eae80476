"""What ``sinpe inspect`` found, as typed values: one :class:`Encoding` per finding.

The readers (:mod:`~sinpe.checkpoint.files`, :mod:`~sinpe.checkpoint.gguf`,
:mod:`~sinpe.checkpoint.models`) and the analyses (:mod:`~sinpe.checkpoint.configs`,
:mod:`~sinpe.checkpoint.tensors`) produce these; the printers
(:mod:`~sinpe.checkpoint.cli`) read their attributes, never string keys.
:meth:`Encoding.as_dict` is the ``--json`` contract. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["KINDS", "PAIRINGS", "Encoding", "Ladder", "Report", "Scaling"]

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
    layers: str | list = "all"
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
