"""Reading a GGUF file's header, metadata and tensor index, and its small position tensors.

GGUF (ggml's ``docs/gguf.md``) is one file: the magic ``GGUF``, a version (2 or 3),
the tensor and key counts, the metadata key-value pairs, the tensor infos (name, shape
in ggml order, type, offset), then the aligned tensor data. :func:`read_gguf` walks the
first three over a memory map of the file and returns a :class:`GGUF`; no tensor data
are read until a :class:`~sinpe.checkpoint.files.StoredTensor` of
:meth:`GGUF.tensors` is asked (``rope_freqs.weight`` and the like: memory-mapped).

This reader is sinpe's own, not llama.cpp's ``gguf`` package (the tests write their
files with that package, and read them with both): a file is hostile until shown
otherwise, so every length is checked against the bytes left *before* anything is
allocated or sliced (a metadata array claiming 2**40 entries is an error, not a
2**40-element list), strings are decoded only for the keys kept, arrays longer than
:data:`KEPT_ARRAY` (the tokenizer's vocabulary) are skipped over and kept as their type
and length, and nothing beyond the tensor index is touched: a 40 GB file costs what
its metadata cost. Every failure is a :class:`~sinpe.checkpoint.files.CheckpointError`.
NumPy and the standard library only.
"""

from __future__ import annotations

import math
import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from sinpe.checkpoint.files import CheckpointError, StoredTensor

__all__ = ["GGML_TYPES", "GGUF", "KEPT_ARRAY", "GGUFArray", "read_gguf"]

#: Arrays longer than this are kept as :class:`GGUFArray` (type and length), not read.
KEPT_ARRAY = 4096
#: The versions read (version 1 used 32-bit lengths and is not read).
_VERSIONS = (2, 3)
#: GGML_MAX_DIMS: a tensor has at most 4 dimensions.
_MAX_DIMS = 4
#: Metadata value types of the spec: (struct code, size); 8 is a string, 9 an array.
_SCALARS = {
    0: ("<B", 1),
    1: ("<b", 1),
    2: ("<H", 2),
    3: ("<h", 2),
    4: ("<I", 4),
    5: ("<i", 4),
    6: ("<f", 4),
    7: ("<?", 1),
    10: ("<Q", 8),
    11: ("<q", 8),
    12: ("<d", 8),
}
_STRING, _ARRAY = 8, 9
_LENGTH = struct.Struct("<Q")
#: ggml tensor types: name, elements per block, bytes per block (gguf-py's GGML_QUANT_SIZES);
#: the NumPy dtype of the types sinpe reads.
GGML_TYPES = {
    0: ("F32", 1, 4),
    1: ("F16", 1, 2),
    2: ("Q4_0", 32, 18),
    3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22),
    7: ("Q5_1", 32, 24),
    8: ("Q8_0", 32, 34),
    9: ("Q8_1", 32, 40),
    10: ("Q2_K", 256, 84),
    11: ("Q3_K", 256, 110),
    12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176),
    14: ("Q6_K", 256, 210),
    15: ("Q8_K", 256, 292),
    24: ("I8", 1, 1),
    25: ("I16", 1, 2),
    26: ("I32", 1, 4),
    27: ("I64", 1, 8),
    28: ("F64", 1, 8),
    30: ("BF16", 1, 2),
}
_READ_AS = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "BF16": "<u2"}
_SHOWN = {"F32": "float32", "F16": "float16", "F64": "float64", "BF16": "bfloat16"}
_DEFAULT_ALIGNMENT = 32


@dataclass(frozen=True)
class GGUFArray:
    """A metadata array too long to keep (a vocabulary): its element type and length."""

    type: int
    length: int


#: A metadata value as read: a number, a string, a short array as a list, a long one.
GGUFValue: TypeAlias = "int | float | bool | str | list[int | float | bool] | list[str] | GGUFArray"


@dataclass(frozen=True)
class _TensorInfo:
    name: str
    shape: tuple[int, ...]  # NumPy order (the reverse of ggml's ne)
    type: str
    offset: int  # from the start of the data section
    nbytes: int | None  # None for a type of unknown size


