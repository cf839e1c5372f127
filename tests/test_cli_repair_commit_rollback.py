"""`novel-studio repair` and an interrupted commit stopped by a broken staged file (issue 11 item 5): the whole way
out (`studio.commit_rollback`).

A commit killed after some step, then a staged file it has still to use broken: `continue` refuses naming the file
and `repair`; `repair` backs up everything it touches, takes the commit back to before its commit point and sets
the broken file aside; `continue` then redoes only the stage that made the file and commits, to the same chapter,
summary, evaluation, state, ledger and memory as a run that was never interrupted, without paying again for
what was intact.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from functools import partial
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
from tests.fault_runner import forked, kill_sweep
from tests.test_cli_repair_commit_journal import Killed, _kill_commit_after
from tests.test_orchestrator import assert_consistent, patch_chapters, staging_files


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return init_project(tmp_path_factory.mktemp("rollback") / "novel", sample=True)


@pytest.fixture(scope="module")
def reference(sample: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("reference") / "novel"
    shutil.copytree(sample, root)
    asyncio.run(Orchestrator(root, FakeAgents(ProjectPaths(root)), decider=take_recommended, emit=lambda e: None,
                             settings=Settings()).run(1))
    return _result(root)


def _result(root: Path) -> dict[str, object]:
    """What the commit makes, the changelog's lines without their time stamps."""
    paths = ProjectPaths(root)
    files = [paths.chapter(3), paths.summary(3), paths.evaluation(3), paths.current_state,
             paths.global_foreshadowing, paths.storyline_memory("main-arc")]
    got: dict[str, object] = {p.relative_to(root).as_posix(): p.read_bytes() for p in files}
    lines = [json.loads(line) for line in paths.changelog.read_text(encoding="utf-8").splitlines()]
    got["changelog"] = [{k: v for k, v in line.items() if k != "recorded_at"} for line in lines]
    return got


def _recording_agents(monkeypatch: pytest.MonkeyPatch) -> list[FakeAgents]:
    """`continue`'s agents are fakes, each kept in the returned list (their `log` says which stages ran)."""
    agents: list[FakeAgents] = []

    def factory(r: Path, s: object, o: object) -> FakeAgents:
        agents.append(FakeAgents(ProjectPaths(r)))
        return agents[-1]

    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", factory)
    return agents


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


def _staged(paths: ProjectPaths, what: str) -> Path:
    return {
        "text": paths.staged_chapter(3), "summary": paths.staged_summary(3), "delta": paths.staged_delta(3),
        "evaluation": paths.staged_evaluation(3), "memory": paths.staged_memory("main-arc"),
        "log": paths.staged_log(3), "refine": paths.staged_refine(3),
        "polish": paths.staged_refine(3).with_name("chapter-003-polish.json"),
    }[what]


def _break(paths: ProjectPaths, what: str) -> Path:
    """Break the staged files `what` names ("text+refine": both); the first, the one the commit refuses, is returned."""
    files = [_staged(paths, name) for name in what.split("+")]
    for path in files:
        path.write_bytes(b"" if path == paths.staged_chapter(3) else b"\xff" + path.read_bytes())
    return files[0]


# The commit killed after each step that leaves a staged file still to use, and the file broken then; and the
# stages `continue` runs again afterwards (the chapter log is rebuilt without a model call).
CASES: list[tuple[str, str, set[str]]] = [
    ("prepared", "text", set()),  # rebuilt from its refine record: nothing paid again
    ("prepared", "text+refine", {"write", "summarize", "refine", "judge"}),  # no record holds the text
    ("archive", "summary", {"summarize"}),
    ("chapter", "evaluation", {"judge"}),
    ("summary", "delta", {"summarize"}),
    ("evaluation", "memory", {"summarize"}),
    ("memory", "log", set()),
    ("state", "log", set()),
    ("foreshadowing", "log", set()),
]


