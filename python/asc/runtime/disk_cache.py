"""The persistent compile cache: a kernel compiled once is rebuilt in a later
process from the building calls recorded the first time, without the Python
front end (IRBuilder.replay; the library verifies and lowers it again).

Where: ``$PYASC_CACHE_DIR``, else ``$PYASC_HOME/.pyasc/cache`` (``PYASC_HOME``
defaults to the home directory), as in pyasc; ``PYASC_CACHE_DIR=""`` turns it
off, as does ``@asc.jit(always_compile=True)``.

The key covers everything that changes the kernel: the code (bytecode,
constants, names, line table) and module constants of the kernel and of
every @asc.jit function it names (transitively), its ConstExpr values and argument kinds and dtypes, the
platform, the compile options, and the library — asc's version, the C ABI
version and the size and modification time of libasc.so, of every module of
the asc package and of every module of the packages registered with
``register_code_package`` (packages over asc whose code runs while a kernel
compiles, so that editing them invalidates cached kernels: asc2 registers
itself on import). An entry is a marshal payload (plain data only) with a
checksum; one that fails the checksum, does not load or does not replay is
deleted and the kernel compiled again. Writes go to a temporary file renamed
into place, so concurrent processes never see half an entry.
"""

from __future__ import annotations

import marshal
import os
import stat
import types
import zlib
from typing import Any, Optional, Union

from .._ffi import lib, library_path
from ..codegen.source import LIBRARY_PACKAGES

_FORMAT = b"asc-kernel-cache-2"

# What this process's cache did (for tests and curious users).
stats = {"hits": 0, "misses": 0, "stored": 0, "discarded": 0}
skipped = {"not_regular": 0}  # entries that were not regular files (also misses)


def cache_dir() -> Optional[str]:
    """The cache directory, or None when caching is off."""
    explicit = os.environ.get("PYASC_CACHE_DIR")
    if explicit is not None:
        return explicit or None
    home = os.environ.get("PYASC_HOME") or os.path.expanduser("~")
    return os.path.join(home, ".pyasc", "cache")


_library_identity: Optional[bytes] = None


def _list_modules(directory: str, prefix: str, out: list[str], dirs: list[str]) -> None:
    """The asc modules under `directory`, relative to the package, in a stable order; and the directories
    listed, relative too ("" is the package's own)."""
    dirs.append(prefix)
    with os.scandir(directory) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir():
            if entry.name not in ("__pycache__", "_lib"):
                _list_modules(entry.path, f"{prefix}{entry.name}/", out, dirs)
        elif entry.name.endswith(".py"):
            out.append(prefix + entry.name)


def _directory_stamps(package: str, dirs: list[str]) -> str:
    """The modification times of the package's directories: a module added, removed or renamed changes its
    directory's."""
    stamps = []
    for d in dirs:
        try:
            stamps.append(f"{d}:{os.stat(os.path.join(package, d)).st_mtime_ns}")
        except OSError:
            stamps.append(f"{d}:missing")
    return "\n".join(stamps)


def _package_modules(package: str, directory: str) -> list[str]:
    """The package's module list, remembered in the cache directory with its directories' modification times:
    listing a dozen directories costs more than the whole rest of a cache hit, a stat of each far less. A list
    whose directories changed since (a module added, as in a development tree) is made again, so that the new
    module's own stamp is part of every later key."""
    listing = os.path.join(directory, f"modules-{zlib.crc32(os.fsencode(package)):08x}.txt") if directory else None
    if listing:
        blob = _read_entry(listing)  # as the entries: a regular file, of a capped size
        try:
            payload = _unframe(blob) if blob is not None and len(blob) <= MAX_ENTRY_BYTES else None
            if payload is not None:
                stamps, _, modules_text = payload.decode().partition("\n\n")
                dirs = [line.rpartition(":")[0] for line in stamps.split("\n")]
                if modules_text and _directory_stamps(package, dirs) == stamps:
                    return modules_text.split("\n")
        except UnicodeDecodeError:
            pass
    modules: list[str] = []
    dirs: list[str] = []
    _list_modules(package, "", modules, dirs)
    if listing:
        payload = _directory_stamps(package, dirs) + "\n\n" + "\n".join(modules)
        _write_atomically(listing, _frame(payload.encode()))
    return modules


def _frame(payload: bytes) -> bytes:
    """`payload` behind its crc32, as the cache's files hold it."""
    return zlib.crc32(payload).to_bytes(4, "little") + payload


def _unframe(blob: bytes) -> Optional[bytes]:
    """The payload of a framed file, or None when its checksum does not match."""
    payload = blob[4:]
    return payload if len(blob) >= 4 and zlib.crc32(payload) == int.from_bytes(blob[:4], "little") else None


_code_packages: list[str] = []  # registered with register_code_package: package directories, in order


