"""The project lock (seed 003 section 10.7): one run at a time per project, held for the whole run.

`os.mkdir(.novel.lock)` is the atomic arbiter; `info.json` inside names the holder. A lock is stale when
its process is gone (same host only: pids mean nothing elsewhere) or its heartbeat is older than
`stale_after`. Taking over a stale lock happens under a second mkdir guard, and every removal renames the
directory to a unique trash name first and checks it moved the directory it judged (same inode), so two
processes taking over at once cannot both win and nobody deletes a lock that was just created.

A process killed half-way through taking the lock must not block the next run: info.json is written by the
atomic writer, so a kill before its rename leaves the complete content in the hidden temp file next to it,
which names the (dead) owner; the take-over guard holds an `owner.json` the same way. A lock folder or
guard whose owner is a dead process on this host is stale at once; only one with no owner at all (killed
between the mkdir and the first byte of the owner file) waits `info_grace` to be judged by its age.

Release runs on every exit path the process controls: `with`, exceptions, KeyboardInterrupt, SIGTERM /
SIGHUP once `studio.signals.install_termination_handlers()` is in place (the CLI entry does that), and
an `atexit` safety net. A SIGKILL leaves the lock behind; the next run sees it stale (pid gone).
"""

from __future__ import annotations

import atexit
import os
import shutil
import threading
import time
import uuid
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from studio.errors import FormatError, LockHeldError, ProjectNotFoundError
from studio.fileio import atomic_write_json
from studio.i18n import Catalog, Lang, tr
from studio.paths import ProjectPaths

if TYPE_CHECKING:
    import logging

    # The lock file's model is built only where a lock file is read or written: `status` on a free project
    # (no lock folder) asks `status()`, which then builds no model, imports no `logging` and no `socket`.
    from studio.models.lock_info import LockInfo


def _log() -> logging.Logger:
    import logging  # only a lock in trouble logs

    return logging.getLogger(__name__)

HEARTBEAT_INTERVAL = 60.0  # seconds between heartbeats while held
STALE_AFTER = 30 * 60.0  # seed 003 10.7: a lock silent for 30 minutes is a zombie
INFO_GRACE = 10.0  # a lock dir without a readable info.json is "being created" for this long

MESSAGES: Catalog = {
    "free": ("项目未被锁定", "the project is not locked"),
    "held": (
        "项目正被另一进程使用：pid {pid}（主机 {host}），开始于 {since}，章节 {chapter}，最近心跳 {ago}前",
        "the project is in use by pid {pid} on host {host} since {since}, chapter {chapter}, "
        "last heartbeat {ago} ago",
    ),
    "held_mine": ("锁由本进程持有", "the lock is held by this process"),
    "creating": ("另一进程正在获取锁（info.json 尚未写入）", "another process is taking the lock right now"),
    "stale_pid": (
        "僵尸锁：pid {pid}（主机 {host}，开始于 {since}，章节 {chapter}）的进程已不存在",
        "stale lock: process {pid} on host {host} (since {since}, chapter {chapter}) no longer exists",
    ),
    "stale_heartbeat": (
        "僵尸锁：pid {pid}（主机 {host}，开始于 {since}，章节 {chapter}）已 {ago}没有心跳",
        "stale lock: pid {pid} on host {host} (since {since}, chapter {chapter}) has had no heartbeat "
        "for {ago}",
    ),
    "stale_no_info": (
        "僵尸锁：锁目录缺少 info.json，已存在 {ago}",
        "stale lock: the lock folder has no info.json and is {ago} old",
    ),
    "stale_corrupt": (
        "僵尸锁：info.json 无法读取，锁目录已存在 {ago}",
        "stale lock: info.json is unreadable and the lock folder is {ago} old",
    ),
    "takeover": (
        "另一进程（pid {pid}，主机 {host}）正在接管僵尸锁；若该进程已不存在，删除文件夹 .novel.lock.takeover 后重试",
        "another process (pid {pid} on host {host}) is taking over the stale lock; if no such process runs, "
        "remove the folder .novel.lock.takeover and try again",
    ),
    "unknown": ("未知", "unknown"),
    # the errors' texts: the folder, then what holds it
    "busy_error": ("{root}：{describe}", "{root}: {describe}"),
    "stale_error": ("{root}：{describe}；接管后才能继续", "{root}: {describe}; take it over to continue"),
}

GUARD_NAME = ".novel.lock.takeover"
GUARD_OWNER = "owner.json"


