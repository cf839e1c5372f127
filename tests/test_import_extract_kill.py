"""Kill an offline extraction of a 3-chapter imported book at every write point (fault injection, not timing),
resume it, and require the very files of an uninterrupted extraction: chapters (never modified), summaries,
storyline memory, foreshadowing, state and changelog, characters, world, style profile, byte for byte; the
import record at the last chapter; nothing left in staging, no temp file, no lock; and no chapter's Summarizer
or once-per-book pass paid twice (but for a kill inside the one write that keeps a paid result). The work runs in
tests/extract_fault_runner.py (a subprocess that forks one child per run), split into SHARDS cases (every
SHARDS-th write point each) that together check every point; not `serial` (see tests/test_fault_injection.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from studio import fileio
from tests.import_extract_helpers import imported_project

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "extract_fault_runner.py"

pytestmark = [
    pytest.mark.skipif(not hasattr(signal, "SIGKILL") or not hasattr(os, "fork"), reason="needs fork and SIGKILL"),
]
SHARDS = 3


@pytest.mark.parametrize("shard", range(SHARDS))
def test_a_kill_at_every_write_point_of_an_extraction_resumes_to_the_same_project(
    tmp_path: Path, shard: int
) -> None:
    pristine = imported_project(tmp_path / "pristine", 3, chars=600)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), fileio.NO_FSYNC_ENV: "1"}
    done = subprocess.run([sys.executable, str(RUNNER), str(pristine), str(work), f"--shard={shard}/{SHARDS}"],
                          env=env, capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    writes = result["writes"]
    assert isinstance(writes, int) and writes > 60  # the passes and three journaled commits: every step crossed
    assert len(result["keeps"]) == 5  # the cast pass, the style pass and three kept replies
    assert result["checked"] == [n for n in range(1, writes + 1) if n % SHARDS == shard]
    assert result["failures"] == []
