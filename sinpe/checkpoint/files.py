"""Reading the tensors of a checkpoint file lazily: NumPy, safetensors and PyTorch files.

:func:`open_tensors` lists the tensors of one file -- name, shape, dtype -- without
reading their values; each :class:`StoredTensor` reads its own values when asked
(:meth:`StoredTensor.read`), memory-mapped wherever the format allows, so a table
larger than memory is read in blocks by whatever inspects it, never loaded whole.

* ``.npy`` and ``.npz`` (NumPy): memory-mapped (an ``.npz`` member saved with
  ``np.savez`` is mapped inside the archive; one saved with ``np.savez_compressed``
  has to be decompressed, and is read whole). Object arrays are refused: nothing
  is unpickled.
* ``.safetensors``: the header (JSON) is read and checked here; a tensor of up to
  :data:`MAPPED_FROM` bytes is read by the ``safetensors`` package's NumPy API
  (``safe_open``), a larger one memory-mapped over its byte range. Needs the
  ``files`` extra: ``pip install 'sinpe[files]'``.
* ``.pt``, ``.pth``, ``.bin`` (PyTorch state dicts): ``torch.load(path,
  weights_only=True)``, which unpickles tensors and plain containers only, never
  arbitrary objects. Needs PyTorch, which sinpe does not install.

Every failure -- a missing file, a directory, a truncated or corrupt file, an
unknown format, a missing package -- is a :class:`CheckpointError` whose message
says what was wrong and what to do. Used by ``sinpe inspect`` (:mod:`sinpe.checkpoint.cli`).
NumPy only (the other packages are imported when a file needs them).
"""

from __future__ import annotations

import json
import math
import os
import struct
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

import numpy as np

__all__ = ["FORMATS", "MAPPED_FROM", "CheckpointError", "StoredTensor", "open_tensors"]

#: The file suffixes read, and the format of each.
FORMATS = {
    ".npy": "NumPy",
    ".npz": "NumPy",
    ".safetensors": "safetensors",
    ".pt": "PyTorch",
    ".pth": "PyTorch",
    ".bin": "PyTorch",
}

#: Bytes above which a safetensors tensor is memory-mapped, not read by ``safe_open``.
MAPPED_FROM = 64 * 2**20

#: safetensors dtypes, as NumPy dtypes (little-endian); BF16 is read as uint16 and widened.
_SAFETENSORS_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "BF16": "<u2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U64": "<u8",
    "U32": "<u4",
    "U16": "<u2",
    "U8": "u1",
    "BOOL": "?",
}

#: The longest safetensors header accepted (the format's own limit is 100 MB).
_MAX_HEADER = 100_000_000


class CheckpointError(ValueError):
    """A file that cannot be read as a checkpoint; the message says why and what to do."""


@dataclass(frozen=True)
class StoredTensor:
    """One tensor of a checkpoint file, not yet read.

    Attributes ``name`` (its key in the file; the file name for ``.npy``),
    ``shape``, ``dtype`` as stored (``"float32"``, ``"bfloat16"``, ...) and
    ``loader``, which returns its values: use :meth:`read`.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    loader: Callable[[], np.ndarray]

    @property
    def floating(self) -> bool:
        """Whether the values are real floating-point numbers (``float*`` or ``bfloat16``)."""
        return self.dtype.startswith(("float", "bfloat"))

    def read(self) -> np.ndarray:
        """The values: a memory-mapped array where the format allows, else in memory.

        bfloat16 comes back as float32 (every bfloat16 value is one). Bytes that
        cannot be read raise :class:`CheckpointError`.
        """
        try:
            return self.loader()
        except CheckpointError:
            raise
        except MemoryError:
            raise CheckpointError(
                f"tensor {self.name!r} does not fit in memory: it cannot be mapped from its "
                f"file (a compressed .npz member, bfloat16, a PyTorch file); save it with "
                f"np.savez or as float32 .safetensors, which are read in blocks"
            ) from None
        except (OSError, ValueError, TypeError, EOFError, RuntimeError) as error:
            raise CheckpointError(f"cannot read tensor {self.name!r}: {error}") from None


def open_tensors(path: str | Path) -> dict[str, StoredTensor]:
    """The tensors of a checkpoint file, by name, in the file's order, none of them read.

    ``path`` has a suffix of :data:`FORMATS`. A ``.npy`` file holds one tensor,
    named after the file; PyTorch state dicts nested in dicts
    (``{"model": {...}}``) are flattened with dots. Every failure is a
    :class:`CheckpointError` (module docstring).

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> from sinpe.checkpoint.files import open_tensors
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> np.savez(folder / "model.npz", wpe=np.zeros((4, 2), np.float32))
    >>> tensors = open_tensors(folder / "model.npz")
    >>> tensors["wpe"].shape, tensors["wpe"].dtype
    ((4, 2), 'float32')
    >>> type(tensors["wpe"].read()).__name__   # mapped, not loaded
    'memmap'
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file name (str or pathlib.Path), got {path!r}")
    where = Path(path)
    try:
        exists = where.exists()
    except (OSError, ValueError) as error:  # an embedded NUL, a name too long
        raise CheckpointError(f"cannot open {path!r}: {error}") from None
    if not exists:
        raise CheckpointError(f"no such file: {where}")
    if where.is_dir():
        found = sorted(p.name for p in where.iterdir() if p.suffix.lower() in FORMATS)
        hint = f"; it holds {', '.join(found[:8])}" if found else ""
        raise CheckpointError(f"{where} is a directory: pass one checkpoint file{hint}")
    suffix = where.suffix.lower()
    if suffix not in FORMATS:
        known = ", ".join(FORMATS)
        raise CheckpointError(
            f"unknown format {suffix or '(no suffix)'!r} of {where.name}: "
            f"sinpe inspect reads {known}"
        )
    readers = {".npy": _open_npy, ".npz": _open_npz, ".safetensors": _open_safetensors}
    reader = readers.get(suffix, _open_torch)
    try:
        return reader(where)
    except CheckpointError:
        raise
    except (OSError, ValueError, EOFError, KeyError, struct.error, zipfile.BadZipFile) as error:
        raise CheckpointError(
            f"cannot read {where.name} as a {FORMATS[suffix]} file (truncated or corrupt?): {error}"
        ) from None


