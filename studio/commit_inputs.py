"""What a chapter's commit reads before its first move (issue 11 item 5: staging -> validate -> commit).

`commit_problems(paths, n, ...)` reads every file the commit of chapter `n` still has to copy into the project
or to read and rewrite, each with its model, and returns the `Problem`s found (none: the commit may go on).
Pure: reads, changes nothing. One check for three callers: the commit itself (`pipeline.commit`, before its
first move, for a fresh commit and for finishing an interrupted one), the cold start
(`studio.coldstart.rule_commit_journals`, before a run starts) and `novel-studio repair`.

Rules, for the steps still to run (a finished step's inputs are not read again):
- staged files, read by their models: the chapter text, the summary and the storyline memory (UTF-8, not
  empty: the stages that write them never write an empty one), the evaluation (`Evaluation`), the chapter log (`PipelineLog`), the summary metadata (a JSON
  object, read when the commit is prepared), the state delta (`StatePatch`, or marked skipped) unless this
  chapter's patch line is in the changelog already;
- a missing staged file: the chapter text is a problem only when `chapters/` lacks it too (an import's
  extraction commits a chapter already in place; a cleanup cut short leaves the target), the delta unless its
  patch is merged; the other steps copy nothing for a file a commit does not stage (an extraction stages no
  evaluation or log);
- targets the commit reads before it rewrites them: `state/current-state.json` (archived as the state
  before the chapter); the changelog only by its last line, as the merge reads it (a torn last line is not a
  problem: the commit repairs it first; the whole log is the cold start's to check, once per run, so a commit
  stays flat as the novel grows); the foreshadowing ledger the foreshadowing step starts from (`foreshadowing/global.json` before the
  archive step, the archived `logs/chapter-NNN/foreshadowing-before.json` after it); the checkpoint.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from studio.errors import FormatError, Problem
from studio.fileio import read_json, read_text
from studio.ids import chapter_id
from studio.paths import ProjectPaths, numbered_files

# The chapter's archive (`logs/chapter-NNN/`) and the "before" copies the commit's archive step takes there.
MEMORY_BEFORE = "memory-before.md"
FORESHADOWING_BEFORE = "foreshadowing-before.json"
STATE_BEFORE = "state-before.json"  # current-state.json before this chapter: undo's starting point
UNDO_INFO = "undo.json"  # what existed before the chapter (storyline, memory, ledger); written once, last


_JOURNAL_NAME = re.compile(r"^commit-(chapter-\d{3,})\.json$")


def pending_commits(paths: ProjectPaths) -> list[int]:
    """Chapters whose commit journal exists (`staging/commit-chapter-NNN.json`: started, not finished)."""
    return sorted(numbered_files(paths.staging, _JOURNAL_NAME))


def archive_dir(paths: ProjectPaths, n: int) -> Path:
    """`logs/chapter-NNN/`: the chapter's drafts, refine records and the files undo needs."""
    return paths.root / "logs" / chapter_id(n)


def _problems(exc: FormatError, path: Path) -> list[Problem]:
    return exc.problems or [Problem(path, str(exc))]


def _missing(path: Path) -> Problem:
    return Problem(path, "is missing: the commit would have nothing to copy", zh="缺失：提交无从复制")


def _read_problems(path: Path, kind: str) -> list[Problem]:
    """Read `path` as `kind` ("text": UTF-8 and not empty, "object" or a model name); its problems (none:
    usable)."""
    try:
        if kind == "text":
            if not read_text(path).strip():
                return [Problem(path, "is empty", zh="是空文件")]
        elif kind == "object":
            if not isinstance(read_json(path), dict):
                return [Problem(path, "not a JSON object", zh="不是 JSON 对象")]
        elif kind == "evaluation":
            from studio.models.evaluation import Evaluation

            Evaluation.load(path)
        elif kind == "log":
            from studio.models.pipeline_log import PipelineLog

            PipelineLog.load(path)
        elif kind == "delta":
            data = read_json(path)
            if not (isinstance(data, dict) and data.get("skipped")):
                from studio.models.patch import StatePatch

                StatePatch.parse_data(data, path)
        elif kind == "ledger":
            from studio.models.foreshadowing import ForeshadowingLedger

            ForeshadowingLedger.load(path)
        elif kind == "state":
            from studio.models.state import CurrentState

            CurrentState.load(path)
        elif kind == "checkpoint":
            from studio.models.checkpoint import Checkpoint

            Checkpoint.load(path)
        else:  # pragma: no cover - a caller's typo
            raise ValueError(kind)
    except FormatError as exc:
        return _problems(exc, path)
    return []


def _patch_merged(paths: ProjectPaths, n: int) -> bool:
    from studio.state_engine import last_changelog_entry

    try:
        last = last_changelog_entry(paths.changelog)
    except FormatError:
        return False  # a torn last line: the merge of this chapter's line never finished
    return last is not None and last.kind == "patch" and last.chapter == n


def commit_problems(
    paths: ProjectPaths,
    n: int,
    *,
    storyline_id: str | None,
    steps_done: Collection[str] = (),
    prepared: bool = True,
) -> list[Problem]:
    """The problems that stop the commit of chapter `n` before its next move (see the module rules).
    `steps_done`: the steps of an interrupted commit that already ran; `prepared=False`: asked before the commit's
    journal and chapter log are written (`prepare_commit`), so the summary metadata is read, the log not."""
    found: list[Problem] = []

    def staged(step: str, path: Path, target: Path | None, kind: str, *, required: bool = False) -> None:
        if step in steps_done:
            return
        if path.is_file():
            found.extend(_read_problems(path, kind))
        elif required and not (target is not None and target.is_file()):
            found.append(_missing(path))

    def target(step: str, path: Path, kind: str) -> None:
        if step not in steps_done and path.is_file():
            found.extend(_read_problems(path, kind))

    staged("chapter", paths.staged_chapter(n), paths.chapter(n), "text", required=True)
    staged("summary", paths.staged_summary(n), paths.summary(n), "text")
    if not prepared and paths.staged_summary_meta(n).is_file():
        found.extend(_read_problems(paths.staged_summary_meta(n), "object"))
    staged("evaluation", paths.staged_evaluation(n), paths.evaluation(n), "evaluation")
    if storyline_id:
        staged("memory", paths.staged_memory(storyline_id), paths.storyline_memory(storyline_id), "text")
    if prepared:
        staged("log", paths.staged_log(n), paths.log(n), "log")
    if "state" not in steps_done:
        target("archive", paths.current_state, "state")
        if "archive" in steps_done:
            target("state", paths.current_state, "state")
        if not _patch_merged(paths, n):
            staged("state", paths.staged_delta(n), None, "delta", required=True)
    if "archive" in steps_done:
        target("foreshadowing", archive_dir(paths, n) / FORESHADOWING_BEFORE, "ledger")
    else:
        target("archive", paths.global_foreshadowing, "ledger")
    target("checkpoint", paths.checkpoint, "checkpoint")
    return found


def is_staged(paths: ProjectPaths, problem: Problem) -> bool:
    """A problem of a staged file (the way out is the stage that made it), not of a project file."""
    return Path(problem.path).is_relative_to(paths.staging)
