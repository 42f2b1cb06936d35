"""The persistent compile cache: a kernel compiled once is rebuilt in a later
process from the building calls recorded the first time, without the Python
front end (IRBuilder.replay; the library verifies and lowers it again).

Where: ``$PYASC_CACHE_DIR``, else ``$PYASC_HOME/.pyasc/cache`` (``PYASC_HOME``
defaults to the home directory), as in pyasc; ``PYASC_CACHE_DIR=""`` turns it
off, as does ``@asc.jit(always_compile=True)``.

The key covers everything that changes the kernel: the source text and
module constants of the kernel and of every @asc.jit function it names
(transitively), its ConstExpr values and argument kinds and dtypes, the
platform, the compile options, and the library — asc's version, the C ABI
version and the size and modification time of libasc.so and of the asc
modules loaded. An entry is a marshal payload (plain data only) with a
checksum; one that fails the checksum, does not load or does not replay is
deleted and the kernel compiled again. Writes go to a temporary file renamed
into place, so concurrent processes never see half an entry.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import zlib
from typing import Any, Optional

from .._ffi import lib, library_path

_FORMAT = b"asc-kernel-cache-1"

# What this process's cache did (for tests and curious users).
stats = {"hits": 0, "misses": 0, "stored": 0, "discarded": 0}


def cache_dir() -> Optional[str]:
    """The cache directory, or None when caching is off."""
    explicit = os.environ.get("PYASC_CACHE_DIR")
    if explicit is not None:
        return explicit or None
    home = os.environ.get("PYASC_HOME") or os.path.expanduser("~")
    return os.path.join(home, ".pyasc", "cache")


_library_identity: Optional[bytes] = None


def library_identity() -> bytes:
    """What identifies this build of asc: versions, and the size and mtime of libasc.so and of every module
    of the asc package."""
    global _library_identity
    if _library_identity is None:
        from .. import __version__

        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        files = [str(library_path)]
        for root, dirs, names in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "_lib"))
            files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".py"))
        parts = [__version__, str(lib.asc_abi_version())]
        for path in files:
            try:
                st = os.stat(path)
                parts.append(f"{os.path.relpath(path, package)}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                parts.append(f"{path}:missing")
        _library_identity = "\n".join(parts).encode()
    return _library_identity


def make_key(parts: list[Any]) -> str:
    """A file name for these key parts (reprs of plain values, source texts)."""
    h = hashlib.sha256(_FORMAT)
    h.update(library_identity())
    for part in parts:
        h.update(b"\0")
        h.update(repr(part).encode())
    return h.hexdigest()


def _path(directory: str, key: str) -> str:
    return os.path.join(directory, key[:2], key + ".asck")


def load(key: str) -> Optional[dict]:
    """The entry stored under `key`, or None (absent, or damaged: then it is removed)."""
    directory = cache_dir()
    if directory is None:
        return None
    path = _path(directory, key)
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        stats["misses"] += 1
        return None
    try:
        checksum, payload = int.from_bytes(blob[:4], "little"), blob[4:]
        if zlib.crc32(payload) != checksum:
            raise ValueError("checksum")
        entry = marshal.loads(payload)
        if not isinstance(entry, dict) or entry.get("key") != key:
            raise ValueError("not an entry for this key")
        stats["hits"] += 1
        return entry
    except (ValueError, EOFError, TypeError):
        discard(key)
        stats["misses"] += 1
        return None


def store(key: str, entry: dict) -> None:
    """Best effort: a cache that cannot be written only costs the next process a compile."""
    directory = cache_dir()
    if directory is None:
        return
    path = _path(directory, key)
    try:
        payload = marshal.dumps({**entry, "key": key})
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(zlib.crc32(payload).to_bytes(4, "little") + payload)
        os.replace(tmp, path)
        stats["stored"] += 1
    except (OSError, ValueError):
        pass


def discard(key: str) -> None:
    stats["discarded"] += 1
    directory = cache_dir()
    if directory is not None:
        try:
            os.remove(_path(directory, key))
        except OSError:
            pass
