"""`novel-studio repair` and an unreadable chapter-commit journal (issue 11 item 5): the whole way out.

A commit killed after some step, its journal then broken: `continue` refuses naming the journal and `repair`;
`repair` copies the journal and the staged files into its backup, writes the journal again from the staged
records and says so; `continue` then finishes the commit, to the same chapter, summary, evaluation, state and
ledger as a run that was never interrupted. A staged file broken too: `repair` says what to do by hand and
changes nothing.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from pipeline.decisions import take_recommended
from pipeline.orchestrator import Orchestrator
from studio.cli import continue_cmd
from studio.cli.main import main
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from tests.fake_agents import FakeAgents
from tests.test_orchestrator import assert_consistent, patch_chapters, staging_files


class Killed(BaseException):
    """A kill simulated in process (nothing after the hook runs)."""


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return init_project(tmp_path_factory.mktemp("journal") / "novel", sample=True)


def _kill_commit_after(root: Path, step: str) -> None:
    def hook(name: str) -> None:
        if name == f"commit:{step}":
            raise Killed(name)

    orchestrator = Orchestrator(root, FakeAgents(ProjectPaths(root)), decider=take_recommended, emit=lambda e: None,
                                settings=Settings(), step_hook=hook)
    with pytest.raises(Killed):
        asyncio.run(orchestrator.run(1))


def _result(root: Path) -> dict[str, bytes]:
    paths = ProjectPaths(root)
    files = [paths.chapter(3), paths.summary(3), paths.evaluation(3), paths.current_state,
             paths.global_foreshadowing, paths.storyline_memory("main-arc")]
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


BROKEN: dict[str, bytes] = {
    "truncated": b'{"chapter": 3, "storyline_id": "main-a',
    "not_utf8": b'{"chapter": 3, "steps_done": ["\xff\xfe"]}',
    "wrong_types": b'{"chapter": "\xe4\xb8\x89", "steps_done": "archive"}',
}


@pytest.mark.parametrize("how", sorted(BROKEN))
@pytest.mark.parametrize("step", ["prepared", "archive", "chapter", "state", "log", "checkpoint"])
def test_refuse_then_repair_then_continue_finishes_the_commit(
    sample: Path, tmp_path: Path, step: str, how: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(sample, reference)
    asyncio.run(Orchestrator(reference, FakeAgents(ProjectPaths(reference)), decider=take_recommended,
                             emit=lambda e: None, settings=Settings()).run(1))
    root = tmp_path / "novel"
    shutil.copytree(sample, root)
    _kill_commit_after(root, step)
    paths = ProjectPaths(root)
    journal = paths.commit_journal(3)
    assert journal.is_file()
    journal.write_bytes(BROKEN[how])
    staged = {p.relative_to(root).as_posix(): p.read_bytes() for p in staging_files(root)}
    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", lambda r, s, o: FakeAgents(ProjectPaths(r)))
    project = ["--project", str(root)]

    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code != 0
    assert "staging/commit-chapter-003.json" in said and "novel-studio repair" in said, said
    assert not (staging_files(root) == [])  # nothing of the staged chapter lost

    code, repaired = _run(["repair", "--yes", *project], capsys)
    assert code == 0, repaired
    assert "第 3 章被中断的提交的记录" in repaired and "continue" in repaired, repaired
    backups = list((root / ".novel-studio" / "repair").glob("*"))
    assert len(backups) == 1
    kept = {rel: (backups[0] / rel).read_bytes() for rel in staged if (backups[0] / rel).is_file()}
    assert kept == staged, "the backup must hold the broken journal and every staged file as they were"

    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code == 0, said
    if step == "checkpoint":  # chapter 3 was already counted: finishing its cleanup, the run writes chapter 4
        assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 4
        got, want = _result(root), _result(reference)
        assert all(got[k] == want[k] for k in want if "chapter-003" in k)
    else:
        assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 3
        assert patch_chapters(root) == [1, 2, 3] and _result(root) == _result(reference)
    assert staging_files(root) == []
    assert_consistent(root)


def test_a_broken_staged_file_besides_the_journal_is_said_not_guessed(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "novel"
    shutil.copytree(sample, root)
    _kill_commit_after(root, "chapter")
    paths = ProjectPaths(root)
    paths.commit_journal(3).write_bytes(b"")
    paths.staged_evaluation(3).write_bytes(b"\xff")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != "writes.jsonl"}
    code, said = _run(["repair", "--yes", "--project", str(root)], capsys)
    assert code != 0
    assert "staging/evaluations/chapter-003-eval.json" in said and "手动处理" in said, said
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != "writes.jsonl"} == before
