"""Kill a 3-chapter run at every write point (fault injection, not timing), resume it, and require the
very files of an uninterrupted run: chapters, summaries, evaluations, storyline memory, foreshadowing,
state and changelog byte for byte; nothing left in staging, no temp file anywhere, no lock.

`studio.fileio` counts write points; `NOVEL_STUDIO_FAULT_WRITE=N` SIGKILLs a run half-way through its Nth
one (a complete temp file not yet renamed, half an appended line cut inside a character, a rename not
done). Chapter 4 goes through the polish pass, so the polish steps are crossed too. The work runs in
`tests/fault_runner.py` (a subprocess that forks one child per run). The sweep is split into SHARDS cases
(every SHARDS-th write point each) that together check every point. They are not `serial`: each child kills
itself at its own write point in its own folders, nothing races and nothing is timed, so the cases spread over
the xdist workers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from studio import fileio
from studio.init_project import init_project

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "fault_runner.py"

pytestmark = [
    pytest.mark.skipif(not hasattr(signal, "SIGKILL") or not hasattr(os, "fork"), reason="needs fork and SIGKILL"),
]
SHARDS = 4


def _sweep(tmp_path: Path, *args: str) -> dict[str, list[str] | list[int] | int]:
    pristine = init_project(tmp_path / "pristine", sample=True)
    work = tmp_path / "work"
    work.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "NOVEL_STUDIO_TEST_SCORES": "4:3.7",  # chapter 4: the polish band
        fileio.NO_FSYNC_ENV: "1",
    }
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(pristine), str(work), "5", *args],
        env=env, capture_output=True, text=True, cwd=ROOT, timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, list[str] | list[int] | int] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("shard", range(SHARDS))
def test_kill_at_every_write_point_resumes_to_the_same_project(tmp_path: Path, shard: int) -> None:
    result = _sweep(tmp_path, f"--shard={shard}/{SHARDS}")
    writes = result["writes"]
    assert isinstance(writes, int) and writes > 100  # three chapters, one polished: every stage crossed
    assert result["checked"] == [n for n in range(1, writes + 1) if n % SHARDS == shard]
    assert result["failures"] == []
