"""Reading what a PATH holds about positions: a model folder, a config, a GGUF or tensor file.

:func:`read_model` is the one reader ``sinpe inspect`` calls. A PATH may be

* a model folder: ``config.json`` (Hugging Face), ``params.json`` (Meta), the
  ``*.safetensors`` shards (or ``model.safetensors.index.json`` naming them), ``*.gguf``
  files, or any tensor file of :data:`sinpe.checkpoint.files.FORMATS`;
* one ``config.json`` / ``params.json`` / ``*.index.json``, one ``.gguf`` file, or one
  tensor file.

Only headers and metadata are read: a shard's JSON header, a GGUF's metadata and
tensor index; of the tensors, the position tensors alone are kept (their values read
later, memory-mapped). With an index, only the shards holding position tensors are
opened, after every shard it names is found. Nothing goes to the network: a Hugging
Face id that is not a local path is refused with a message saying so. Every failure is
a :class:`~sinpe.checkpoint.files.CheckpointError`.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sinpe.checkpoint.files import FORMATS, CheckpointError, StoredTensor, open_tensors
from sinpe.checkpoint.gguf import GGUF, read_gguf

__all__ = [
    "CONFIG_NAMES",
    "POSITION_NAME",
    "SHIPPED_CONFIGS",
    "Model",
    "position_names",
    "read_model",
]

#: The config files read, by name.
CONFIG_NAMES = ("config.json", "params.json")
#: A tensor name that says "position" (matched anywhere in the name, case-insensitive).
POSITION_NAME = re.compile(
    r"(?i)(position|wpe|(^|[._/])pos(_|[._/]|$)|pos_emb|inv_freq|rotary|alibi|slopes|"
    r"timing_signal|sinusoid|(^|[._/])rope[._]freqs|rope_factors)"
)
#: The longest config file read (a config is a few kB; longrope's lists are the largest).
_MAX_CONFIG = 16 * 2**20
#: A name shaped like a Hugging Face id (``org/model``), for the message about the network.
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass
class Model:
    """What :func:`read_model` found: the configs (parsed JSON), the GGUF file, the
    position tensors (by name, unread) and the files read, in order."""

    path: Path
    config: dict | None = None
    params: dict | None = None
    gguf: GGUF | None = None
    tensors: dict[str, StoredTensor] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)
    tensor_count: int = 0


def position_names(names: Iterable[str]) -> list[str]:
    """The names among ``names`` that :data:`POSITION_NAME` matches, in order."""
    return [name for name in names if POSITION_NAME.search(name)]


def _encodes(stored: StoredTensor) -> bool:
    """Floating values, more than one: not a ``position_ids`` buffer, not a scalar."""
    return stored.floating and math.prod(stored.shape) > 1


def read_model(path: str | os.PathLike) -> Model:
    """Read the configs, GGUF metadata and position tensors at ``path`` (module docstring).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from sinpe.checkpoint.models import read_model
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "config.json").write_text(json.dumps({"model_type": "llama"}))
    >>> model = read_model(folder)
    >>> model.config, model.read
    ({'model_type': 'llama'}, ['config.json'])
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file or folder name (str or pathlib.Path), got {path!r}")
    where = Path(path)
    try:
        exists = where.exists()
    except (OSError, ValueError) as error:
        raise CheckpointError(f"cannot open {str(path)!r}: {error}") from None
    if not exists:
        hub = _HUB_ID.match(str(path)) and not str(path).startswith(("./", "../"))
        if hub:
            raise CheckpointError(
                f"no such file or folder: {where}. It looks like a Hugging Face id: sinpe "
                f"inspect reads local files only, never the network; download it first "
                f"(huggingface-cli download {path} --include '*.json' '*.safetensors') and "
                f"pass the folder"
            )
        raise CheckpointError(f"no such file: {where}")
    model = Model(where)
    if where.is_dir():
        _read_folder(where, model)
    else:
        _read_file(where, model)
    return model


def _read_folder(folder: Path, model: Model) -> None:
    try:
        names = sorted(p.name for p in folder.iterdir() if p.is_file())
    except OSError as error:
        raise CheckpointError(f"cannot list {folder}: {error}") from None
    configs = [n for n in CONFIG_NAMES if n in names]
    indexes = [n for n in names if n.endswith(".safetensors.index.json")]
    ggufs = [n for n in names if n.lower().endswith(".gguf")]
    tensors = [n for n in names if Path(n).suffix.lower() in FORMATS]
    if not (configs or indexes or ggufs or tensors):
        raise CheckpointError(
            f"{folder} holds no config.json, params.json, *.safetensors, "
            f"*.safetensors.index.json, *.gguf or tensor file: nothing to inspect"
        )
    for name in configs:
        _read_config(folder / name, model)
    for name in indexes:
        _read_index(folder / name, model)
    for name in ggufs:
        _read_gguf(folder / name, model)
    if not indexes:
        for name in tensors:
            _read_tensors(folder / name, model)


