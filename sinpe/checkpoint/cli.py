"""The ``sinpe`` command: ``sinpe inspect PATH [--key NAME] [--json]``.

Tells which positional encoding a checkpoint file holds, and what is wrong with
it: every tensor whose name says "position" (:func:`sinpe.checkpoint.tensors.position_tensors`),
or the one ``--key`` names, is read (:func:`sinpe.checkpoint.files.open_tensors`) and
inspected (:func:`sinpe.checkpoint.tensors.inspect_tensor`). The report has one block per
tensor and a one-line summary; ``--json`` prints the same content as JSON.

Exit status: 0 when every inspected tensor is a known convention within its
dtype's rounding, 1 when one is not (or shows a known bug), 2 for a usage error
or a file or tensor it cannot read -- with a message, never a traceback.
Also ``python -m sinpe inspect``. Standard library (argparse) and NumPy only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from sinpe.checkpoint.files import FORMATS, CheckpointError, open_tensors
from sinpe.checkpoint.tensors import Finding, inspect_tensor, position_tensors

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_PROBLEM", "inspect_file", "main"]

#: Every inspected tensor is a known convention within its dtype's rounding.
EXIT_OK = 0
#: A tensor is not a known convention, or shows a known bug.
EXIT_PROBLEM = 1
#: A usage error, or a file or tensor that cannot be read.
EXIT_BAD_INPUT = 2

#: Keys listed in a message about a missing key, at most.
_LISTED_KEYS = 20


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sinpe",
        description="Tools of the sinpe book on the sinusoidal positional encoding.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    inspect = commands.add_parser(
        "inspect",
        help="say which positional encoding a checkpoint holds, and what is wrong with it",
        description=(
            "Inspect the position tensors of a checkpoint file: sinusoidal tables "
            "(convention, base, layout, first position, precision, known bugs), RoPE "
            "inv_freq (base and scaling) and ALiBi slopes (head count). Exit 0: all "
            "known conventions; 1: one is not, or shows a known bug; 2: bad input."
        ),
        epilog=f"Formats: {', '.join(FORMATS)} (.safetensors needs pip install "
        f"'sinpe[files]'; PyTorch files need torch).",
    )
    inspect.add_argument("path", metavar="PATH", help="the checkpoint file")
    inspect.add_argument(
        "--key", metavar="NAME", help="inspect this tensor (default: every position tensor)"
    )
    inspect.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def inspect_file(path: str, key: str | None = None) -> tuple[list[Finding | str], int]:
    """Inspect a file's position tensors (or ``key``): ``(findings, status)``.

    One finding per inspected tensor, in the file's order, or the message (a
    str) about a tensor that could not be inspected; ``status`` is
    :data:`EXIT_OK`, :data:`EXIT_PROBLEM` or :data:`EXIT_BAD_INPUT`. A file that
    cannot be read, a missing ``key`` (the message lists the keys) or no position
    tensor raise :class:`sinpe.checkpoint.files.CheckpointError`.
    """
    if key is not None and not isinstance(key, str):
        raise TypeError(f"key must be a tensor name (str) or None, got {key!r}")
    tensors = open_tensors(path)
    if key is not None:
        if key not in tensors:
            raise CheckpointError(f"no tensor {key!r} in {path}; {_keys(tensors)}")
        names = [key]
    else:
        names = position_tensors(tensors) or (list(tensors) if len(tensors) == 1 else [])
        if not names:
            raise CheckpointError(
                f"no tensor of {path} has a name that says position; pass --key NAME "
                f"({_keys(tensors)})"
            )
    findings: list[Finding | str] = []
    status = EXIT_OK
    for name in names:
        try:
            finding = inspect_tensor(tensors[name])
        except (ValueError, TypeError, ArithmeticError, MemoryError) as error:
            # CheckpointError, and anything else a strange tensor provokes: a message
            findings.append(f"{name}: {error or type(error).__name__}")
            status = EXIT_BAD_INPUT
            continue
        findings.append(finding)
        status = max(status, finding.exit_code)
    return findings, status


def _keys(tensors: dict) -> str:
    names = list(tensors)
    shown = ", ".join(names[:_LISTED_KEYS])
    more = f" and {len(names) - _LISTED_KEYS} more" if len(names) > _LISTED_KEYS else ""
    return f"the file holds: {shown}{more}" if names else "the file holds no tensor"


def _block(finding: Finding | str) -> str:
    if isinstance(finding, str):
        return f"{finding}\n  verdict: cannot inspect (exit 2)"
    shape = " x ".join(str(n) for n in finding.shape)
    verdict = {"ok": "known convention", "bug": "KNOWN BUG", "unknown": "NOT a known convention"}
    lines = [f"{finding.name}  ({shape}, {finding.dtype}, {finding.kind})"]
    found = finding.details
    if "conventions" in found:  # a table of known conventions: one line per finding
        names = ", ".join(found["conventions"])
        lines.append(
            f"  convention: {names}{' (the same table)' if len(found['conventions']) > 1 else ''}"
        )
        lines.append(
            f"  base {found['base']:g}, {found['spacing']} spacing, {found['layout']} layout"
        )
        lines.append(f"  first position: {found['first_position']}")
        lines.append(
            f"  precision: within {found['max_ulp']:.3g} ULP of {finding.dtype} of the exact "
            f"table (computed in {found['computed_in']})"
        )
        if "bug" in found:
            lines.append(f"  known bug: {found['bug']}")
    else:
        lines.append(f"  {finding.summary}")
    for label in ("explanation", "reported", "reason"):
        if label in found and found[label] not in "\n".join(lines):
            lines.append(f"  {label}: {found[label]}")
    lines.append(f"  verdict: {verdict[finding.verdict]}")
    return "\n".join(lines)


def _summary(findings: list[Finding | str], status: int) -> str:
    known = sum(isinstance(f, Finding) and f.verdict == "ok" for f in findings)
    bugs = sum(isinstance(f, Finding) and f.verdict == "bug" for f in findings)
    unread = sum(isinstance(f, str) for f in findings)
    parts = [f"{len(findings)} tensor{'s' if len(findings) != 1 else ''} inspected"]
    parts.append(f"{known} known")
    if bugs:
        parts.append(f"{bugs} with a known bug")
    if len(findings) - known - bugs - unread:
        parts.append(f"{len(findings) - known - bugs - unread} unknown")
    if unread:
        parts.append(f"{unread} unreadable")
    return f"{', '.join(parts)} (exit {status})"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sinpe`` with ``argv`` (default: the command line); return the exit status."""
    parser = _parser()
    arguments = parser.parse_args(argv)  # exits 2 on a usage error
    try:
        findings, status = inspect_file(arguments.path, arguments.key)
    except CheckpointError as error:
        if arguments.json:
            print(json.dumps({"file": arguments.path, "error": str(error), "exit": 2}, indent=2))
        print(f"sinpe inspect: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if arguments.json:
        tensors = [f.as_dict() if isinstance(f, Finding) else {"error": f} for f in findings]
        print(json.dumps({"file": arguments.path, "tensors": tensors, "exit": status}, indent=2))
    else:
        print(f"{arguments.path}:")
        for finding in findings:
            print(_block(finding))
        print(_summary(findings, status))
    return status
