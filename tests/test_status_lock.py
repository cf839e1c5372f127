"""`status` sees a lock held by another process (issue 12, item 4's "锁：空闲" report): in Chinese, in English and
in JSON, also when the same project's status was memoised while it was free (`studio.status_memo`). A lock is
the folder `.novel.lock` with `info.json` naming its holder (`studio.lock`); a file of another name is no lock."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from studio.init_project import init_project
from tests.status_child import status_child

HOLDER = Path(__file__).with_name("lock_holder.py")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return root


def lock_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(("锁：", "Lock:")))


def test_status_reports_a_lock_held_by_another_process(root: Path) -> None:
    # free, and memoised as free (the second run may replay the first)
    for _ in range(2):
        out, _info = status_child(root)
        assert lock_line(out) == "锁：空闲"
    proc = subprocess.Popen([sys.executable, str(HOLDER), str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ACQUIRED"
        zh, _info = status_child(root)
        assert lock_line(zh).startswith(f"锁：被 pid {proc.pid}@"), zh
        assert "（第7章）" in lock_line(zh)
        en, _info = status_child(root, "--lang", "en")
        assert lock_line(en).startswith(f"Lock: held by pid {proc.pid}@"), en
        data, _info = status_child(root, "--json")
        lock = json.loads(data)["lock"]
        assert (lock["state"], lock["cause"], lock["pid"], lock["chapter"]) == ("held_alive", "held", proc.pid, 7)
    finally:
        proc.send_signal(signal.SIGTERM)  # the holder releases the lock on SIGTERM
        proc.wait(timeout=30)
    out, _info = status_child(root)
    assert lock_line(out) == "锁：空闲"


def test_a_file_of_another_name_is_no_lock(root: Path) -> None:
    """What an author (or a helper) might write by hand: not the lock folder, so not a lock."""
    (root / "studio.lock").write_text('{"pid": 1}', encoding="utf-8")
    out, _info = status_child(root)
    assert lock_line(out) == "锁：空闲"