# --- NumPy ------------------------------------------------------------------------------


def _open_npy(path: Path) -> dict[str, StoredTensor]:
    with path.open("rb") as handle:
        shape, fortran, dtype, offset = _npy_header(handle, path.name)
    _check_length(path, offset, shape, dtype)
    order: Literal["C", "F"] = "F" if fortran else "C"

    def load() -> np.ndarray:
        if math.prod(shape) == 0:
            return np.empty(shape, dtype=dtype, order=order)
        return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)

    return {path.stem: StoredTensor(path.stem, shape, dtype.name, load)}


def _npy_header(handle: IO[bytes], where: str) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """(shape, fortran_order, dtype, offset of the data) of the .npy stream at ``handle``."""
    start = handle.tell()
    version = np.lib.format.read_magic(handle)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
    if dtype.hasobject:
        raise CheckpointError(
            f"{where} holds Python objects (dtype {dtype}), not numbers: not read "
            f"(sinpe never unpickles a file)"
        )
    return tuple(shape), fortran, dtype, handle.tell() - start


def _check_length(path: Path, offset: int, shape: tuple[int, ...], dtype: np.dtype) -> None:
    needed = offset + math.prod(shape) * np.dtype(dtype).itemsize
    size = path.stat().st_size
    if size < needed:
        raise CheckpointError(
            f"{path.name} is truncated: its header promises {needed} bytes, the file has {size}"
        )


def _open_npz(path: Path) -> dict[str, StoredTensor]:
    tensors: dict[str, StoredTensor] = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                continue
            name = info.filename[: -len(".npy")]
            with archive.open(info) as member:
                shape, fortran, dtype, header = _npy_header(member, f"{path.name}[{name}]")
            tensors[name] = StoredTensor(
                name, shape, dtype.name, _npz_loader(path, info, shape, fortran, dtype, header)
            )
    return tensors


def _npz_loader(
    path: Path,
    info: zipfile.ZipInfo,
    shape: tuple[int, ...],
    fortran: bool,
    dtype: np.dtype,
    header: int,
) -> Callable[[], np.ndarray]:
    """Maps a stored member in place; decompresses a compressed one."""
    order: Literal["C", "F"] = "F" if fortran else "C"

    def load() -> np.ndarray:
        if info.compress_type == zipfile.ZIP_STORED and math.prod(shape) != 0:
            with path.open("rb") as handle:
                handle.seek(info.header_offset)
                local = handle.read(30)
                if len(local) < 30 or local[:4] != b"PK\x03\x04":
                    raise CheckpointError(f"{path.name}: a corrupt zip entry {info.filename!r}")
                name_length, extra_length = struct.unpack("<HH", local[26:30])
            start = info.header_offset + 30 + name_length + extra_length + header
            _check_length(path, start, shape, dtype)
            return np.memmap(path, dtype=dtype, mode="r", offset=start, shape=shape, order=order)
        with zipfile.ZipFile(path) as archive, archive.open(info) as member:
            return np.lib.format.read_array(member, allow_pickle=False)

    return load


# --- safetensors ------------------------------------------------------------------------


def _open_safetensors(path: Path) -> dict[str, StoredTensor]:
    try:
        from safetensors import safe_open
    except ModuleNotFoundError:
        raise CheckpointError(
            "reading .safetensors files needs the safetensors package: pip install 'sinpe[files]'"
        ) from None
    header, start = _safetensors_header(path)
    size = path.stat().st_size
    tensors: dict[str, StoredTensor] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        tensors[name] = _safetensors_entry(path, name, entry, start, size, safe_open)
    try:  # the package's own check of the whole header
        with safe_open(str(path), framework="numpy"):
            pass
    except Exception as error:  # SafetensorError is not exported under a stable name
        raise CheckpointError(f"{path.name} is not a valid safetensors file: {error}") from None
    return tensors