@dataclass
class GGUF:
    """What :func:`read_gguf` found: ``version``, ``metadata`` (key -> value, in the
    file's order), the tensor index and where the data begin."""

    path: Path
    version: int
    metadata: dict[str, GGUFValue] = field(default_factory=dict)
    infos: dict[str, _TensorInfo] = field(default_factory=dict)
    data_start: int = 0
    size: int = 0

    @property
    def architecture(self) -> str | None:
        value = self.metadata.get("general.architecture")
        return value if isinstance(value, str) else None

    def tensors(self) -> dict[str, StoredTensor]:
        """Every tensor of the index as a StoredTensor (F32, F16, BF16, F64 readable)."""
        return {name: self._stored(info) for name, info in self.infos.items()}

    def _stored(self, info: _TensorInfo) -> StoredTensor:
        where, start = self.path, self.data_start + info.offset
        if info.type not in _READ_AS:

            def refuse() -> np.ndarray:
                raise CheckpointError(
                    f"tensor {info.name!r} is stored as {info.type}, which sinpe does not read"
                )

            return StoredTensor(info.name, info.shape, info.type, refuse)
        if start + (info.nbytes or 0) > self.size:
            raise CheckpointError(
                f"{where.name} is truncated: tensor {info.name!r} ends at byte "
                f"{start + (info.nbytes or 0)}, the file has {self.size}"
            )
        dtype = np.dtype(_READ_AS[info.type])

        def load() -> np.ndarray:
            if not math.prod(info.shape):
                return np.empty(info.shape, dtype=dtype)
            raw = np.memmap(where, dtype=dtype, mode="r", offset=start, shape=info.shape)
            if info.type == "BF16":
                return (raw.astype(np.uint32) << 16).view(np.float32)
            return raw

        return StoredTensor(info.name, info.shape, _SHOWN[info.type], load)


class _Cursor:
    """Reads little-endian values from a buffer, checking every length first."""

    def __init__(self, buffer: bytes | mmap.mmap, name: str) -> None:
        self.buffer, self.at, self.name = buffer, 0, name
        self.size = len(buffer)

    def need(self, count: int, what: str) -> None:
        if count < 0 or self.at + count > self.size:
            raise CheckpointError(
                f"{self.name} is truncated or corrupt: {what} at byte {self.at} needs "
                f"{count} bytes, {self.size - self.at} are left"
            )

    def scalar(self, code: str, size: int, what: str) -> Any:
        self.need(size, what)
        (value,) = struct.unpack_from(code, self.buffer, self.at)
        self.at += size
        return value

    def skip_strings(self, count: int, key: str) -> None:
        """Step over ``count`` strings (a vocabulary) without decoding them."""
        unpack, at, size = _LENGTH.unpack_from, self.at, self.size
        for _ in range(count):
            if at + 8 > size:
                break
            at += 8 + unpack(self.buffer, at)[0]
        else:
            if at <= size:
                self.at = at
                return
        self.at = min(at, size)
        raise CheckpointError(
            f"{self.name} is truncated or corrupt: the strings of {key!r} run past the "
            f"end of the file ({size} bytes)"
        )

    def string(self, what: str) -> str:
        length = self.scalar("<Q", 8, what)
        self.need(length, f"{what} ({length} bytes)")
        start, self.at = self.at, self.at + length
        try:
            return bytes(self.buffer[start : self.at]).decode("utf-8")
        except UnicodeDecodeError:
            raise CheckpointError(f"{self.name}: {what} is not UTF-8") from None


def read_gguf(path: str | Path) -> GGUF:
    """The header, metadata and tensor index of the GGUF file ``path`` (module docstring).

    Examples
    --------
    >>> import pathlib, struct, tempfile
    >>> from sinpe.checkpoint.gguf import read_gguf
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.gguf"
    >>> key, value = b"general.architecture", b"llama"
    >>> path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1)
    ...     + struct.pack("<Q", len(key)) + key + struct.pack("<IQ", 8, len(value)) + value)
    69
    >>> read_gguf(path).architecture
    'llama'
    """
    where = Path(path)
    try:
        with where.open("rb") as handle:
            size = where.stat().st_size
            if size < 24:
                raise CheckpointError(
                    f"{where.name} is not a GGUF file: {size} bytes, shorter than a GGUF header"
                )
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                return _parse(mapped, where, size)
    except OSError as error:
        raise CheckpointError(f"cannot read {where.name}: {error}") from None