@pytest.mark.parametrize(("step", "what", "redone"), CASES, ids=[f"{s}-{w}" for s, w, _ in CASES])
def test_refuse_then_repair_then_continue_redoes_only_the_broken_stage(
    sample: Path, reference: dict[str, object], tmp_path: Path, step: str, what: str, redone: set[str],
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "novel"
    shutil.copytree(sample, root)
    _kill_commit_after(root, step)
    paths = ProjectPaths(root)
    assert paths.commit_journal(3).is_file()
    broken = _break(paths, what)
    rel = broken.relative_to(root).as_posix()
    before = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
              if p.is_file() and ".novel-studio" not in p.relative_to(root).parts}
    agents = _recording_agents(monkeypatch)
    project = ["--project", str(root)]

    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code != 0
    assert rel in said and "novel-studio repair" in said, said

    code, repaired = _run(["repair", "--yes", *project], capsys)
    assert code == 0, repaired
    assert "第 3 章的提交被中断" in repaired and rel in repaired and "continue" in repaired, repaired
    [backup] = list((root / ".novel-studio" / "repair").glob("*"))
    kept = {p.relative_to(backup).as_posix(): p.read_bytes() for p in backup.rglob("*") if p.is_file()}
    assert kept[rel] == before[rel] and kept["staging/commit-chapter-003.json"] == before[
        "staging/commit-chapter-003.json"], "the backup must hold the broken file and the journal as they were"
    assert all(before[k] == v for k, v in kept.items() if k in before), "the backup holds the files as they were"
    if what == "text":  # rewritten whole from its refine record (the broken one is in the backup)
        assert broken.read_bytes() == reference[paths.chapter(3).relative_to(root).as_posix()]
    else:
        assert not broken.exists()
    assert not paths.commit_journal(3).exists()
    assert not paths.chapter(3).exists() and patch_chapters(root) == [1, 2]

    agents.clear()
    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code == 0, said
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 3
    assert patch_chapters(root) == [1, 2, 3] and _result(root) == reference
    assert {stage for a in agents for stage, _ in a.log} == redone, [a.log for a in agents]
    assert staging_files(root) == []
    assert_consistent(root)


