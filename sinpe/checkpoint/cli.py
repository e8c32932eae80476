"""The ``sinpe`` command: ``sinpe inspect PATH [--key NAME] [--json]``.

Tells which positional encoding a model holds, and what is wrong with it. PATH is a
model folder, a ``config.json`` / ``params.json`` / ``*.index.json``, a ``.gguf`` file or
a tensor file (NumPy, safetensors, PyTorch). One pass: the readers
(:func:`sinpe.checkpoint.models.read_model`: headers and metadata only), then the
analysis -- the config's encodings (:mod:`sinpe.checkpoint.configs`), each position
tensor (:func:`sinpe.checkpoint.tensors.tensor_encoding`), checked against the config --
giving typed findings (:class:`sinpe.checkpoint.findings.Report`), then a printer: one
block per encoding and a one-line summary, or ``--json``.

Exit status: 0 when everything is a known encoding and consistent, 1 when something is
not (a problem: a stored inv_freq against the config, a config transformers would
reject, a known bug), 2 for a usage error or a file it cannot read -- with a one-line
message, never a traceback. Also ``python -m sinpe inspect``. Standard library
(argparse) and NumPy only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from sinpe.checkpoint.configs import config_encodings, gguf_encodings, params_encodings
from sinpe.checkpoint.files import FORMATS, CheckpointError, open_tensors
from sinpe.checkpoint.findings import Encoding, Report
from sinpe.checkpoint.models import _keys, read_model
from sinpe.checkpoint.tensors import Finding, inspect_tensor, position_tensors, tensor_encoding

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_PROBLEM", "inspect_file", "inspect_path", "main"]

#: Every inspected tensor is a known convention within its dtype's rounding.
EXIT_OK = 0
#: A tensor is not a known convention, or shows a known bug.
EXIT_PROBLEM = 1
#: A usage error, or a file or tensor that cannot be read.
EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sinpe", description="Tools of the sinpe book on the sinusoidal positional encoding."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    inspect = commands.add_parser(
        "inspect",
        help="say which positional encoding a model holds, and what is wrong with it",
        description=(
            "Inspect a model's positional encoding: its config.json (rope_theta, "
            "rope_scaling or rope_parameters, computed as transformers computes them), "
            "params.json, GGUF metadata, and its position tensors (sinusoidal tables, "
            "RoPE inv_freq, ALiBi slopes), each checked against the config. Local files "
            "only, headers and metadata only. Exit 0: known and consistent; 1: a "
            "problem; 2: bad input."
        ),
        epilog=f"PATH: a model folder, config.json, params.json, *.index.json, *.gguf, "
        f"or a tensor file ({', '.join(FORMATS)}; .safetensors needs pip install "
        f"'sinpe[files]'; PyTorch files need torch).",
    )
    inspect.add_argument(
        "path", metavar="PATH", help="a model folder, a config, a GGUF or a tensor file"
    )
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


def inspect_path(path: str, key: str | None = None) -> Report:
    """Everything ``sinpe inspect PATH`` finds, as a :class:`~sinpe.checkpoint.findings.Report`.

    The encodings the configs and GGUF metadata declare come first, then one per
    position tensor (or the ``key`` tensor), each checked against the declared RoPE. A
    path that cannot be read, or holds nothing about positions, raises
    :class:`~sinpe.checkpoint.files.CheckpointError`.
    """
    if key is not None:
        findings, _ = inspect_file(path, key)
        report = Report(str(path), read=[str(path)])
        for finding in findings:
            _add_tensor(report, finding)
        return report
    model = read_model(path)
    report = Report(str(path), read=list(model.read))
    analyses: list[tuple[str, Callable[[], list[Encoding]]]] = []
    if model.config is not None:
        analyses.append(("config.json", partial(config_encodings, model.config)))
    if model.params is not None:
        analyses.append(("params.json", partial(params_encodings, model.params)))
    if model.gguf is not None:
        found = model.gguf
        analyses.append(("the GGUF metadata", partial(gguf_encodings, found.metadata, found.infos)))
    for source, analyse in analyses:
        try:
            report.encodings += analyse()
        except CheckpointError:
            raise
        except (TypeError, ValueError, KeyError, ArithmeticError, AttributeError) as error:
            # a value of the wrong kind somewhere in a hostile file: a message, not a traceback
            raise CheckpointError(
                f"{source} holds a position setting sinpe cannot read: "
                f"{type(error).__name__}: {error}"
            ) from None
    declared = list(report.encodings)
    if not declared and not model.tensors:
        raise CheckpointError(
            f"nothing in {path} is about positions: no config and no tensor whose name "
            f"says position ({model.tensor_count} tensors listed)"
        )
    for name, stored in model.tensors.items():
        try:
            report.encodings.append(tensor_encoding(stored, declared))
        except (ValueError, TypeError, ArithmeticError, MemoryError) as error:
            report.unreadable.append(f"{name}: {error or type(error).__name__}")
    return report


def _add_tensor(report: Report, finding: Finding | str) -> None:
    if isinstance(finding, str):
        report.unreadable.append(finding)
        return
    kinds = {"table": "sinusoidal", "rope": "rope", "alibi": "alibi"}
    kind = kinds.get(finding.kind, "unknown") if finding.verdict != "unknown" else "unknown"
    problems = [] if finding.verdict == "ok" else [finding.summary]
    report.encodings.append(
        Encoding(
            finding.name,
            kind,
            summary=finding.summary,
            base=finding.details.get("base"),
            problems=problems,
            details={"tensor": finding.as_dict()},
        )
    )


def _block(finding: Finding | str) -> str:
    if isinstance(finding, str):
        return f"{finding}\n  verdict: cannot inspect (exit 2)"
    shape = " x ".join(str(n) for n in finding.shape)
    verdict = {"ok": "known convention", "bug": "KNOWN BUG", "unknown": "NOT a known convention"}
    lines = [f"{finding.name}  ({shape}, {finding.dtype}, {finding.kind})"]
    found = finding.details
    if "conventions" in found:  # a table of known conventions: one line per finding
        same = " (the same table)" if len(found["conventions"]) > 1 else ""
        lines += [
            f"  convention: {', '.join(found['conventions'])}{same}",
            f"  base {found['base']:g}, {found['spacing']} spacing, {found['layout']} layout",
            f"  first position: {found['first_position']}",
            f"  precision: within {found['max_ulp']:.3g} ULP of {finding.dtype} of the exact "
            f"table (computed in {found['computed_in']})",
        ]
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


def _config_block(encoding: Encoding) -> str:
    lines = [f"{encoding.source}: {encoding.summary}"]
    steps = encoding.ladder
    if steps is not None:
        factor = encoding.scaling.factor if encoding.scaling and encoding.scaling.factor else None
        parts = [
            f"{steps.pairs} pairs",
            f"wavelengths {steps.fastest_wavelength:.3g} to {steps.slowest_wavelength:.3g} tokens",
            f"{steps.kept} kept",
        ]
        if factor is not None and factor != 1:
            parts.append(f"{steps.stretched} stretched \N{MULTIPLICATION SIGN}{factor:g}")
            parts.append(f"{steps.blended} blended")
        if steps.still:
            parts.append(f"{steps.still} not turning")
        if steps.target_context:
            parts.append(f"targets {steps.target_context} tokens")
        lines.append(f"  ladder: {', '.join(parts)}")
    if encoding.context is not None:
        lines.append(f"  context: {encoding.context} positions")
    lines += [f"  note: {note}" for note in encoding.notes]
    lines += [f"  PROBLEM: {problem}" for problem in encoding.problems]
    return "\n".join(lines)


def _report_summary(report: Report) -> str:
    kinds = Counter(encoding.kind for encoding in report.encodings)
    count = len(report.encodings)
    parts = [f"{count} encoding{'s' if count != 1 else ''}"]
    parts.append(", ".join(f"{n} {kind}" for kind, n in kinds.items()) or "none")
    problems = sum(len(e.problems) for e in report.encodings)
    parts.append(f"{problems} problem{'s' if problems != 1 else ''}")
    if report.unreadable:
        parts.append(f"{len(report.unreadable)} unreadable")
    return f"{'; '.join(parts)} (exit {report.exit_code})"


def _print_report(report: Report) -> None:
    print(f"{report.path}:")
    if len(report.read) > 1 or Path(report.path).is_dir():
        print(f"  read: {', '.join(report.read)}")
    tensors_only = all("tensor" in e.details for e in report.encodings)
    findings: list[Finding | str] = []
    for encoding in report.encodings:
        if "tensor" not in encoding.details:
            print(_config_block(encoding))
            continue
        findings.append(_as_finding(encoding))
        print(_block(findings[-1]))
        if not tensors_only:  # checked against the config
            lines = [f"  PROBLEM: {p}" for p in encoding.problems]
            print("\n".join(lines or [f"  against the config: {encoding.summary}"]))
    findings += report.unreadable
    for message in report.unreadable:
        print(_block(message))
    if tensors_only:
        print(_summary(findings, report.exit_code))
    else:
        print(_report_summary(report))


def _as_finding(encoding: Encoding) -> Finding:
    stored = dict(encoding.details["tensor"])
    fixed = {k: stored.pop(k) for k in ("name", "shape", "dtype", "kind", "verdict", "summary")}
    fixed["shape"] = tuple(fixed["shape"])
    return Finding(**fixed, details=stored)


def _json_ready(value: object) -> object:
    tolist = getattr(value, "tolist", None)  # a NumPy array or scalar
    if callable(tolist):
        return tolist()
    raise TypeError(f"not JSON: {type(value).__name__}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sinpe`` with ``argv`` (default: the command line); return the exit status."""
    parser = _parser()
    arguments = parser.parse_args(argv)  # exits 2 on a usage error
    try:
        report = inspect_path(arguments.path, arguments.key)
    except CheckpointError as error:
        message = " ".join(str(error).split())
        if arguments.json:
            print(json.dumps({"file": arguments.path, "error": message, "exit": 2}, indent=2))
        print(f"sinpe inspect: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if arguments.json:
            _print_json(report)
        else:
            _print_report(report)
        sys.stdout.flush()
    except BrokenPipeError:  # `sinpe inspect ... | head`: the reader stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return report.exit_code


def _print_json(report: Report) -> None:
    found = report.as_dict()
    for entry in found["encodings"]:
        entry.pop("inv_freq", None)
    found["tensors"] = [e.details["tensor"] for e in report.encodings if "tensor" in e.details]
    found["tensors"] += [{"error": message} for message in report.unreadable]
    print(json.dumps(found, indent=2, default=_json_ready))