def _parse(mapped: mmap.mmap, where: Path, size: int) -> GGUF:
    cursor = _Cursor(mapped, where.name)
    magic = bytes(mapped[:4])
    if magic != b"GGUF":
        raise CheckpointError(
            f"{where.name} is not a GGUF file: its first bytes are {magic!r}, not b'GGUF'"
        )
    cursor.at = 4
    version = cursor.scalar("<I", 4, "the version")
    if version not in _VERSIONS:
        swapped = struct.unpack("<I", struct.pack(">I", version))[0]
        hint = " (a big-endian file?)" if swapped in _VERSIONS else ""
        raise CheckpointError(
            f"{where.name} is GGUF version {version}{hint}: sinpe reads versions "
            f"{' and '.join(map(str, _VERSIONS))}"
        )
    tensors = cursor.scalar("<Q", 8, "the tensor count")
    keys = cursor.scalar("<Q", 8, "the key count")
    # every key takes at least 12 bytes (length, type), every tensor info at least 24
    cursor.need(12 * keys, f"{keys} metadata keys")
    metadata: dict[str, GGUFValue] = {}
    for number in range(keys):
        key = cursor.string(f"the name of key {number}")
        kind = cursor.scalar("<I", 4, f"the type of {key!r}")
        metadata[key] = _value(cursor, kind, key)
    cursor.need(24 * tensors, f"{tensors} tensor infos")
    infos = {}
    for number in range(tensors):
        info = _tensor_info(cursor, number)
        if info.name in infos:
            raise CheckpointError(f"{where.name}: tensor {info.name!r} is listed twice")
        infos[info.name] = info
    alignment = metadata.get("general.alignment", _DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise CheckpointError(
            f"{where.name}: general.alignment {alignment!r} is not a power of two"
        )
    start = -(-cursor.at // alignment) * alignment
    return GGUF(where, version, metadata, infos, start, size)


def _value(cursor: _Cursor, kind: int, key: str) -> GGUFValue:
    if kind in _SCALARS:
        code, width = _SCALARS[kind]
        return cursor.scalar(code, width, f"the value of {key!r}")
    if kind == _STRING:
        return cursor.string(f"the value of {key!r}")
    if kind != _ARRAY:
        raise CheckpointError(f"{cursor.name}: key {key!r} has an unknown value type {kind}")
    inner = cursor.scalar("<I", 4, f"the element type of {key!r}")
    length = cursor.scalar("<Q", 8, f"the length of {key!r}")
    if inner in _SCALARS:
        code, width = _SCALARS[inner]
        cursor.need(length * width, f"array {key!r} of {length} elements")
        if length > KEPT_ARRAY:
            cursor.at += length * width
            return GGUFArray(inner, length)
        values = struct.unpack_from(f"<{length}{code[1]}", cursor.buffer, cursor.at)
        cursor.at += length * width
        return list(values)
    if inner == _STRING:
        cursor.need(length * 8, f"array {key!r} of {length} strings")
        if length > KEPT_ARRAY:
            cursor.skip_strings(length, key)
            return GGUFArray(inner, length)
        return [cursor.string(f"string {n} of {key!r}") for n in range(length)]
    raise CheckpointError(
        f"{cursor.name}: array {key!r} has elements of type {inner}, which GGUF does not "
        f"allow (numbers or strings)"
    )


def _tensor_info(cursor: _Cursor, number: int) -> _TensorInfo:
    name = cursor.string(f"the name of tensor {number}")
    dims = cursor.scalar("<I", 4, f"the dimension count of {name!r}")
    if not 1 <= dims <= _MAX_DIMS:
        raise CheckpointError(
            f"{cursor.name}: tensor {name!r} claims {dims} dimensions "
            f"(GGUF allows 1 to {_MAX_DIMS})"
        )
    cursor.need(8 * dims, f"the shape of {name!r}")
    ne = struct.unpack_from(f"<{dims}Q", cursor.buffer, cursor.at)
    cursor.at += 8 * dims
    code = cursor.scalar("<I", 4, f"the type of {name!r}")
    offset = cursor.scalar("<Q", 8, f"the offset of {name!r}")
    elements = math.prod(ne)
    if elements >= 2**62:
        raise CheckpointError(f"{cursor.name}: tensor {name!r} claims {elements} elements")
    kind, block, width = GGML_TYPES.get(code, (f"type {code}", 0, 0))
    nbytes = elements // block * width if block else None
    return _TensorInfo(name, tuple(reversed(ne)), kind, offset, nbytes)
