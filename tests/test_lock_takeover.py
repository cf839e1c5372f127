"""Issue 11 item 8: a process killed while taking the lock (or taking over a stale one) must not block the
next run for `info_grace` with a misleading message. Each test fails on the code before the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from studio.init_project import init_project
from studio.lock import GUARD_NAME, GUARD_OWNER, LockBusyError, LockState, ProjectLock
from studio.models.lock_info import LockInfo, now_local
from studio.paths import ProjectPaths


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=False)


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _owner(pid: int) -> dict[str, Any]:
    return LockInfo(pid=pid, host=ProjectLock(ProjectPaths(Path("."))).host, started=now_local()).to_data()


def test_a_guard_left_by_a_killed_take_over_does_not_block(root: Path) -> None:
    paths = ProjectPaths(root)
    pid = dead_pid()
    paths.lock_dir.mkdir()
    (paths.lock_dir / "info.json").write_text(json.dumps(_owner(pid), default=str), encoding="utf-8")
    guard = root / GUARD_NAME
    guard.mkdir()
    (guard / GUARD_OWNER).write_text(json.dumps(_owner(pid), default=str), encoding="utf-8")
    lock = ProjectLock(paths, heartbeat_interval=0, info_grace=3600)  # age never decides here
    lock.acquire(take_over_stale=True, timeout=5)
    try:
        assert lock.held and not guard.exists()
    finally:
        lock.release()


def test_a_lock_killed_before_its_info_rename_is_stale_at_once(root: Path) -> None:
    paths = ProjectPaths(root)
    paths.lock_dir.mkdir()
    (paths.lock_dir / ".info.json.abcd1234.tmp").write_text(json.dumps(_owner(dead_pid()), default=str))
    status = ProjectLock(paths, info_grace=3600).status()
    assert status.state is LockState.STALE and status.cause == "stale_pid"


def test_a_live_take_over_is_named_in_the_message(root: Path) -> None:
    paths = ProjectPaths(root)
    paths.lock_dir.mkdir()
    (paths.lock_dir / "info.json").write_text(json.dumps(_owner(dead_pid()), default=str), encoding="utf-8")
    guard = root / GUARD_NAME
    guard.mkdir()
    (guard / GUARD_OWNER).write_text(json.dumps(_owner(os.getpid()), default=str), encoding="utf-8")
    with pytest.raises(LockBusyError) as caught:
        ProjectLock(paths, heartbeat_interval=0).acquire(take_over_stale=True, timeout=0.05)
    assert "taking over" in str(caught.value) and GUARD_NAME in str(caught.value)
    assert str(os.getpid()) in str(caught.value)