class LockState(StrEnum):
    FREE = "free"
    HELD_ALIVE = "held_alive"
    STALE = "stale"


@dataclass(frozen=True)
class LockStatus:
    """What is on disk now. `cause` is a MESSAGES key; `reason` the English text for logs and errors."""

    state: LockState
    cause: str
    info: LockInfo | None = None
    age_seconds: float = 0.0  # since the last heartbeat (or the folder's mtime without info)
    inode: int | None = None  # of the lock folder, to check a later rename moved this very folder
    mine: bool = False

    @property
    def reason(self) -> str:
        return self.describe("en")

    def describe(self, lang: Lang) -> str:
        from studio.models.lock_info import as_aware  # the model module loads with a lock to describe

        info = self.info
        unknown = tr(MESSAGES, "unknown", lang)
        fields = {
            "pid": info.pid if info else unknown,
            "host": (info.host or unknown) if info else unknown,
            # local wall-clock time, as the author's clock shows it (the file keeps the ISO time with its offset)
            "since": as_aware(info.started).astimezone().strftime("%Y-%m-%d %H:%M:%S") if info else unknown,
            "chapter": info.chapter if info and info.chapter is not None else "-",
            "ago": _duration(self.age_seconds, lang),
        }
        return tr(MESSAGES, self.cause, lang, **fields)


class LockBusyError(LockHeldError):
    """The lock is held by a live process (or one that is taking it right now)."""

    def __init__(self, root: Path, status: LockStatus) -> None:
        self.status = status
        super().__init__(tr(MESSAGES, "busy_error", "en", root=root, describe=status.reason))
        self.zh = tr(MESSAGES, "busy_error", "zh", root=root, describe=status.describe("zh"))


class StaleLockError(LockHeldError):
    """The lock looks abandoned; the caller may ask the author and retry with take_over_stale=True."""

    def __init__(self, root: Path, status: LockStatus) -> None:
        self.status = status
        super().__init__(tr(MESSAGES, "stale_error", "en", root=root, describe=status.reason))
        self.zh = tr(MESSAGES, "stale_error", "zh", root=root, describe=status.describe("zh"))


def _duration(seconds: float, lang: Lang) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} 秒" if lang == "zh" else f"{seconds} s"
    minutes = seconds // 60
    if minutes < 120:
        return f"{minutes} 分钟" if lang == "zh" else f"{minutes} min"
    hours = minutes // 60
    return f"{hours} 小时" if lang == "zh" else f"{hours} h"


def _read_owner(path: Path) -> LockInfo | None:
    from studio.models.lock_info import LockInfo

    try:
        return LockInfo.load(path)
    except (OSError, FormatError):
        return None


def _info_from_temp(folder: Path, name: str) -> LockInfo | None:
    """The owner named by a complete temp file of `name` (an atomic write killed before its rename)."""
    try:
        candidates = [p for p in folder.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".tmp")]
    except OSError:
        return None
    for path in candidates:
        info = _read_owner(path)
        if info is not None:
            return info
    return None


