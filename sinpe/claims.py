"""Verdicts on claims about the encoding, recorded where they are tested.

A chapter that tests a claim computes two facts — whether the substance of the claim
holds, and whether it holds exactly as worded — and :func:`judge` turns them into a
:class:`Verdict`. The chapter glues the verdict under the key :attr:`Verdict.key`;
:func:`read_verdicts` collects them from the executed notebooks for the claims ledger.
Nothing here decides a verdict by itself: the booleans come from the chapter's cell.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sinpe._validation import Flag, Optional, Real, constrained

__all__ = [
    "EVIDENCE",
    "FAILS",
    "GLUE_PREFIX",
    "HOLDS",
    "MIME_TYPE",
    "NUANCE",
    "NUMERIC",
    "PROOF",
    "PUBLISHED",
    "RECORD_PREFIX",
    "RELEASED",
    "TOY",
    "VERDICTS",
    "Verdict",
    "glue",
    "judge",
    "read_verdicts",
    "settled",
    "tally",
]

#: Verdict on a claim that holds exactly as stated.
HOLDS = "holds"
#: Verdict on a claim whose substance holds, but not exactly as worded.
NUANCE = "holds with a nuance"
#: Verdict on a claim that does not hold.
FAILS = "does not hold"
#: The three verdicts, from best to worst.
VERDICTS = (HOLDS, NUANCE, FAILS)
#: Glue keys of verdicts start with this prefix.
GLUE_PREFIX = "claim-"

#: Evidence that is a symbolic proof, valid for every input.
PROOF = "symbolic proof"
#: Evidence that is a numeric check, valid for the inputs it covers.
NUMERIC = "numeric check"
#: Evidence that is a toy experiment, valid at its scale only.
TOY = "toy experiment"
#: Evidence read from models' released configuration files (``config.json``), each
#: copied verbatim from a named public source: it says what the released code computes
#: for those models, not how well they work.
RELEASED = "released config"
#: Evidence that is a published figure, quoted with its source.
PUBLISHED = "published figure"
#: What can decide a verdict, from strongest to weakest as evidence of a general law.
#: A proof holds for every input; a numeric check for the inputs it covers (its scope
#: says which); a toy experiment only at its scale (width, layers, steps, seeds); a
#: released config for the models whose files were read (the scope names them, and the
#: ones named by the claim that could not be read); a published figure is quoted with
#: its source, not re-measured.
EVIDENCE = (PROOF, NUMERIC, TOY, RELEASED, PUBLISHED)

_CLAIM_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: The MIME type under which a verdict is stored in a notebook.
MIME_TYPE = "application/vnd.sinpe.verdict+json"
#: MIME prefix of a value glued without display (myst-nb's and scrapbook's convention).
RECORD_PREFIX = "application/papermill.record/"


def glue(name: str, variable: object, display: bool = True) -> None:
    """Record ``variable`` in the running notebook under ``name``, as ``myst_nb.glue`` does.

    The book's ``{glue:text}`` roles and :func:`read_verdicts` read the record from the
    executed notebook. The output is the one myst-nb writes, so chapters glue without
    installing myst-nb and Sphinx; with ``display=False`` the value is not shown.
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display as show

    bundle, metadata = format_display_data(variable)
    prefix = "" if display else RECORD_PREFIX
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    show({prefix + mime: value for mime, value in bundle.items()}, raw=True, metadata=metadata)