def _safetensors_header(path: Path) -> tuple[dict[str, Any], int]:
    """The JSON header and the offset where the data begin."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        prefix = handle.read(8)
        if len(prefix) < 8:
            raise CheckpointError(f"{path.name} is truncated: {size} bytes, no safetensors header")
        (length,) = struct.unpack("<Q", prefix)
        if length > min(_MAX_HEADER, size - 8):
            raise CheckpointError(
                f"{path.name} is truncated or not a safetensors file: its header length "
                f"({length} bytes) exceeds the file ({size} bytes)"
            )
        text = handle.read(length)
    try:
        header = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"{path.name} has a corrupt safetensors header: {error}") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path.name} has a corrupt safetensors header: not a JSON object")
    return header, 8 + length


def _safetensors_entry(
    path: Path,
    name: str,
    entry: Any,  # a JSON value of the header, checked here
    start: int,
    size: int,
    safe_open: Callable[..., Any],  # safetensors ships no type information
) -> StoredTensor:
    try:
        code, shape = entry["dtype"], tuple(int(n) for n in entry["shape"])
        begin, end = (int(n) for n in entry["data_offsets"])
    except (KeyError, TypeError, ValueError):
        raise CheckpointError(f"{path.name}: a corrupt header entry for {name!r}") from None
    if code not in _SAFETENSORS_DTYPES:  # float8, float4, complex ...: listed, never read

        def refuse() -> np.ndarray:
            raise CheckpointError(f"tensor {name!r} has dtype {code}, which sinpe does not read")

        return StoredTensor(name, shape, code, refuse)
    dtype = np.dtype(_SAFETENSORS_DTYPES[code])
    if end - begin != math.prod(shape) * dtype.itemsize or begin < 0 or min(shape, default=0) < 0:
        raise CheckpointError(f"{path.name}: the byte range of {name!r} does not fit its shape")
    if start + end > size:
        raise CheckpointError(
            f"{path.name} is truncated: tensor {name!r} ends at byte {start + end}, "
            f"the file has {size}"
        )
    shown = "bfloat16" if code == "BF16" else dtype.name

    def load() -> np.ndarray:
        if code == "BF16":
            raw = np.memmap(path, dtype=dtype, mode="r", offset=start + begin, shape=shape)
            return (raw.astype(np.uint32) << 16).view(np.float32)
        if end - begin > MAPPED_FROM:
            return np.memmap(path, dtype=dtype, mode="r", offset=start + begin, shape=shape)
        with safe_open(str(path), framework="numpy") as opened:
            return opened.get_tensor(name)

    return StoredTensor(name, shape, shown, load)


# --- PyTorch ----------------------------------------------------------------------------


def _open_torch(path: Path) -> dict[str, StoredTensor]:
    try:
        import torch
    except ModuleNotFoundError:
        raise CheckpointError(
            f"reading PyTorch files ({', '.join(s for s, f in FORMATS.items() if f == 'PyTorch')}) "
            f"needs PyTorch, which sinpe does not install: pip install torch; or save the "
            f"tensors with safetensors and pip install 'sinpe[files]'"
        ) from None
    try:
        try:
            state = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except (RuntimeError, TypeError) as error:  # legacy format, or torch < 2.1: not mapped
            if "mmap" not in str(error):
                raise
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises UnpicklingError, RuntimeError, EOFError, ...
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        refused = [line for line in lines if "WeightsUnpickler error" in line]
        reason = (refused or lines or [type(error).__name__])[0]
        raise CheckpointError(
            f"cannot read {path.name} as a PyTorch state dict with weights_only=True "
            f"(truncated, corrupt, or holding objects other than tensors, which are never "
            f"unpickled): {reason}"
        ) from None
    found: dict[str, object] = {}
    _flatten(state, "", found, torch.Tensor)
    if not found:
        raise CheckpointError(f"{path.name} holds no tensors")
    return {name: _torch_entry(name, tensor) for name, tensor in found.items()}


def _flatten(value: object, prefix: str, found: dict[str, object], tensor_type: type) -> None:
    if isinstance(value, tensor_type):
        found[prefix or "tensor"] = value
    elif isinstance(value, dict | list | tuple):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), found, tensor_type)


def _torch_entry(name: str, tensor: Any) -> StoredTensor:  # torch: untyped here
    shown = str(tensor.dtype).removeprefix("torch.")

    def load() -> np.ndarray:
        values = tensor.detach()
        if shown == "bfloat16":
            values = values.float()
        return values.numpy()

    return StoredTensor(name, tuple(tensor.shape), shown, load)