def _read_file(where: Path, model: Model) -> None:
    name = where.name
    if name.endswith(".index.json"):
        _read_index(where, model)
    elif name.lower().endswith(".json"):
        _read_config(where, model)
    elif name.lower().endswith(".gguf"):
        _read_gguf(where, model)
    else:
        _read_tensors(where, model, every=True)


def _load_json(where: Path) -> dict:
    try:
        size = where.stat().st_size
        if size > _MAX_CONFIG:
            raise CheckpointError(f"{where.name} has {size} bytes: too large for a config file")
        text = where.read_bytes()
    except OSError as error:
        raise CheckpointError(f"cannot read {where.name}: {error}") from None
    try:
        value = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise CheckpointError(f"{where.name} is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise CheckpointError(f"{where.name} is not a JSON object (got {type(value).__name__})")
    return value


def _read_config(where: Path, model: Model) -> None:
    value = _load_json(where)
    meta = where.name == "params.json" or ("dim" in value and "n_heads" in value)
    if meta:
        model.params = value
    else:
        model.config = value
    model.read.append(where.name)


def _read_index(where: Path, model: Model) -> None:
    index = _load_json(where)
    weight_map = index.get("weight_map")
    if not isinstance(weight_map, dict) or not all(
        isinstance(shard, str) for shard in weight_map.values()
    ):
        raise CheckpointError(f"{where.name} has no weight_map of tensor names to shard files")
    model.read.append(where.name)
    shards = list(dict.fromkeys(weight_map.values()))
    missing = [s for s in shards if Path(s).name != s or not (where.parent / s).is_file()]
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise CheckpointError(
            f"{where.name} names {len(missing)} shard(s) not in {where.parent}: {shown}"
        )
    model.tensor_count += len(weight_map)
    wanted = position_names(weight_map)
    for shard in dict.fromkeys(weight_map[name] for name in wanted):
        tensors = open_tensors(where.parent / shard)
        model.read.append(shard)
        for name in wanted:
            if weight_map[name] == shard:
                if name not in tensors:
                    raise CheckpointError(f"{where.name} puts {name!r} in {shard}, which lacks it")
                if _encodes(tensors[name]):
                    model.tensors[name] = tensors[name]


def _read_gguf(where: Path, model: Model) -> None:
    if model.gguf is not None:
        raise CheckpointError(
            f"{where.parent} holds more than one GGUF file: pass the one to inspect"
        )
    found = read_gguf(where)
    model.gguf = found
    model.read.append(where.name)
    model.tensor_count += len(found.infos)
    stored = found.tensors()
    for name in position_names(stored):
        if _encodes(stored[name]):
            model.tensors[name] = stored[name]


def _read_tensors(where: Path, model: Model, *, every: bool = False) -> None:
    tensors = open_tensors(where)
    model.read.append(where.name)
    model.tensor_count += len(tensors)
    names = [name for name in position_names(tensors) if _encodes(tensors[name])]
    if every and not names:
        if len(tensors) != 1:
            raise CheckpointError(
                f"no tensor of {where} has a name that says position; pass --key NAME "
                f"({_keys(tensors)})"
            )
        names = list(tensors)  # a lone tensor (.npy) is inspected whatever its name
    for name in names:
        model.tensors[name] = tensors[name]


#: Keys listed in a message about a missing key, at most.
LISTED_KEYS = 20


def _keys(tensors: dict) -> str:
    names = list(tensors)
    shown = ", ".join(names[:LISTED_KEYS])
    more = f" and {len(names) - LISTED_KEYS} more" if len(names) > LISTED_KEYS else ""
    return f"the file holds: {shown}{more}" if names else "the file holds no tensor"


#: The real ``config.json`` files shipped with sinpe, one folder per model with a
#: ``SOURCE.txt`` naming its public source and its quality (V verified against the Hub,
#: C vendored copy, R re-saved by transformers, M modified, P converted from a dict).
SHIPPED_CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"