def _chapter_or_none(chapter: int | None) -> int | None:
    """Chapter 0 ("nothing written yet") is no chapter: info.json only names real chapters (>= 1)."""
    return chapter if chapter is not None and chapter >= 1 else None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host. Unsure means alive (never steal on doubt)."""
    if os.name == "nt":
        return True  # os.kill(pid, 0) would terminate it on Windows; rely on the heartbeat there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # PermissionError: it exists, owned by someone else
    return True


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from studio.models.lock_info import TOOL_NAME

    try:
        return version(TOOL_NAME)
    except PackageNotFoundError:
        return "0+unknown"


class ProjectLock:
    """`with ProjectLock(paths, chapter=n):` — or `acquire()` / `release()` explicitly."""

    def __init__(
        self,
        paths: ProjectPaths,
        chapter: int | None = None,
        *,
        heartbeat_interval: float = HEARTBEAT_INTERVAL,
        stale_after: float = STALE_AFTER,
        info_grace: float = INFO_GRACE,
    ) -> None:
        self.paths = paths
        self.chapter = _chapter_or_none(chapter)
        self.heartbeat_interval = heartbeat_interval
        self.stale_after = stale_after
        self.info_grace = info_grace
        self._mutex = threading.RLock()
        self._held = False
        self._lost = False
        self._info: LockInfo | None = None
        self._inode: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- inspection

    @cached_property
    def host(self) -> str:
        """This machine's name, as info.json records it (asked on first use: a free lock never needs it)."""
        import socket

        return socket.gethostname()

    @property
    def held(self) -> bool:
        return self._held

    @property
    def lost(self) -> bool:
        """True once a heartbeat found that info.json no longer names us (taken over while we slept)."""
        return self._lost

    @property
    def info(self) -> LockInfo | None:
        return self._info

    def status(self) -> LockStatus:
        lock_dir = self.paths.lock_dir
        try:
            st = os.stat(lock_dir)
        except FileNotFoundError:
            return LockStatus(LockState.FREE, "free")
        from studio.models.lock_info import LockInfo, now_local

        try:
            info: LockInfo | None = LockInfo.load(self.paths.lock_info)
            cause = ""
        except FileNotFoundError:
            info, cause = _info_from_temp(lock_dir, self.paths.lock_info.name), "stale_no_info"
        except (FormatError, OSError):
            info, cause = None, "stale_corrupt"
        if info is None:
            # Killed between mkdir and writing info.json, or still writing it: judge by the folder's age.
            age = time.time() - st.st_mtime
            if age > self.info_grace:
                return LockStatus(LockState.STALE, cause, None, age, st.st_ino)
            return LockStatus(LockState.HELD_ALIVE, "creating", None, age, st.st_ino)
        age = (now_local() - info.last_seen()).total_seconds()
        if self._held and self._is_ours(info):
            return LockStatus(LockState.HELD_ALIVE, "held_mine", info, age, st.st_ino, mine=True)
        if info.host == self.host and not pid_alive(info.pid):
            return LockStatus(LockState.STALE, "stale_pid", info, age, st.st_ino)
        if age > self.stale_after:
            return LockStatus(LockState.STALE, "stale_heartbeat", info, age, st.st_ino)
        return LockStatus(LockState.HELD_ALIVE, "held", info, age, st.st_ino)

    # ---- acquire / release

    def acquire(self, take_over_stale: bool = False, timeout: float = 2.0) -> LockInfo:
        """Take the lock or raise LockBusyError / StaleLockError (both LockHeldError, exit code 4).

        `timeout` only bounds waiting for another process's take-over in progress (milliseconds).
        """
        with self._mutex:
            if self._held:
                raise RuntimeError("ProjectLock.acquire() called twice")
            deadline = time.monotonic() + timeout
            while True:
                if self._try_create():
                    assert self._info is not None
                    return self._info
                st = self.status()
                if st.state is LockState.HELD_ALIVE and st.cause != "creating":
                    raise LockBusyError(self.paths.root, st)
                if st.state is LockState.STALE and not take_over_stale:
                    raise StaleLockError(self.paths.root, st)
                if st.state is LockState.STALE and self._take_over():
                    assert self._info is not None
                    return self._info
                # FREE (released meanwhile), "creating", or another take-over in progress: look again.
                if time.monotonic() > deadline:
                    guard = self._guard_owner()
                    if guard is not None:
                        raise LockBusyError(self.paths.root, LockStatus(LockState.HELD_ALIVE, "takeover", guard))
                    raise LockBusyError(self.paths.root, self.status())
                time.sleep(0.02)

    def release(self) -> bool:
        """Remove the lock if it is still ours; True if removed. Safe to call more than once."""
        self._stop_heartbeat()
        with self._mutex:
            if not self._held:
                return False
            self._held = False
            atexit.unregister(self._atexit_release)
            current = self._read_info()
            if current is None or not self._is_ours(current):
                _log().warning("%s: not removing the lock, it no longer names this process", self.paths.lock_dir)
                return False
            return self._discard(self.paths.lock_dir, self._inode)

    def refresh(self) -> bool:
        """Write a new heartbeat (and the current chapter). False if not held or the lock was lost."""
        with self._mutex:
            if not self._held or self._info is None:
                return False
            current = self._read_info()
            if current is None or not self._is_ours(current):
                self._lost = True
                self._stop.set()
                _log().error("%s: the project lock was taken over by another process", self.paths.lock_dir)
                return False
            from studio.models.lock_info import now_local

            self._info = self._info.model_copy(update={"heartbeat": now_local(), "chapter": self.chapter})
            atomic_write_json(self.paths.lock_info, self._info.to_data())
            return True

    def update_chapter(self, chapter: int | None) -> None:
        self.chapter = _chapter_or_none(chapter)
        self.refresh()

    def ensure_held(self) -> None:
        """Raise unless we still hold the lock: call before a commit."""
        if not self._held or self._lost:
            raise LockBusyError(self.paths.root, self.status())

    def __enter__(self) -> Self:
        if not self._held:
            self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    # ---- internals

    def _is_ours(self, info: LockInfo) -> bool:
        mine = self._info
        return (
            mine is not None
            and info.pid == mine.pid
            and info.host == mine.host
            and info.started == mine.started
        )

    def _read_info(self) -> LockInfo | None:
        return _read_owner(self.paths.lock_info)

    def _try_create(self) -> bool:
        lock_dir = self.paths.lock_dir
        if not self.paths.root.is_dir():
            raise ProjectNotFoundError(f"{self.paths.root} is not a folder")
        from studio.models.lock_info import TOOL_NAME, LockInfo, now_local

        try:
            os.mkdir(lock_dir)
        except FileExistsError:
            return False
        now = now_local()
        info = LockInfo(
            pid=os.getpid(),
            host=self.host,
            started=now,
            chapter=self.chapter,
            heartbeat=now,
            tool=TOOL_NAME,
            version=_version(),
        )
        try:
            self._inode = os.stat(lock_dir).st_ino
            atomic_write_json(self.paths.lock_info, info.to_data())
        except BaseException:
            shutil.rmtree(lock_dir, ignore_errors=True)
            raise
        self._info = info
        self._held = True
        self._lost = False
        atexit.register(self._atexit_release)
        self._start_heartbeat()
        return True

    def _guard_owner(self) -> LockInfo | None:
        guard = self.paths.root / GUARD_NAME
        if not guard.is_dir():
            return None
        return _read_owner(guard / GUARD_OWNER) or _info_from_temp(guard, GUARD_OWNER)

    def _take_over(self) -> bool:
        """Remove a stale lock and create ours, under the take-over guard. False: look again."""
        guard = self.paths.root / GUARD_NAME
        try:
            os.mkdir(guard)
        except FileExistsError:
            try:
                guard_stat = os.stat(guard)
            except FileNotFoundError:
                return False
            owner = self._guard_owner()
            if owner is not None:
                abandoned = owner.host == self.host and not pid_alive(owner.pid)
            else:
                abandoned = time.time() - guard_stat.st_mtime > self.info_grace
            if abandoned:
                self._discard(guard, guard_stat.st_ino)  # a take-over that was killed half-way
            return False
        from studio.models.lock_info import TOOL_NAME, LockInfo, now_local

        try:
            now = now_local()
            owner_info = LockInfo(pid=os.getpid(), host=self.host, started=now, heartbeat=now, tool=TOOL_NAME)
            atomic_write_json(guard / GUARD_OWNER, owner_info.to_data())
            st = self.status()  # re-judge under the guard: the lock may have changed meanwhile
            if st.state is LockState.STALE:
                _log().warning("%s: taking over (%s)", self.paths.lock_dir, st.reason)
                self._discard(self.paths.lock_dir, st.inode)
            elif st.state is LockState.HELD_ALIVE:
                return False
            return self._try_create()
        finally:
            (guard / GUARD_OWNER).unlink(missing_ok=True)
            try:
                os.rmdir(guard)
            except OSError:
                pass

    def _discard(self, path: Path, expected_inode: int | None) -> bool:
        """Rename `path` to a unique trash name, then delete it. If the folder moved is not the one we
        judged (a newer one took its place), put it back instead. True if removed."""
        trash = path.with_name(f".novel.lock.trash-{os.getpid()}-{uuid.uuid4().hex[:12]}")
        try:
            os.rename(path, trash)
        except FileNotFoundError:
            return False
        if expected_inode is not None and os.stat(trash).st_ino != expected_inode:
            try:
                os.rename(trash, path)
                return False
            except OSError:
                _log().error("%s: moved a newer lock aside and could not restore it", path)
        shutil.rmtree(trash, ignore_errors=True)
        return True

    def _start_heartbeat(self) -> None:
        if self.heartbeat_interval <= 0:
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._beat, args=(self._stop,), name="novel-lock-heartbeat", daemon=True
        )
        self._thread.start()

    def _beat(self, stop: threading.Event) -> None:
        while not stop.wait(self.heartbeat_interval):
            try:
                self.refresh()
            except Exception:  # a full disk must not kill the thread silently forever
                _log().exception("%s: heartbeat failed", self.paths.lock_dir)

    def _stop_heartbeat(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self._thread = None

    def _atexit_release(self) -> None:
        try:
            self.release()
        except Exception:
            _log().exception("%s: release at exit failed", self.paths.lock_dir)
