"""Verdicts on claims about the encoding, recorded where they are tested.

A chapter that tests a claim computes two facts — whether the substance of the claim
holds, and whether it holds exactly as worded — and :func:`judge` turns them into a
:class:`Verdict`. The chapter glues the verdict under the key :attr:`Verdict.key`;
:func:`read_verdicts` collects them from the executed notebooks for the claims ledger.
Nothing here decides a verdict by itself: the booleans come from the chapter's cell.

Used in: chapters 1, 2, 3, 4, 5, 6, 7 and 8. The claims ledger page collects the
verdicts.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sinpe._validation import Optional, Real, constrained

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
#: Evidence that is a published figure, quoted with its source.
PUBLISHED = "published figure"
#: What can decide a verdict, from strongest to weakest as evidence of a general law.
#: A proof holds for every input; a numeric check for the inputs it covers (its scope
#: says which); a toy experiment only at its scale (width, layers, steps, seeds); a
#: published figure is quoted with its source, not re-measured.
EVIDENCE = (PROOF, NUMERIC, TOY, PUBLISHED)

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
    :func:`judge` rather than directly. Each parameter is kept as the attribute
    of the same name.

    Parameters
    ----------
    claim : str
        Identifier of the claim, lowercase words joined by hyphens
        (``"sqrt-scaling-training"``).
    verdict : str
        One of :data:`VERDICTS`.
    reason : str
        One line saying why, with the measured numbers. May contain MyST inline
        markup such as ``$\\pi$``.
    evidence : str
        What decided it: one of :data:`EVIDENCE`. Required in practice: the
        default ``""`` is not one of them and is refused.
    scope : str, optional
        How far the evidence reaches: the inputs a numeric check covers, the
        scale of a toy experiment (width, layers, steps, seeds), or the source of
        a published figure. May be empty only for a symbolic proof.

    Raises
    ------
    ValueError
        If ``claim`` is not a string of lowercase words joined by hyphens,
        ``verdict`` is not one of :data:`VERDICTS`, ``reason`` is not a non-empty
        one-line string, ``evidence`` is not one of :data:`EVIDENCE`, ``scope`` is
        not a one-line string, or ``scope`` is empty for anything but a proof.

    Examples
    --------
    >>> verdict = Verdict("bounded", HOLDS, "sines and cosines", PROOF)
    >>> verdict.key, verdict.strength
    ('claim-bounded', 'symbolic proof')
    >>> print(Verdict("scaling", NUANCE, "only for small init", TOY, "d = 32, 3 seeds"))
    scaling: holds with a nuance — only for small init [toy experiment (d = 32, 3 seeds)]
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
                "covered, the toy's scale (width, layers, steps, seeds) or the source"
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

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, object]:
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

    Parameters
    ----------
    claim : str
        Identifier of the claim (lowercase words joined by hyphens).
    holds : bool
        Whether the substance of the claim was confirmed by the test.
    as_stated : bool, optional
        Whether it holds exactly as worded. Ignored when ``holds`` is false.
    reason : str
        One line saying why, with the measured numbers.
    evidence : str
        What decided it: :data:`PROOF`, :data:`NUMERIC`, :data:`TOY` or
        :data:`PUBLISHED`.
    scope : str, optional
        How far the evidence reaches (required unless ``evidence`` is a proof):
        the inputs checked, the toy's width, layers, steps and seeds, or the
        source of a published figure.

    Returns
    -------
    Verdict
        :data:`HOLDS` if both are true, :data:`NUANCE` if the claim holds but not as
        stated, :data:`FAILS` if it does not hold.

    Raises
    ------
    TypeError
        If ``holds`` or ``as_stated`` is not a boolean (NumPy booleans are accepted),
        so a number or an array cannot pass for a test result.
    ValueError
        If ``claim`` or ``reason`` is malformed, ``evidence`` is not one of
        :data:`EVIDENCE`, or ``scope`` is missing for a non-proof (as :class:`Verdict`).

    Examples
    --------
    >>> judge("bounded", holds=True, reason="sines and cosines", evidence=PROOF).verdict
    'holds'
    >>> judge("scaling", holds=True, as_stated=False, reason="only for small init",
    ...       evidence=TOY, scope="d = 32, 1 layer, 250 steps, 3 seeds").verdict
    'holds with a nuance'
    >>> print(judge("extrapolates", holds=False, reason="22 % beyond length 16",
    ...             evidence=TOY, scope="d = 32, 1 seed"))
    extrapolates: does not hold — 22 % beyond length 16 [toy experiment (d = 32, 1 seed)]
    """
    for name, value in (("holds", holds), ("as_stated", as_stated)):
        if not isinstance(value, bool | np.bool_):
            raise TypeError(
                f"{name} must be a boolean test result, got {type(value).__name__}; "
                "compare explicitly, e.g. holds=bool(error < 1e-12)"
            )
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

    A stored notebook output must reproduce on every machine, while libm, SIMD and
    BLAS may change a computed number by a few units in its last place -- and a
    training run by far more. ``settled`` formats ``value`` with ``spec`` only after
    checking that every number within ``slack`` of it formats the same: so the
    printed digits are fixed by the computation, not by the machine.

    Parameters
    ----------
    value : real
        The computed number (finite).
    spec : str
        A format spec for :func:`format`, e.g. ``".2f"`` or ``".1e"``.
    slack : real
        How far the number may move on another machine (>= 0): a few ULPs of
        ``value`` for a closed-form computation, the spread over seeds for a
        training run.
    step : real, optional
        Round to a multiple of ``step`` first (e.g. ``5`` for "about 45 %"), for
        results whose spread allows no finer digit. Finite and positive.

    Returns
    -------
    str
        ``format(value, spec)``.

    Raises
    ------
    AssertionError
        If ``value - slack`` or ``value + slack`` formats differently: the
        requested digits are not settled. Print fewer digits, or a bound.
    TypeError
        If ``value`` or ``slack`` is not a real number (booleans included).
    ValueError
        If ``value`` or ``slack`` is not finite, ``slack`` is negative, or ``step``
        is given but is not a finite positive number (of any type) or is so small
        that ``value / step`` overflows.

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
    """Collect the verdicts glued in executed notebooks.

    Parameters
    ----------
    notebooks : iterable of str or pathlib.Path
        Executed ``.ipynb`` files.

    Returns
    -------
    dict of str to Verdict
        The verdicts by claim, in the order the notebooks record them.

    Raises
    ------
    ValueError
        If a claim is recorded twice, a glue key with the claim prefix
        (:data:`GLUE_PREFIX`) holds something else than a verdict, a recorded
        verdict is malformed (as :class:`Verdict`), or a file is not JSON.
    TypeError
        If a recorded verdict has fields that :class:`Verdict` does not have.
    FileNotFoundError
        If a notebook does not exist.

    Examples
    --------
    A notebook with one verdict glued the way :func:`glue` stores it:

    >>> import dataclasses, json, pathlib, tempfile
    >>> verdict = judge("bounded", holds=True, reason="sines and cosines", evidence=PROOF)
    >>> prefix = RECORD_PREFIX
    >>> output = {"output_type": "display_data",
    ...           "metadata": {"scrapbook": {"name": verdict.key, "mime_prefix": prefix}},
    ...           "data": {prefix + MIME_TYPE: dataclasses.asdict(verdict)}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder, "chapter.ipynb")
    ...     _ = path.write_text(json.dumps({"cells": [{"outputs": [output]}]}))
    ...     found = read_verdicts([path])
    >>> list(found), found["bounded"] == verdict
    (['bounded'], True)
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
    """Count verdicts of each kind.

    Parameters
    ----------
    verdicts : iterable of Verdict
        The verdicts to count, e.g. the values of :func:`read_verdicts`.

    Returns
    -------
    dict of str to int
        The number of each of :data:`VERDICTS`, in that order (0 for a kind that
        does not occur).

    Raises
    ------
    TypeError
        If an item is not a :class:`Verdict`.

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
