"""The project's write log: what every novel-studio process wrote, so another one's watcher can tell it from
the author's edits (issue 12 item 8: a chapter committed by `continue` in another terminal, a second studio
or another browser tab is not "edited by hand").

Format: `.novel-studio/writes.jsonl`, one `studio.models.write_log.WriteRecord` per line (relative path, op,
sha256, pid, time). Rules:

- Writing. `studio.own_writes` calls `record` for every atomic write, append and deletion it registers, so
  `studio.fileio` logs a write just BEFORE its rename, as it records it in-process: a watcher that sees the
  new content can always find its line. Only files a watcher may report are logged (`logged_path`): none
  under a hidden folder or the bookkeeping folders (`IGNORED_DIRS`), none hidden except the checkpoint
  (its change ends another process's commit). The project is the nearest folder above the file that holds
  `novel-studio.toml` or `.checkpoint.json`; files outside any project are not logged.
- Appending. One `os.write` of one short line on an `O_APPEND` descriptor: lines of concurrent processes
  never interleave. No fsync: the log only matters between live processes, which share the page cache
  (after a power cut no watcher is running). Not a counted write point of `studio.fileio` (fault
  injection numbers the project's own writes) and never recorded itself. A failure to log (read-only
  folder, full disk) never fails the write: another process then takes that write for the author's.
- Bounded. When `writes.jsonl` passes `MAX_BYTES` the writer that notices renames it over `writes.1.jsonl`
  (under an exclusive `flock` of that file, after checking it is still the current one, so two processes
  never rotate the same part twice); readers read both parts, so at most 2 x MAX_BYTES stay on disk.
- Crash-safe: an append is all or nothing for a reader that only takes complete lines; a line that does
  not parse is skipped.
- It never triggers the watcher: `.novel-studio/` is hidden.
- Reading. `WriteLogReader(root).match(path, data)` is the last record of that file when it was written
  by ANOTHER process and `data` (the file's bytes now, None when it is gone) is exactly what that record
  says it wrote; else None. Nothing trusts time: only content hashes. `forget(path)` voids the records
  read so far for the file (a hand edit seen after another process's write: restoring that text later is
  still the author's doing). The reader is incremental (it remembers how far it read each part).

Dependency-free at import on purpose (`studio.fileio` -> `studio.own_writes` -> here); the model is
imported when the first line is written or read.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.models.write_log import WriteOp, WriteRecord

LOG_DIR = ".novel-studio"
LOG_NAME = "writes.jsonl"
OLD_NAME = "writes.1.jsonl"
MAX_BYTES = 256 * 1024
CHECKPOINT_NAME = ".checkpoint.json"
PROJECT_MARKERS = ("novel-studio.toml", CHECKPOINT_NAME)
IGNORED_DIRS = frozenset({"staging", "logs", "state", "evaluations", "foreshadowing", "refine", "backups"})
"""Top-level project folders of bookkeeping: neither watched nor logged."""

_roots_lock = threading.Lock()
_roots: dict[str, str] = {}  # folder -> its project root (positive answers only: a project may appear later)


def log_paths(root: Path | str) -> tuple[Path, Path]:
    """(previous part, current part) of the project's write log."""
    folder = Path(root) / LOG_DIR
    return folder / OLD_NAME, folder / LOG_NAME


