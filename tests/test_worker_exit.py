"""`tests/worker_exit.py`: a pytest-xdist worker whose teardown outlasts execnet's 5 s exit wait is not
interrupted (the stray KeyboardInterrupt every full run printed from hypothesis's gc callback).

A real inner run: `pytest -n 1` on one trivial test, whose worker's garbage collections are slowed by a gc
callback (1.5 s each; pytest's unconfigure runs five), as a large heap on a loaded machine slows them. Without
the plugin, execnet's SIGINT lands in that callback (which notes it in a file) and the gc swallows it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SLOW_GC = """
import gc, os, time

def slow_gc(phase, info):
    if phase == "stop" and os.environ.get("SLOW_GC_ARMED"):
        try:
            time.sleep(1.5)
        except KeyboardInterrupt:  # raised here, it is swallowed by the gc ("Exception ignored in")
            open("interrupted", "w").close()
            raise

def pytest_sessionfinish(session):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ["SLOW_GC_ARMED"] = "1"  # only the teardown after the last test is slow
        gc.callbacks.append(slow_gc)
"""


def _inner_run(tmp_path: Path, *plugins: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(SLOW_GC, encoding="utf-8")
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    args = [sys.executable, "-m", "pytest", "-n", "1", "-p", "no:cacheprovider", "-p", "no:randomly",
            *(a for p in plugins for a in ("-p", p)), str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(args, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.mark.skipif(sys.platform == "win32", reason="execnet sends SIGINT only on POSIX")
def test_a_slow_worker_teardown_is_not_interrupted(tmp_path: Path) -> None:
    done = _inner_run(tmp_path, "tests.worker_exit")
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "1 passed" in said, said
    assert "KeyboardInterrupt" not in said, said
    assert not (tmp_path / "interrupted").exists(), "execnet's SIGINT interrupted the worker's teardown"