@dataclass(frozen=True)
class Verdict:
    """The verdict on one claim, with a one-line reason.

    A frozen record, checked when it is made; chapters build it with
    :func:`judge`. Its attributes are the arguments of :func:`judge`, with
    ``verdict`` (one of :data:`VERDICTS`) for ``holds`` and ``as_stated``.
    ``evidence`` is required in practice (the default ``""`` is refused),
    ``scope`` may be empty only for a :data:`PROOF`.

    Examples
    --------
    >>> verdict = Verdict("bounded", HOLDS, "sines and cosines", PROOF)
    >>> verdict.key, verdict.strength
    ('claim-bounded', 'symbolic proof')
    >>> print(Verdict("scaling", NUANCE, "only for small init", TOY, "d = 32, 3 seeds"))
    scaling: holds with a nuance — only for small init [toy experiment (d = 32, 3 seeds)]
    >>> Verdict("uses-rope", HOLDS, "all 3 read", RELEASED, "3 shipped config.json").strength
    'released config (3 shipped config.json)'
    """

    claim: str
    verdict: str
    reason: str
    evidence: str = ""
    scope: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.claim, str) or not _CLAIM_ID.match(self.claim):
            raise ValueError(f"claim must be lowercase words joined by hyphens, got {self.claim!r}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if not isinstance(self.reason, str) or not self.reason.strip():
            raise ValueError("reason must be a non-empty string saying why")
        if "\n" in self.reason:
            raise ValueError("reason must be one line; move details to the chapter")
        if self.evidence not in EVIDENCE:
            raise ValueError(
                f"evidence must be one of {EVIDENCE}, got {self.evidence!r}: say what "
                "decided the verdict"
            )
        if not isinstance(self.scope, str) or "\n" in self.scope:
            raise ValueError("scope must be a one-line string")
        if self.evidence != PROOF and not self.scope.strip():
            raise ValueError(
                f"a verdict decided by a {self.evidence} needs its scope: the inputs "
                "covered, the toy's scale (width, layers, steps, seeds), the configs "
                "read or the source"
            )

    @property
    def key(self) -> str:
        """The glue key under which a chapter records this verdict."""
        return GLUE_PREFIX + self.claim

    @property
    def strength(self) -> str:
        """The evidence and its scope in words, e.g. ``"toy experiment (d = 32, ...)"``."""
        return f"{self.evidence} ({self.scope})" if self.scope else self.evidence

    def __str__(self) -> str:
        return f"{self.claim}: {self.verdict} — {self.reason} [{self.strength}]"

    def _repr_mimebundle_(
        self, include: object = None, exclude: object = None
    ) -> dict[str, object]:
        # A vendor "+json" type: notebooks store it as JSON, and glue's key prefix
        # keeps it valid under the nbformat schema (plain application/json does not).
        return {
            "text/plain": str(self),
            MIME_TYPE: {
                "claim": self.claim,
                "verdict": self.verdict,
                "reason": self.reason,
                "evidence": self.evidence,
                "scope": self.scope,
            },
        }


#: A test's outcome, compared explicitly (a number or an array is refused).
_OUTCOME = Flag(hint="a boolean test result, compared explicitly: holds=bool(error < 1e-12)")


@constrained(holds=_OUTCOME, as_stated=_OUTCOME)
def judge(
    claim: str,
    *,
    holds: bool,
    as_stated: bool = True,
    reason: str,
    evidence: str,
    scope: str = "",
) -> Verdict:
    """Turn two tested facts, and what decided them, into a verdict.

    :data:`HOLDS` if ``holds`` and ``as_stated``, :data:`NUANCE` if the claim
    holds but not as stated, :data:`FAILS` if it does not hold. ``holds`` and
    ``as_stated`` must be booleans (NumPy's too), so a number or an array cannot
    pass for a test result.

    Parameters
    ----------
    claim : str
        Identifier of the claim: lowercase words joined by hyphens.
    holds : bool
        Whether the substance of the claim was confirmed by the test.
    as_stated : bool, optional
        Whether it holds exactly as worded. Ignored when ``holds`` is false.
    reason : str
        One line saying why, with the measured numbers (MyST inline markup allowed).
    evidence : str
        What decided it: one of :data:`EVIDENCE`.
    scope : str, optional
        How far the evidence reaches (required unless ``evidence`` is a proof):
        the inputs checked, the toy's width, layers, steps and seeds, the released
        configs read, or the source of a published figure.

    Examples
    --------
    >>> judge("scaling", holds=True, as_stated=False, reason="only for small init",
    ...       evidence=TOY, scope="d = 32, 1 layer, 250 steps, 3 seeds").verdict
    'holds with a nuance'
    """
    if not bool(holds):
        verdict = FAILS
    elif not bool(as_stated):
        verdict = NUANCE
    else:
        verdict = HOLDS
    return Verdict(claim, verdict, reason, evidence, scope)


@constrained(
    value=Real(),
    slack=Real(0.0, hint="how far the value may move"),
    step=Optional(Real(0.0, closed="neither", hint="e.g. 5")),
)
def settled(value: float, spec: str, *, slack: float, step: float | None = None) -> str:
    """Format a number to digits that last-bit differences between machines cannot change.

    libm, SIMD and BLAS may move a computed number by a few units in its last
    place, a training run by far more, while a stored output must reproduce on
    every machine. ``settled`` returns ``format(value, spec)`` only after checking
    that every number within ``slack`` of ``value`` formats the same.

    Parameters
    ----------
    value : real
    spec : str
        A format spec for :func:`format`, e.g. ``".2f"``.
    slack : real
        How far the number may move on another machine (>= 0): a few ULPs for a
        closed-form computation, the spread over seeds for a training run.
    step : real, optional
        Round to a multiple of ``step`` first (e.g. ``5`` for "about 45 %").

    Raises
    ------
    AssertionError
        If the requested digits are not settled: print fewer digits, or a bound.
    ValueError
        For a bad argument, or a ``step`` so small that ``value / step`` overflows.

    Examples
    --------
    >>> settled(0.4712, ".2f", slack=1e-6)
    '0.47'
    >>> settled(45.375, ".0f", slack=0.2, step=5)   # 45.175 .. 45.575 all round to 45
    '45'
    >>> settled(0.4750000001, ".2f", slack=1e-6)
    Traceback (most recent call last):
    ...
    AssertionError: 0.4750000001 +- 1e-06 prints as 0.47 .. 0.48 with '.2f': print fewer digits
    """
    if step is not None and not math.isfinite((abs(value) + slack) / step):
        raise ValueError(
            f"step={step!r} is too small for value={value!r}: value / step overflows float64; "
            f"pass a step such as 5"
        )

    def shown(x: float) -> str:
        return format(round(x / step) * step if step else float(x), spec)

    centre, low, high = (shown(x) for x in (value, value - slack, value + slack))
    if not low == centre == high:
        raise AssertionError(
            f"{float(value)!r} +- {float(slack)!r} prints as {low} .. {high} with {spec!r}: "
            "print fewer digits"
        )
    return centre


def _glued_verdicts(notebook: dict) -> Iterable[Verdict]:
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook")
            if not record or not record.get("name", "").startswith(GLUE_PREFIX):
                continue
            payload = output["data"].get(record.get("mime_prefix", "") + MIME_TYPE)
            if payload is None:
                raise ValueError(f"glue key {record['name']!r} holds no verdict")
            yield Verdict(**payload)


def read_verdicts(notebooks: Iterable[str | Path]) -> dict[str, Verdict]:
    """The verdicts glued in executed ``.ipynb`` files, by claim, in the order recorded.

    A claim recorded twice, or a glue key with :data:`GLUE_PREFIX` that holds
    no well-formed verdict, raises ValueError.
    """
    found: dict[str, Verdict] = {}
    where: dict[str, str] = {}
    for path in map(Path, notebooks):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for verdict in _glued_verdicts(notebook):
            if verdict.claim in found:
                raise ValueError(
                    f"claim {verdict.claim!r} is recorded in both {where[verdict.claim]} "
                    f"and {path.name}; record each claim in one place"
                )
            found[verdict.claim] = verdict
            where[verdict.claim] = path.name
    return found


def tally(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """The number of verdicts of each of :data:`VERDICTS`, in that order.

    Examples
    --------
    >>> tally([judge("a", holds=True, reason="x", evidence=PROOF),
    ...        judge("b", holds=False, reason="y", evidence=PROOF)])
    {'holds': 1, 'holds with a nuance': 0, 'does not hold': 1}
    """
    counts = dict.fromkeys(VERDICTS, 0)
    for verdict in verdicts:
        if not isinstance(verdict, Verdict):
            raise TypeError(
                f"verdicts must hold Verdict objects (from judge), got {verdict!r} of type "
                f"{type(verdict).__name__}"
            )
        counts[verdict.verdict] += 1
    return counts