def _project_root(folder: str) -> str | None:
    with _roots_lock:
        cached = _roots.get(folder)
    if cached is not None:
        return cached
    current = folder
    while True:
        if any(os.path.isfile(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            with _roots_lock:
                _roots[folder] = current
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def is_logged(rel_parts: tuple[str, ...] | list[str]) -> bool:
    """Whether a file at these parts (relative to the project root) is logged (see the module rules)."""
    if not rel_parts:
        return False
    if len(rel_parts) == 1 and rel_parts[0] == CHECKPOINT_NAME:
        return True
    if any(part.startswith(".") for part in rel_parts):
        return False
    return not (len(rel_parts) > 1 and rel_parts[0] in IGNORED_DIRS)


def logged_path(real_path: str) -> tuple[str, str] | None:
    """(project root, path relative to it with `/`) of an absolute, resolved file path the log records;
    None for a file outside any project or one it does not log."""
    root = _project_root(os.path.dirname(real_path))
    if root is None:
        return None
    parts = real_path[len(root) :].lstrip(os.sep).split(os.sep)  # `root` is a parent folder of `real_path`
    if not is_logged(parts):
        return None
    return root, "/".join(parts)


def record(
    real_path: str, op: WriteOp, sha256: str | None = None, *, size: int | None = None, appended: bytes | None = None
) -> None:
    """Log one write of this process (`real_path` absolute and resolved; an append gives the `appended`
    bytes and the `size` after it); see the module rules."""
    located = logged_path(real_path)
    if located is None:
        return
    root, rel = located
    from studio.models.write_log import WriteRecord

    added = None
    if appended is not None:
        sha256, added = _sha256(appended), len(appended)
    line = WriteRecord(path=rel, op=op, sha256=sha256, size=size, added=added, pid=os.getpid(), time=time.time())
    try:
        _append(os.path.join(root, LOG_DIR, LOG_NAME), line.model_dump_json(exclude_none=True).encode("utf-8") + b"\n")
    except OSError:
        return  # never fail the write itself (see the module rules)


def _append(log: str, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(log, flags, 0o644)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(log), exist_ok=True)
        fd = os.open(log, flags, 0o644)
    try:
        os.write(fd, data)
        if os.fstat(fd).st_size > MAX_BYTES:
            _rotate(fd, log)
    finally:
        os.close(fd)


def _rotate(fd: int, log: str) -> None:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): rotation races are then possible but harmless for the app
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another process is rotating this part
    mine = os.fstat(fd)
    try:
        current = os.stat(log)
    except FileNotFoundError:
        return
    if (mine.st_dev, mine.st_ino) != (current.st_dev, current.st_ino) or mine.st_size <= MAX_BYTES:
        return  # already rotated by someone else
    os.replace(log, os.path.join(os.path.dirname(log), OLD_NAME))  # the flock goes with the descriptor's close


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class WriteLogReader:
    """Reads a project's write log incrementally; `match` and `forget` as in the module rules. Not
    thread-safe: one reader per watcher (which calls it from one thread at a time)."""

    MAX_PARTS_REMEMBERED = 8

    def __init__(self, root: Path | str) -> None:
        self.root = Path(os.path.realpath(os.fspath(root)))
        self._offsets: dict[tuple[int, int], int] = {}  # (device, inode) of a part -> bytes read of it
        self._latest: dict[str, tuple[int, WriteRecord]] = {}  # relative path -> (sequence, last record)
        self._void: dict[str, int] = {}  # relative path -> records up to this sequence no longer count
        self._seq = 0

    def relative(self, path: Path | str) -> str | None:
        real = os.path.realpath(os.fspath(path))
        try:
            return Path(real).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def refresh(self) -> None:
        """Read what was appended to the log since the last call."""
        old, current = log_paths(self.root)
        for _ in range(3):  # a rotation between reading the two parts: read again
            before = _identity(old)
            self._read(old)
            self._read(current)
            if _identity(old) == before:
                break
        while len(self._offsets) > self.MAX_PARTS_REMEMBERED:
            self._offsets.pop(next(iter(self._offsets)))

    def _read(self, part: Path) -> None:
        try:
            with open(part, "rb") as fh:
                stat = os.fstat(fh.fileno())
                key = (stat.st_dev, stat.st_ino)
                offset = self._offsets.get(key, 0)
                if stat.st_size < offset:  # a different file under a reused inode
                    offset = 0
                fh.seek(offset)
                chunk = fh.read()
        except FileNotFoundError:
            return
        end = chunk.rfind(b"\n") + 1  # complete lines only: a line being appended is read next time
        for line in chunk[:end].splitlines():
            self._take(line)
        self._offsets.pop(key, None)
        self._offsets[key] = offset + end

    def _take(self, line: bytes) -> None:
        from studio.errors import FormatError
        from studio.models.write_log import WriteRecord

        try:
            entry = WriteRecord.parse_data(json.loads(line))
        except (ValueError, FormatError):
            return  # a torn or foreign line: skipped
        self._seq += 1
        self._latest[entry.path] = (self._seq, entry)

    def match(self, path: Path | str, data: bytes | None) -> WriteRecord | None:
        """The other process's record that explains `path` holding `data` now (None: the file is gone)."""
        rel = self.relative(path)
        if rel is None:
            return None
        self.refresh()
        found = self._latest.get(rel)
        if found is None:
            return None
        seq, entry = found
        if entry.pid == os.getpid() or seq <= self._void.get(rel, 0):
            return None  # this process's writes are `studio.own_writes`' business
        if data is None:
            return entry if entry.op == "delete" else None
        if entry.op == "write":
            return entry if entry.sha256 == _sha256(data) else None
        if entry.op == "append" and entry.size == len(data) and entry.added is not None and entry.added <= len(data):
            return entry if entry.sha256 == _sha256(data[len(data) - entry.added :]) else None
        return None

    def forget(self, path: Path | str) -> None:
        """The author changed `path`: the records read so far for it no longer vouch for its content."""
        rel = self.relative(path)
        if rel is not None:
            self._void[rel] = self._seq


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino


__all__ = [
    "CHECKPOINT_NAME",
    "IGNORED_DIRS",
    "LOG_DIR",
    "LOG_NAME",
    "MAX_BYTES",
    "OLD_NAME",
    "WriteLogReader",
    "is_logged",
    "log_paths",
    "logged_path",
    "record",
]
