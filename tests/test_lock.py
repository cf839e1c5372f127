"""The project lock: atomic mkdir, holder info, stale detection, take-over races, every release path."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from studio.errors import LockHeldError
from studio.fileio import atomic_write_json, read_json
from studio.lock import LockBusyError, LockState, ProjectLock, StaleLockError
from studio.models.lock_info import LockInfo, now_local
from studio.paths import ProjectPaths
from studio.signals import Terminated, install_termination_handlers

RACE_ROUNDS = int(os.environ.get("LOCK_RACE_ROUNDS", "15"))
HOLDER = Path(__file__).with_name("lock_holder.py")


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    root = tmp_path / "novel"
    root.mkdir()
    return ProjectPaths(root)


def write_info(
    paths: ProjectPaths, *, pid: int, host: str | None, age: float = 0.0, chapter: int = 3
) -> None:
    paths.lock_dir.mkdir(exist_ok=True)
    moment = now_local() - timedelta(seconds=age)
    info = LockInfo(pid=pid, host=host, started=moment, heartbeat=moment, chapter=chapter)
    atomic_write_json(paths.lock_info, info.to_data())


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def age_dir(path: Path, seconds: float) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old))


def no_trash(paths: ProjectPaths) -> bool:
    return not [p for p in paths.root.iterdir() if p.name.startswith(".novel.lock.")]


# ---- basics


def test_acquire_writes_info_and_release_removes(paths: ProjectPaths) -> None:
    lock = ProjectLock(paths, chapter=12)
    info = lock.acquire()
    assert paths.lock_dir.is_dir()
    data = read_json(paths.lock_info)
    assert data["pid"] == os.getpid()
    assert data["host"] == socket.gethostname()
    assert data["chapter"] == 12
    assert data["tool"] == "novel-studio"
    assert data["started"] == data["heartbeat"]
    assert info.pid == os.getpid()
    st = lock.status()
    assert (st.state, st.mine) == (LockState.HELD_ALIVE, True)
    assert lock.release() is True
    assert not paths.lock_dir.exists()
    assert lock.release() is False  # idempotent
    assert lock.status().state is LockState.FREE
    assert no_trash(paths)


def test_second_acquire_in_same_process_names_holder(paths: ProjectPaths) -> None:
    with ProjectLock(paths, chapter=8):
        with pytest.raises(LockHeldError) as err:
            ProjectLock(paths).acquire()
        assert isinstance(err.value, LockBusyError)
        message = str(err.value)
        assert f"pid {os.getpid()}" in message
        assert socket.gethostname() in message
        assert "chapter 8" in message
        assert "since" in message
        assert err.value.exit_code == 4
        assert "pid" in err.value.status.describe("zh")
    assert not paths.lock_dir.exists()


def test_context_manager_releases_on_exception_and_keyboard_interrupt(paths: ProjectPaths) -> None:
    for exc in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)):
            with ProjectLock(paths):
                assert paths.lock_dir.exists()
                raise exc
        assert not paths.lock_dir.exists()


def test_missing_project_folder(tmp_path: Path) -> None:
    from studio.errors import ProjectNotFoundError

    with pytest.raises(ProjectNotFoundError):
        ProjectLock(ProjectPaths(tmp_path / "nope")).acquire()


# ---- stale detection


def test_dead_pid_on_this_host_is_stale(paths: ProjectPaths) -> None:
    write_info(paths, pid=dead_pid(), host=socket.gethostname())
    lock = ProjectLock(paths)
    st = lock.status()
    assert (st.state, st.cause) == (LockState.STALE, "stale_pid")
    with pytest.raises(StaleLockError) as err:
        lock.acquire()
    assert err.value.status.state is LockState.STALE
    assert isinstance(err.value, LockHeldError)
    lock.acquire(take_over_stale=True)
    assert read_json(paths.lock_info)["pid"] == os.getpid()
    lock.release()
    assert no_trash(paths)


def test_old_heartbeat_is_stale_even_on_another_host(paths: ProjectPaths) -> None:
    write_info(paths, pid=os.getppid(), host="other-host.example", age=31 * 60)
    st = ProjectLock(paths).status()
    assert (st.state, st.cause) == (LockState.STALE, "stale_heartbeat")
    assert "31 min" in st.reason
    assert "31 分钟" in st.describe("zh")


def test_fresh_heartbeat_on_another_host_is_alive_whatever_the_pid(paths: ProjectPaths) -> None:
    write_info(paths, pid=dead_pid(), host="other-host.example", age=60)
    st = ProjectLock(paths).status()
    assert st.state is LockState.HELD_ALIVE
    with pytest.raises(LockBusyError, match="other-host.example"):
        ProjectLock(paths).acquire(take_over_stale=True)


def test_live_pid_with_old_heartbeat_is_stale(paths: ProjectPaths) -> None:
    write_info(paths, pid=os.getppid(), host=socket.gethostname(), age=45 * 60)
    assert ProjectLock(paths).status().state is LockState.STALE


def test_stale_threshold_is_a_parameter(paths: ProjectPaths) -> None:
    write_info(paths, pid=os.getppid(), host=socket.gethostname(), age=5)
    assert ProjectLock(paths).status().state is LockState.HELD_ALIVE
    assert ProjectLock(paths, stale_after=2).status().state is LockState.STALE


def test_seed_format_info_without_host_or_heartbeat(paths: ProjectPaths) -> None:
    # The seed's `echo '{"pid": .., "started": .., "chapter": ..}'`: judged by `started` alone.
    paths.lock_dir.mkdir()
    paths.lock_info.write_text('{"pid": 1, "started": "2020-01-01T00:00:00", "chapter": 4}', encoding="utf-8")
    st = ProjectLock(paths).status()
    assert (st.state, st.cause) == (LockState.STALE, "stale_heartbeat")


@pytest.mark.parametrize("content", [None, "{ torn", '{"pid": "x"}'])
def test_lock_dir_without_readable_info(paths: ProjectPaths, content: str | None) -> None:
    paths.lock_dir.mkdir()
    if content is not None:
        paths.lock_info.write_text(content, encoding="utf-8")
    lock = ProjectLock(paths)
    st = lock.status()
    assert (st.state, st.cause) == (LockState.HELD_ALIVE, "creating")  # maybe still being written
    with pytest.raises(LockBusyError):
        lock.acquire(take_over_stale=True, timeout=0.1)
    age_dir(paths.lock_dir, 60)
    st = lock.status()
    assert st.state is LockState.STALE
    assert st.cause == ("stale_no_info" if content is None else "stale_corrupt")
    with pytest.raises(StaleLockError):
        lock.acquire()
    lock.acquire(take_over_stale=True)
    assert read_json(paths.lock_info)["pid"] == os.getpid()
    lock.release()


# ---- ownership, heartbeat


def test_release_never_removes_a_foreign_lock(paths: ProjectPaths) -> None:
    lock = ProjectLock(paths, heartbeat_interval=0)
    lock.acquire()
    write_info(paths, pid=os.getppid(), host="other-host.example")  # taken over while we slept
    assert lock.refresh() is False
    assert lock.lost
    with pytest.raises(LockHeldError):
        lock.ensure_held()
    assert lock.release() is False
    assert read_json(paths.lock_info)["host"] == "other-host.example"


def test_heartbeat_thread_refreshes_the_file(paths: ProjectPaths) -> None:
    lock = ProjectLock(paths, chapter=1, heartbeat_interval=0.05)
    with lock:
        # Age our own heartbeat by an hour; the thread must bring it back to now.
        info = LockInfo.load(paths.lock_info)
        old = info.model_copy(update={"heartbeat": info.started - timedelta(hours=1)})
        atomic_write_json(paths.lock_info, old.to_data())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if LockInfo.load(paths.lock_info).last_seen() >= info.started:
                break
            time.sleep(0.02)
        assert LockInfo.load(paths.lock_info).last_seen() >= info.started
        lock.update_chapter(2)
        assert read_json(paths.lock_info)["chapter"] == 2
        assert not lock.lost
    assert not paths.lock_dir.exists()


# ---- races


def race(locks: list[ProjectLock], take_over_stale: bool) -> list[str]:
    """All locks call acquire() at the same moment; returns "won"/"lost" per lock, in order."""
    barrier = threading.Barrier(len(locks))
    results = ["?"] * len(locks)

    def run(i: int) -> None:
        barrier.wait()
        try:
            locks[i].acquire(take_over_stale=take_over_stale)
            results[i] = "won"
        except LockHeldError:
            results[i] = "lost"

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(locks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_threads_racing_to_take_over_a_stale_lock_one_wins(paths: ProjectPaths) -> None:
    for _ in range(RACE_ROUNDS):
        write_info(paths, pid=dead_pid(), host=socket.gethostname())
        locks = [ProjectLock(paths, heartbeat_interval=0) for _ in range(4)]
        results = race(locks, take_over_stale=True)
        assert sorted(results) == ["lost", "lost", "lost", "won"]
        assert [lock.held for lock in locks] == [r == "won" for r in results]
        for lock in locks:
            lock.release()
        assert not paths.lock_dir.exists()
        assert no_trash(paths)


def test_threads_racing_for_a_free_lock_one_wins(paths: ProjectPaths) -> None:
    locks = [ProjectLock(paths, heartbeat_interval=0) for _ in range(6)]
    results = race(locks, take_over_stale=False)
    assert results.count("won") == 1
    for lock in locks:
        lock.release()
    assert not paths.lock_dir.exists()


# ---- a real second process


@pytest.fixture
def holder(paths: ProjectPaths) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, str(HOLDER), str(paths.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "ACQUIRED", proc.stderr.read() if proc.stderr else ""
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_other_process_holds_the_lock(paths: ProjectPaths, holder: subprocess.Popen[str]) -> None:
    with pytest.raises(LockBusyError) as err:
        ProjectLock(paths).acquire(take_over_stale=True)
    assert f"pid {holder.pid}" in str(err.value)
    assert "chapter 7" in str(err.value)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_termination_signal_releases_the_lock(
    paths: ProjectPaths, holder: subprocess.Popen[str], sig: signal.Signals
) -> None:
    assert paths.lock_dir.exists()
    holder.send_signal(sig)
    assert holder.wait(timeout=10) == 128 + sig
    assert not paths.lock_dir.exists()


def test_sigkill_leaves_a_stale_lock_that_can_be_taken_over(
    paths: ProjectPaths, holder: subprocess.Popen[str]
) -> None:
    holder.kill()
    holder.wait()  # reaped: a zombie would still answer kill(pid, 0)
    assert paths.lock_dir.exists()
    lock = ProjectLock(paths)
    st = lock.status()
    assert (st.state, st.cause) == (LockState.STALE, "stale_pid")
    assert f"process {holder.pid} on host" in st.reason
    assert "no longer exists" in st.reason
    with pytest.raises(StaleLockError):
        lock.acquire()
    lock.acquire(take_over_stale=True)
    assert read_json(paths.lock_info)["pid"] == os.getpid()
    lock.release()
    assert not paths.lock_dir.exists()


def test_atexit_releases_a_lock_left_held(paths: ProjectPaths) -> None:
    proc = subprocess.run(
        [sys.executable, str(HOLDER), str(paths.root), "exit"], capture_output=True, text=True, timeout=30
    )
    assert proc.stdout.strip() == "ACQUIRED"
    assert proc.returncode == 0
    assert not paths.lock_dir.exists()


# ---- signal helper


def test_install_termination_handlers_raises_and_restores() -> None:
    before = signal.getsignal(signal.SIGTERM)
    restore = install_termination_handlers()
    try:
        with pytest.raises(Terminated) as err:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        assert err.value.signum == signal.SIGTERM
        assert isinstance(err.value, KeyboardInterrupt)
        os.kill(os.getpid(), signal.SIGTERM)  # a repeat is ignored while shutting down
        time.sleep(0.05)
    finally:
        restore()
    assert signal.getsignal(signal.SIGTERM) == before


def test_install_termination_handlers_with_callback() -> None:
    seen: list[int] = []
    restore = install_termination_handlers(seen.append)
    try:
        os.kill(os.getpid(), signal.SIGHUP)
        time.sleep(0.05)
    finally:
        restore()
    assert seen == [signal.SIGHUP]


def test_install_from_a_thread_is_a_noop() -> None:
    before = signal.getsignal(signal.SIGTERM)
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(install_termination_handlers()))
    t.start()
    t.join()
    assert signal.getsignal(signal.SIGTERM) == before


def test_chapter_zero_is_no_chapter_and_leaves_no_stale_lock(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path)
    lock = ProjectLock(paths, chapter=0)
    lock.acquire()
    try:
        assert lock.info is not None and lock.info.chapter is None
    finally:
        lock.release()
    assert not paths.lock_dir.exists()
