"""Which file contents the app wrote itself, so the watcher can tell them from the author's edits.

A process-wide, thread-safe registry: resolved path -> (sha256 of the bytes the app last wrote, time).
`studio.fileio` records every atomic write (just before the rename, so a watcher can never see the new
content before it is recorded) and every appended line. `is_own(path, current_bytes)` is True when the file
now holds exactly what the app last wrote there. The registry is bounded (the oldest entries are dropped).

Every write, append and deletion recorded here also goes to the project's write log (`studio.write_log`), so
the watchers of OTHER novel-studio processes on the same project can tell it from the author's edits.

Dependency-free on purpose: fileio imports it, and fileio is imported by everything.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from studio import write_log

MAX_ENTRIES = 2000


@dataclass(frozen=True)
class OwnWrite:
    """What the app last did to one file."""

    digest: str | None  # sha256 hex of the whole file; None for an append (see appended/size) or a deletion
    when: float  # time.time() of the write
    deleted: bool = False
    appended: bytes = b""  # for an append: the bytes added at the end ...
    size: int = -1  # ... and the file size right after it


_lock = threading.Lock()
_entries: OrderedDict[str, OwnWrite] = OrderedDict()


def _key(path: Path | str) -> str:
    return os.path.realpath(os.fspath(path))


def _digest(data: bytes) -> str:
    import hashlib  # local: keeps `import studio.fileio` (imported by everything) light

    return hashlib.sha256(data).hexdigest()


def _put(path: Path | str, entry: OwnWrite) -> str:
    key = _key(path)
    with _lock:
        _entries.pop(key, None)
        _entries[key] = entry
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return key


def record(path: Path | str, data: bytes) -> None:
    """The app is writing `data` as the whole content of `path`."""
    digest = _digest(data)
    write_log.record(_put(path, OwnWrite(digest, time.time())), "write", digest)


def record_append(path: Path | str, appended: bytes, size_after: int) -> None:
    """The app appended `appended` to `path`, leaving it `size_after` bytes long."""
    key = _put(path, OwnWrite(None, time.time(), appended=bytes(appended), size=size_after))
    write_log.record(key, "append", size=size_after, appended=appended)


def record_deleted(path: Path | str) -> None:
    """The app is deleting `path` (so the watcher does not report the deletion as the author's)."""
    write_log.record(_put(path, OwnWrite(None, time.time(), deleted=True)), "delete")


def last(path: Path | str) -> OwnWrite | None:
    with _lock:
        return _entries.get(_key(path))


def is_own(path: Path | str, current_bytes: bytes | None) -> bool:
    """True when `path` now holds exactly what the app last wrote (`current_bytes=None`: the file is gone
    and the app deleted it)."""
    entry = last(path)
    if entry is None:
        return False
    if current_bytes is None:
        return entry.deleted
    if entry.deleted:
        return False
    if entry.digest is not None:
        return entry.digest == _digest(current_bytes)
    return len(current_bytes) == entry.size and current_bytes.endswith(entry.appended)


def forget(path: Path | str) -> None:
    """Drop the record of `path` (the watcher calls it once the author changed the file, so an author who
    later restores the app's exact text is still noticed)."""
    with _lock:
        _entries.pop(_key(path), None)


def clear() -> None:
    with _lock:
        _entries.clear()


def size() -> int:
    """How many files the registry remembers (at most MAX_ENTRIES)."""
    with _lock:
        return len(_entries)
