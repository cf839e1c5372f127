"""The one atomic writer, and strict readers that report problems instead of guessing.

Every write of the app goes through `atomic_write_bytes`: temp file in the same folder, flush + fsync,
rename over the target, fsync of the folder. A crash leaves either the old file or the new one, never half,
plus at most a hidden temp file `.<name>.<8 random chars>.tmp` next to it, which `sweep_temp_files` removes
at a safe point (the project lock held, no write of this process in flight).

Fault injection (tests only, no effect unless set): every write point (`atomic_write_bytes`, `append_line`,
`replace_file`) is counted per process, and with `NOVEL_STUDIO_FAULT_WRITE=N` the Nth one dies by SIGKILL
half-way: an atomic write after its temp file is complete but before the rename, an append after half of
its bytes (cut inside a multi-byte character when the line has one), a rename before it happens. This is
how the crash tests reach every write point of a run deterministically, without timing. Such a test may
also set `NOVEL_STUDIO_TEST_NO_FSYNC=1`: fsync protects against power loss, never against a killed process
(the page cache outlives it), so skipping it changes nothing a kill test checks and saves most of its time.

Batched folder fsyncs: inside `deferred_dir_fsyncs()` (per thread) the folder fsync of each write is put off
to the end of the block, one per folder however many files were written there. A caller uses it where the
block's files need only be durable together before its next record says they are done (the commit: one
block per step, the journal update after it). `sync_dir=False` skips the folder fsync of one write whose
loss in a power cut is harmless (the commit journal's progress: an older journal only reruns idempotent
steps); the file's own fsync stays, so the name never points at unwritten data.
"""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from studio import own_writes
from studio.errors import FormatError, Problem

FAULT_ENV = "NOVEL_STUDIO_FAULT_WRITE"
NO_FSYNC_ENV = "NOVEL_STUDIO_TEST_NO_FSYNC"
TEMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")  # what mkstemp below names a temp file

_counter_lock = threading.Lock()
_write_count = 0
_in_flight: set[str] = set()  # temp files being written by this process right now
_deferred = threading.local()  # .folders: the folders whose fsync waits for the end of a deferred block


def _fault_at() -> int:
    try:
        return int(os.environ.get(FAULT_ENV, "") or 0)
    except ValueError:
        return 0


def _write_point() -> bool:
    """Count one write point; True when fault injection says this one must die half-way."""
    global _write_count
    with _counter_lock:
        _write_count += 1
        return _write_count == _fault_at()


def write_count() -> int:
    """How many write points this process has passed (for the fault-injection tests)."""
    return _write_count


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _fsync(fd: int) -> None:
    if os.environ.get(NO_FSYNC_ENV) != "1":
        os.fsync(fd)


def _fsync_dir(folder: Path) -> None:
    if os.environ.get(NO_FSYNC_ENV) == "1":
        return
    pending: set[Path] | None = getattr(_deferred, "folders", None)
    if pending is not None:
        pending.add(Path(folder))
        return
    _fsync_dir_now(folder)


def _fsync_dir_now(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # platforms without directory fds: rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def deferred_dir_fsyncs() -> Iterator[None]:
    """Put this thread's folder fsyncs off to the end of the block: one per folder (see the module rules).
    Nested blocks join the outer one. A block left by an exception still syncs what it wrote."""
    if getattr(_deferred, "folders", None) is not None:
        yield
        return
    folders: set[Path] = set()
    _deferred.folders = folders
    try:
        yield
    finally:
        _deferred.folders = None
        for folder in sorted(folders):
            _fsync_dir_now(folder)


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True, sync_dir: bool = True) -> None:
    """Write `data` to `path` atomically (see the module docstring). `durable=False` skips the fsyncs (still
    atomic): for caches outside the author's folder (rebuilt when lost), or for a batch of files a journal can
    redo, made durable together by `sync_disk()` before the journal goes. `sync_dir=False` skips only the
    folder's fsync (see the module rules)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    _in_flight.add(tmp_name)
    fault = _write_point()
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                _fsync(fh.fileno())
        if path.exists():
            try:
                os.chmod(tmp, path.stat().st_mode & 0o777)
            except OSError:
                pass
        else:
            os.chmod(tmp, 0o644)
        own_writes.record(path, data)  # before the rename: a watcher must never see unrecorded content
        if fault:
            _die()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        _in_flight.discard(tmp_name)
    if durable and sync_dir:
        _fsync_dir(path.parent)


def sync_disk() -> None:
    """Flush every file written so far to disk (after a batch written with `durable=False`)."""
    if os.environ.get(NO_FSYNC_ENV) != "1" and hasattr(os, "sync"):
        os.sync()


def replace_file(src: Path, dest: Path) -> None:
    """Rename `src` over `dest` (atomic on one file system, in one folder or across two) and fsync the
    folder(s); a counted write point."""
    if _write_point():
        _die()
    os.replace(src, dest)
    _fsync_dir(Path(dest).parent)
    if Path(src).parent != Path(dest).parent:
        _fsync_dir(Path(src).parent)


def atomic_write_text(path: Path, text: str, *, durable: bool = True, sync_dir: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable, sync_dir=sync_dir)


def dumps_json(data: Any) -> str:
    """The project's JSON style: UTF-8 (Chinese unescaped), 2-space indent, trailing newline."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def atomic_write_json(path: Path, data: Any, *, sync_dir: bool = True) -> None:
    atomic_write_text(path, dumps_json(data), sync_dir=sync_dir)