def test_a_broken_archived_ledger_is_not_rolled_back(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A problem outside the staging (the archive's ledger copy the rollback would restore from) is the author's:
    repair changes nothing for it and says so."""
    root = tmp_path / "novel"
    shutil.copytree(sample, root)
    _kill_commit_after(root, "chapter")
    paths = ProjectPaths(root)
    paths.staged_evaluation(3).write_bytes(b"\xff")
    (root / "logs" / "chapter-003" / "foreshadowing-before.json").write_bytes(b"\xff")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != "writes.jsonl"}
    code, said = _run(["repair", "--yes", "--project", str(root)], capsys)
    assert code != 0
    assert "logs/chapter-003/foreshadowing-before.json" in said, said
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != "writes.jsonl"} == before


@pytest.mark.parametrize(("step", "what"), [("state", "log"), ("prepared", "text")])
def test_a_repair_killed_at_any_write_point_is_run_again_and_continue_finishes(
    sample: Path, reference: dict[str, object], tmp_path: Path, step: str, what: str,
) -> None:
    """`repair` dies by SIGKILL at each of its writes (fault injection, `tests/fault_runner.py`); run again, it
    finishes the rollback (or, past the rollback's journal removal, sets the broken file aside), and `continue`
    then commits the same chapter as an uninterrupted run. After "state" the most is taken back (chapter,
    summary, evaluation, memory, state merged) and the staged log is the one file left to use; after "prepared"
    the staged text is broken and rebuilt from its refine record."""
    base = tmp_path / "base"
    shutil.copytree(sample, base)
    _kill_commit_after(base, step)
    _break(ProjectPaths(base), what)

    def repair(root: Path) -> int:
        return main(["repair", "--yes", "--project", str(root)])

    def resume(root: Path) -> int:
        orchestrator = Orchestrator(root, FakeAgents(ProjectPaths(root)), decider=take_recommended,
                                    emit=lambda e: None, settings=Settings())
        return asyncio.run(orchestrator.run(1)).exit_code

    probe = tmp_path / "probe"
    shutil.copytree(base, probe)
    report = tmp_path / "writes.txt"
    assert forked(partial(repair, probe), None, report) == 0
    writes = int(report.read_text())
    assert writes >= {"state": 8, "prepared": 4}[step]  # the backup's copies, the restores, the removals, the moves back

    def fresh(n: int) -> Path:
        root = tmp_path / f"kill-{n}"
        shutil.copytree(base, root)
        return root

    def check(root: Path) -> list[str]:
        if (code := forked(partial(resume, root), None)) != 0:
            return [f"continue exited {code}"]
        got = _result(root)
        wrong = [k for k in reference if got.get(k) != reference[k]]
        if staging_files(root):
            wrong.append(f"staging left: {staging_files(root)}")
        return wrong

    sweep = kill_sweep(range(1, writes + 1), fresh, repair, check)
    assert sweep.checked == list(range(1, writes + 1))
    assert not sweep.failures, sweep.failures


def test_a_broken_staged_file_before_the_commit_point_is_set_aside(
    sample: Path, reference: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No journal (the chapter judged, or a rollback cut short after removing it) and a broken staged summary:
    `continue` refuses naming `repair`; `repair` sets the summary and the files made with it aside."""
    root = tmp_path / "novel"
    shutil.copytree(sample, root)
    _kill_commit_after(root, "prepared")
    paths = ProjectPaths(root)
    paths.commit_journal(3).unlink()
    paths.staged_summary(3).write_bytes(b"\xff")
    agents = _recording_agents(monkeypatch)
    project = ["--project", str(root)]
    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code != 0 and "staging/summaries/chapter-003-summary.md" in said and "novel-studio repair" in said, said

    code, repaired = _run(["repair", "--yes", *project], capsys)
    assert code == 0 and "第 3 章暂存的文件无法使用" in repaired, repaired
    assert not paths.staged_summary(3).exists() and not paths.staged_delta(3).exists()
    [backup] = list((root / ".novel-studio" / "repair").glob("*"))
    assert (backup / "staging" / "summaries" / "chapter-003-summary.md").read_bytes() == b"\xff"

    agents.clear()
    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code == 0, said
    assert _result(root) == reference and staging_files(root) == []
    assert {stage for a in agents for stage, _ in a.log} == {"summarize"}
    assert_consistent(root)


@pytest.mark.parametrize(("what", "redone"), [("text", set()), ("text+polish", {"polish"})])
def test_a_broken_polished_text_is_rebuilt_or_polished_again_never_rewritten(
    sample: Path, tmp_path: Path, what: str, redone: set[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A chapter the gate sent to the polish pass (overall 3.7), its commit killed, then its staged (polished) text
    broken: `repair` and `continue` rebuild it from the intact polish record with no model call; with the polish
    record broken too, only the polish pass runs again, from the refined text. Never a rewrite, and the same
    chapter as an uninterrupted run."""
    def agents_for(root: Path) -> FakeAgents:
        return FakeAgents(ProjectPaths(root), scores={3: [3.7]})

    reference_root = tmp_path / "reference"
    shutil.copytree(sample, reference_root)
    asyncio.run(Orchestrator(reference_root, agents_for(reference_root), decider=take_recommended,
                             emit=lambda e: None, settings=Settings()).run(1))
    reference = _result(reference_root)

    root = tmp_path / "novel"
    shutil.copytree(sample, root)

    def hook(name: str) -> None:
        if name == "commit:prepared":
            raise Killed(name)

    with pytest.raises(Killed):
        asyncio.run(Orchestrator(root, agents_for(root), decider=take_recommended, emit=lambda e: None,
                                 settings=Settings(), step_hook=hook).run(1))
    paths = ProjectPaths(root)
    assert _staged(paths, "polish").is_file() and paths.commit_journal(3).is_file()
    broken = _break(paths, what)
    agents: list[FakeAgents] = []

    def factory(r: Path, s: object, o: object) -> FakeAgents:
        agents.append(agents_for(r))
        return agents[-1]

    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", factory)
    project = ["--project", str(root)]
    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code != 0 and broken.relative_to(root).as_posix() in said, said
    code, repaired = _run(["repair", "--yes", *project], capsys)
    assert code == 0, repaired
    agents.clear()
    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code == 0, said
    assert _result(root) == reference and staging_files(root) == []
    assert {stage for a in agents for stage, _ in a.log} == redone, [a.log for a in agents]
    assert_consistent(root)


def test_a_broken_staged_text_before_the_commit_point_comes_back_from_its_record(
    sample: Path, reference: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No journal and a broken staged text: `repair` sets the text alone aside (its refine record, the summary set
    and the evaluation are intact) and `continue` rebuilds it from the refine record (`restore_current`): no
    model call, the same chapter as an uninterrupted run."""
    root = tmp_path / "novel"
    shutil.copytree(sample, root)
    _kill_commit_after(root, "prepared")
    paths = ProjectPaths(root)
    paths.commit_journal(3).unlink()
    _break(paths, "text")
    agents = _recording_agents(monkeypatch)
    project = ["--project", str(root)]
    code, repaired = _run(["repair", "--yes", *project], capsys)
    assert code == 0 and "第 3 章暂存的文件无法使用" in repaired, repaired
    assert not paths.staged_chapter(3).exists() and paths.staged_refine(3).is_file()
    assert paths.staged_summary(3).is_file() and paths.staged_evaluation(3).is_file()

    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    assert code == 0, said
    assert _result(root) == reference and staging_files(root) == []
    assert {stage for a in agents for stage, _ in a.log} == set(), [a.log for a in agents]
    assert_consistent(root)
