"""SIGKILL the orchestrator at every step boundary and at random points, resume, and check the invariants:
each chapter committed exactly once, no staging leftovers, replay(changelog) == state, lock released."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.commit import STEPS
from pipeline.decisions import take_recommended
from pipeline.orchestrator import Orchestrator
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from tests.fake_agents import FakeAgents
from tests.test_orchestrator import assert_consistent, patch_chapters, staging_files

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "crash_runner.py"
SCORES = "3:4.2;4:3.2,4.1"  # chapter 4 takes a revision, so the revising steps are crossed too

pytestmark = [
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL"),
    pytest.mark.serial,
    pytest.mark.xdist_group("serial"),
]


def _spawn(root: Path, chapters: int, **env: str) -> subprocess.Popen[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), "NOVEL_STUDIO_TEST_SCORES": SCORES, **env}
    return subprocess.Popen(
        [sys.executable, str(RUNNER), str(root), str(chapters)],
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def _resume_and_check(root: Path, chapters: int) -> None:
    paths = ProjectPaths(root)
    done = Checkpoint.load(paths.checkpoint).last_completed_chapter
    agents = FakeAgents(paths, scores={3: [4.2], 4: [3.2, 4.1]})
    orch = Orchestrator(root, agents, decider=take_recommended, emit=lambda e: None, settings=Settings())
    result = asyncio.run(orch.run(2 + chapters - done))  # 0: only finish what a kill left
    assert result.exit_code == 0, result.messages
    expected = list(range(1, 3 + chapters))
    assert patch_chapters(root) == expected  # exactly once each, in order
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 2 + chapters
    for n in range(3, 3 + chapters):
        assert paths.chapter(n).is_file() and paths.log(n).is_file()
    assert staging_files(root) == []
    assert_consistent(root)


STEP_POINTS = [
    ("draft", ""),
    ("summary", ""),
    ("refine", ""),
    ("judge", ""),
    ("revise-start", "4"),
    ("revise", "4"),
    ("commit:prepared", "3"),
    *[(f"commit:{step}", "4") for step in STEPS],
]


@pytest.mark.parametrize(("step", "chapter"), STEP_POINTS)
def test_kill_at_step_boundary(tmp_path: Path, step: str, chapter: str) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    proc = _spawn(root, 2, NOVEL_STUDIO_TEST_KILL_AT=step, NOVEL_STUDIO_TEST_KILL_CHAPTER=chapter)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, err
    assert ProjectPaths(root).lock_dir.exists()  # left behind by the dead process
    _resume_and_check(root, 2)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_kill_at_random_points(tmp_path: Path, seed: int) -> None:
    """Several kills in a row at write points drawn from a seeded generator (fault injection in
    `studio.fileio`, not a timer), each resumed by the next subprocess or in process: the same kills on
    every machine, however loaded."""
    rng = random.Random(seed)
    root = init_project(tmp_path / "novel", sample=True)
    for _ in range(3):
        done = Checkpoint.load(ProjectPaths(root).checkpoint).last_completed_chapter
        if done >= 4:
            break
        proc = _spawn(root, 4 - done, NOVEL_STUDIO_FAULT_WRITE=str(rng.randint(1, 120)))
        _, err = proc.communicate(timeout=120)
        assert proc.returncode in (0, -signal.SIGKILL), err  # 0: the run had fewer writes than drawn
    _resume_and_check(root, 2)