def append_line(path: Path, line: str) -> None:
    """Append one line (to a .jsonl log) and fsync. A torn last line is detected by the reader; the new line
    starts on a line of its own after it (a newline first), so a kill that tore the last append never takes
    the next entry down with it (a spend entry glued to a torn one would drop out of the book's cost)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = line.rstrip("\n").encode("utf-8") + b"\n"
    fault = _write_point()
    with open(path, "a+b") as fh:  # appends always land at the end; the "+" only reads the last byte
        end = fh.seek(0, os.SEEK_END)
        if end:
            fh.seek(end - 1)
            if fh.read(1) != b"\n":
                data = b"\n" + data
        own_writes.record_append(path, data, end + len(data))
        if fault:
            fh.write(data[: _torn_length(data)])
            fh.flush()
            _fsync(fh.fileno())
            _die()
        fh.write(data)
        fh.flush()
        _fsync(fh.fileno())


def _torn_length(data: bytes) -> int:
    """Where an injected fault cuts an append: inside the first multi-byte character from the middle on
    (the hardest tail to repair), else at the middle."""
    middle = len(data) // 2
    for index in range(middle, len(data)):
        if 0x80 <= data[index] <= 0xBF:  # a UTF-8 continuation byte: the cut splits a character
            return index
    return max(middle, 1)


SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "node_modules"})


def find_temp_files(root: Path) -> list[Path]:
    """The temp files (`.<name>.<random>.tmp`) atomic writes killed half-way left anywhere under `root`
    (version-control and virtualenv folders skipped; temp files this process is writing right now left out)."""
    found: list[Path] = []
    root = Path(root)
    if not root.is_dir():
        return found
    busy = {os.path.realpath(name) for name in list(_in_flight)}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            path = Path(folder) / name
            if TEMP_NAME.match(name) and os.path.realpath(path) not in busy:
                found.append(path)
    return found


def sweep_temp_files(root: Path) -> list[Path]:
    """Remove `find_temp_files(root)`; returns what was removed. Call only at a safe point: holding the
    project lock (no other process of ours writes there)."""
    removed: list[Path] = []
    for path in find_temp_files(root):
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        removed.append(path)
    return removed


# What `json` says about a broken file, for the Chinese UI (`Problem.zh`); another message shows as it is.
_JSON_ZH = {
    "Expecting value": "这里应该有一个值",
    "Expecting property name enclosed in double quotes": "这里应是用双引号括起的字段名",
    "Expecting ',' delimiter": "这里缺少逗号",
    "Expecting ':' delimiter": "这里缺少冒号",
    "Extra data": "JSON 结束后还有多余的内容",
    "Unterminated string starting at": "字符串缺少结束的引号",
    "Invalid control character at": "字符串里有无效的控制字符",
    "Invalid \\escape": "无效的转义符",
}


def decode_text(data: bytes, path: Path | str) -> str:
    """UTF-8 text of `data` (a BOM dropped); not UTF-8 is a FormatError naming the line, never a guess."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(
            [Problem(path, f"not UTF-8 (byte {exc.start})", line=line, zh=f"不是 UTF-8 文本（第 {exc.start} 个字节）")]
        ) from None
    return text.removeprefix("\ufeff")


def read_text(path: Path) -> str:
    """Read a UTF-8 text file; a file that is not UTF-8 is reported, never guessed."""
    path = Path(path)
    return decode_text(path.read_bytes(), path)


def parse_json(text: str, path: Path | str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        zh = f"不是有效的 JSON：{_JSON_ZH.get(exc.msg, exc.msg)}"
        raise FormatError(
            [Problem(path, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno, zh=zh)]
        ) from None


def read_json(path: Path) -> Any:
    return parse_json(read_text(path), path)