def register_code_package(package: Union[types.ModuleType, str, os.PathLike]) -> None:
    """Makes the disk cache's key cover a package whose code generates kernel code (a library over asc,
    such as asc2, whose functions a kernel calls while it compiles): the size and modification time of
    each of its modules join the library identity, so that editing one compiles cached kernels anew.
    `package` is the package's module (``register_code_package(sys.modules[__name__])`` in its
    ``__init__``) or its directory. Registering a package again changes nothing. A kernel's own code, and
    the plain functions and @asc.jit functions it names, are keyed without this."""
    global _library_identity
    if isinstance(package, types.ModuleType):
        paths = list(getattr(package, "__path__", None) or [])
        if not paths:
            raise ValueError(f"register_code_package: {package.__name__} is a module, not a package")
        directory = paths[0]
    elif isinstance(package, (str, os.PathLike)):
        directory = os.fspath(package)
    else:
        raise TypeError(f"register_code_package: expected a package or its directory, got {type(package).__name__}")
    directory = os.path.abspath(directory)
    if not os.path.isdir(directory):
        raise ValueError(f"register_code_package: {directory} is not a directory")
    if directory not in _code_packages:
        _code_packages.append(directory)
        name = os.path.basename(directory)
        if name not in LIBRARY_PACKAGES:  # its helpers are library code (reads.py)
            LIBRARY_PACKAGES.append(name)
        _library_identity = None  # computed again, with the package


def code_packages() -> list[str]:
    """The directories whose modules the library identity covers: asc's, then the registered packages'."""
    return [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *_code_packages]


def library_identity() -> bytes:
    """What identifies this build of asc: versions, and the size and mtime of libasc.so and of every module
    of asc and of the packages registered with register_code_package."""
    global _library_identity
    if _library_identity is None:
        from .. import __version__

        directory = cache_dir() or ""
        parts = [__version__, str(lib.asc_abi_version())]
        _stamp_files(parts, None, [str(library_path)])
        for root in code_packages():
            _stamp_files(parts, root, _package_modules(root, directory))
        _library_identity = "\n".join(parts).encode()
    return _library_identity


def _stamp_files(parts: list[str], root: Optional[str], names: list[str]) -> None:
    """Appends "path:size:mtime" (or "path:missing") for each of `names`, paths under directory `root` (None:
    as they are). The files under a root are stat'ed relative to the directory's descriptor: resolving a
    hundred long paths from / was a third of a cache hit's time in a fresh process."""
    prefix = "" if root is None else root + os.sep
    fd = None
    if root is not None:
        try:
            fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            parts += [f"{prefix}{name}:missing" for name in names]
            return
    try:
        for name in names:
            try:
                st = os.stat(name, dir_fd=fd)
                parts.append(f"{prefix}{name}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                parts.append(f"{prefix}{name}:missing")
    finally:
        if fd is not None:
            os.close(fd)


class Key:
    """A cache key: the full text of what the kernel depends on, and the file name it is stored under.
    The name is a 64-bit checksum of the text (zlib's, so no hashlib import on the launch path); the
    entry keeps the whole text, and a load compares it, so two keys that share a name never mix."""

    def __init__(self, parts: list[Any]):
        text = b"\0".join([_FORMAT, library_identity(), *(repr(p).encode() for p in parts)])
        self.text = text
        self.name = f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}{len(text):x}"


def _path(directory: str, key: Key) -> str:
    return os.path.join(directory, key.name[:2], key.name + ".asck")


def load(key: Key) -> Optional[dict]:
    """The entry stored under `key`, or None (absent, or damaged: then it is removed)."""
    directory = cache_dir()
    if directory is None:
        return None
    path = _path(directory, key)
    blob = _read_entry(path)
    if blob is None:
        stats["misses"] += 1
        return None
    try:
        if len(blob) > MAX_ENTRY_BYTES:
            raise ValueError("too large")
        payload = _unframe(blob)
        if payload is None:
            raise ValueError("checksum")
        entry = marshal.loads(payload)
        if not isinstance(entry, dict) or entry.get("key") != key.text:
            raise ValueError("not an entry for this key")
        stats["hits"] += 1
        return entry
    except (ValueError, EOFError, TypeError):
        discard(key)
        stats["misses"] += 1
        return None


MAX_ENTRY_BYTES = 64 << 20  # a larger entry is not read (a kernel's build log is far smaller)


def _read_entry(path: str) -> Optional[bytes]:
    """The bytes of a cache entry, or None when there is none or it is not a regular file (a FIFO, a link
    to a device such as /dev/zero: never opened for blocking reads, never read without end). At most
    MAX_ENTRY_BYTES + 1 bytes are read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO does not wait for a writer
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            skipped["not_regular"] += 1
            return None
        chunks, size = [], 0
        while size <= MAX_ENTRY_BYTES:
            chunk = os.read(fd, MAX_ENTRY_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def store(key: Key, entry: dict) -> None:
    """Best effort: a cache that cannot be written only costs the next process a compile."""
    directory = cache_dir()
    if directory is None:
        return
    path = _path(directory, key)
    try:
        payload = marshal.dumps({**entry, "key": key.text})
    except ValueError:  # not plain data: nothing to keep
        return
    if _write_atomically(path, _frame(payload)):
        stats["stored"] += 1


def _write_atomically(path: str, blob: bytes) -> bool:
    """Best effort: a cache that cannot be written only costs the next process a compile."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass
        return False


def reject(key: Key) -> None:
    """An entry load() returned that did not replay: deleted, and no longer counted as a hit."""
    stats["hits"] -= 1
    discard(key)


def discard(key: Key) -> None:
    stats["discarded"] += 1
    directory = cache_dir()
    if directory is not None:
        try:
            os.remove(_path(directory, key))
        except OSError:
            pass
