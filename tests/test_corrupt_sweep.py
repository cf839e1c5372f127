"""A sweep of corrupt files (issue 11): every kind of file a project holds after a 3-chapter run, broken each way a
kill, a full disk or a hand edit breaks it (cut short, empty, not UTF-8, the wrong JSON types), through `status`,
`continue --offline` (its cold start) and `repair`.

Each command must either work or say what is wrong, naming the file, in Chinese, with a way out that exists:
- no crash (`main` turns an unexpected exception into its "出错了" line: that is a crash here too);
- `status` changes nothing, and names the file whenever `continue` refuses over it;
- `continue` that stops names the file and writes no chapter; one that works leaves the broken file as it was
  (or only appended to, for the logs that are append-only; or replaced by the commit with the old bytes in the
  chapter's archive), unless it says what it changed (the prompt pins it writes into novel-studio.toml);
- `repair` that changes a file keeps a backup of it first; one that says "nothing to repair" leaves a project
  `continue` accepts;
- every `novel-studio <command> --option` a message advises is a real command with real options;
- no line of `continue` or `repair` names the file in English only.

The project is built once (the sample novel, chapter 3 written by the offline agents) and copied per case; the
cases' `continue` runs with the scripted `FakeAgents`, so a case costs no model text generation. A second
project has chapter 4's commit killed after its chapter step, for the records an interrupted commit finishes
from (its journal, the staged files still to move, the archived ledger).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.decisions import take_recommended
from pipeline.orchestrator import Orchestrator
from studio.cli import continue_cmd
from studio.cli.main import build_parser, main
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from tests.fake_agents import FakeAgents

Corrupt = Callable[[bytes], bytes]

# The files of the project, one of each kind (a kind with many files: the past and the next one).
FILES: tuple[str, ...] = (
    ".checkpoint.json",
    "novel-studio.toml",
    "ai-blacklist.json",
    "brief.md",
    "style-profile.json",
    "chapters/chapter-001.md",
    "chapters/chapter-003.md",
    "characters/active/shen-zhao.json",
    "characters/active/shen-zhao.md",
    "characters/relationships.json",
    "evaluations/chapter-003-eval.json",
    "foreshadowing/global.json",
    "logs/chapter-003-log.json",
    "logs/chapter-003/undo.json",
    "logs/chapter-003/state-before.json",
    "logs/chapter-003/chapter-003-calls.jsonl",
    "logs/spend.jsonl",
    "state/changelog.jsonl",
    "state/current-state.json",
    "storylines/main-arc/memory.md",
    "storylines/storyline-spec.json",
    "storylines/storylines.json",
    "summaries/chapter-003-summary.md",
    "volumes/vol-01/chapter-contracts/chapter-003.json",
    "volumes/vol-01/chapter-contracts/chapter-004.json",
    "volumes/vol-01/foreshadowing.json",
    "volumes/vol-01/outline.md",
    "volumes/vol-01/storyline-schedule.json",
    "world/rules.json",
    "world/geography.md",
    ".novel-studio/writes.jsonl",
)
# The records an interrupted commit (of chapter 4) finishes from: its journal and every staged file a step still
# to run copies into the project (the chapter text is in place already), and the ledger archived before it.
PENDING_FILES: tuple[str, ...] = (
    "staging/commit-chapter-004.json",
    "staging/state/chapter-004-delta.json",
    "staging/summaries/chapter-004-summary.md",
    "staging/evaluations/chapter-004-eval.json",
    "staging/logs/chapter-004-log.json",
    "staging/storylines/main-arc/memory.md",
    "logs/chapter-004/foreshadowing-before.json",
)
APPEND_ONLY = frozenset({"logs/spend.jsonl", "state/changelog.jsonl", ".novel-studio/writes.jsonl"})
# Files each chapter's commit replaces, keeping the old bytes in the chapter's archive (`logs/chapter-NNN/`).
ARCHIVED: dict[str, str] = {"storylines/main-arc/memory.md": "logs/chapter-004/memory-before.md"}
# Staged text the commit moves into the project as it is (a summary cut short is still a summary; what cannot be
# used, not UTF-8 or empty, stops the commit).
MOVED: dict[str, str] = {
    "staging/summaries/chapter-004-summary.md": "summaries/chapter-004-summary.md",
    "staging/storylines/main-arc/memory.md": "storylines/main-arc/memory.md",
}


def _truncated(data: bytes) -> bytes:
    return data[: max(1, len(data) * 2 // 3)]


def _empty(data: bytes) -> bytes:
    return b""


def _not_utf8(data: bytes) -> bytes:
    half = len(data) // 2
    return data[:half] + b"\xff\xfe\xc3" + data[half:]


def _wrong_types(data: bytes) -> bytes:
    """Valid syntax, wrong shape: each top-level value of a JSON object (or each JSONL line's) replaced by a
    value of another type; a TOML table's keys likewise; other text gets a JSON array it cannot be."""
    text = data.decode("utf-8")
    swap = {str: 7, int: "七", float: "七", bool: "是", list: {"x": 1}, dict: [1], type(None): [1]}

    def wrong(obj: object) -> object:
        if isinstance(obj, dict):
            return {k: swap.get(type(v), 7) for k, v in obj.items()}
        return {"x": 1}

    stripped = text.strip()
    if stripped.startswith("{") and "\n{" in stripped:  # JSONL
        return "".join(json.dumps(wrong(json.loads(line)), ensure_ascii=False) + "\n"
                       for line in stripped.splitlines() if line.strip()).encode()
    if stripped.startswith(("{", "[")):
        return json.dumps(wrong(json.loads(text)), ensure_ascii=False).encode()
    if "[provider]" in text or text.lstrip().startswith("#"):  # TOML
        return re.sub(r'(?m)^(\w+) = .*$', r'\1 = [1, 2]', text).encode()
    return b"[1, 2, 3]\x00"


CORRUPTIONS: dict[str, Corrupt] = {
    "truncated": _truncated, "empty": _empty, "not_utf8": _not_utf8, "wrong_types": _wrong_types,
}

_CRASH = "出错了（"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ADVISED = re.compile(r"novel-studio ((?:[a-z][a-z-]*)(?: (?:--?[a-z][a-z-]*|[A-Za-z0-9_.=:/-]+))*)")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample novel with chapter 3 written by the offline agents: chapter logs, an evaluation, the ledger."""
    root = init_project(tmp_path_factory.mktemp("sweep") / "novel", sample=True)
    assert main(["continue", "1", "--offline", "--yes", "--project", str(root)]) == 0
    missing = [rel for rel in FILES if not (root / rel).is_file()]
    assert not missing, missing
    return root


@pytest.fixture(scope="module")
def killed(base: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`base` with chapter 4's commit killed after its chapter step: the journal and staged records wait."""
    root = tmp_path_factory.mktemp("killed") / "novel"
    shutil.copytree(base, root, symlinks=True)

    def hook(name: str) -> None:
        if name == "commit:chapter":
            raise Killed(name)

    orchestrator = Orchestrator(root, FakeAgents(ProjectPaths(root)), decider=take_recommended, emit=lambda e: None,
                                settings=Settings(), step_hook=hook)
    with pytest.raises(Killed):
        asyncio.run(orchestrator.run(1))
    missing = [rel for rel in PENDING_FILES if not (root / rel).is_file()]
    assert not missing, missing
    return root


class Killed(BaseException):
    """A kill simulated in process (nothing after the hook runs)."""


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "writes.jsonl"}  # the write log records every command's own writes


@functools.cache
def _commands() -> dict[str, frozenset[str]]:
    """Each command's option strings: its own, its subcommands' (`prompts upgrade --all`) and the global ones."""
    parser = build_parser("zh")

    def options(p: argparse.ArgumentParser) -> set[str]:
        found = {s for a in p._actions for s in a.option_strings}
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    found |= options(child)
        return found

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    common = {s for a in parser._actions for s in a.option_strings}
    return {name: frozenset(common | options(p)) for name, p in sub.choices.items()}


def _bad_advice(text: str, commands: dict[str, frozenset[str]]) -> list[str]:
    bad = []
    for match in _ADVISED.finditer(text):
        name, *rest = match.group(1).split()
        if name not in commands:
            bad.append(match.group(0))
            continue
        bad += [f"{match.group(0)} ({word})" for word in rest if word.startswith("-") and word not in commands[name]]
    return bad


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


def _names(text: str, rel: str) -> bool:
    """The message names the file (its path from the project, or its name; a chapter as 第 N 章) on a line
    written in Chinese."""
    chapter = re.fullmatch(r"chapters/chapter-(\d+)\.md", rel)
    marks = [rel, Path(rel).name] + ([f"第 {int(chapter.group(1))} 章"] if chapter else [])
    return any(any(m in line for m in marks) and _CJK.search(line) for line in text.splitlines())


def _english_lines(text: str, rel: str) -> list[str]:
    """Lines that name the file but hold no Chinese (an English message in the Chinese UI)."""
    return [line for line in text.splitlines() if (rel in line or Path(rel).name in line) and not _CJK.search(line)]


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
@pytest.mark.parametrize(("project", "rel"), [("base", rel) for rel in FILES] + [("killed", rel) for rel in PENDING_FILES])
def test_a_corrupt_file_is_said_plainly_by_every_command(
    request: pytest.FixtureRequest, tmp_path: Path, project: str, rel: str, how: str,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """`project`: the 3-chapter project, or the one with chapter 4's commit killed half way."""
    _sweep(request.getfixturevalue(project), tmp_path, rel, how, monkeypatch, capsys)


def _sweep(
    base: Path, tmp_path: Path, rel: str, how: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "novel"
    shutil.copytree(base, root, symlinks=True)
    target = root / rel
    try:
        broken = CORRUPTIONS[how](target.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError):
        pytest.skip("no such corruption of this file")
    target.write_bytes(broken)
    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", lambda r, s, o: FakeAgents(ProjectPaths(r)))
    commands = _commands()
    problems: list[str] = []
    project = ["--project", str(root)]

    before = _snapshot(root)
    code, status = _run(["status", *project], capsys)
    if _CRASH in status:
        problems.append(f"status crashed: {status}")
    if _snapshot(root) != before:
        problems.append("status changed files")

    code, said = _run(["continue", "1", "--offline", "--yes", *project], capsys)
    after = _snapshot(root)
    refused = code != 0
    if _CRASH in said:
        problems.append(f"continue crashed: {said}")
    if refused:
        if not _names(said, rel):
            problems.append(f"continue exit {code} without naming {rel} in Chinese: {said}")
        new = sorted(k for k in after if k.startswith("chapters/") and k not in before)
        if new:
            problems.append(f"continue failed but wrote {new}")
        if not _names(status, rel) and rel != ".novel-studio/writes.jsonl":
            problems.append(f"continue refuses but status does not name {rel}: {status}")
    else:
        now = target.read_bytes() if target.is_file() else None
        kept = (
            now == broken
            or (rel in APPEND_ONLY and now is not None and now.startswith(broken))
            or (rel in ARCHIVED and (root / ARCHIVED[rel]).read_bytes() == broken)
            or (rel in MOVED and (root / MOVED[rel]).read_bytes() == broken)
        )
        if not kept and not _names(said, rel):
            problems.append(f"continue changed the broken {rel} without a word")
    problems += [f"continue advises {b}" for b in _bad_advice(said + status, commands)]

    repaired = ""
    if refused:
        code, repaired = _run(["repair", "--yes", *project], capsys)
        if _CRASH in repaired:
            problems.append(f"repair crashed: {repaired}")
        problems += [f"repair advises {b}" for b in _bad_advice(repaired, commands)]
        changed = {k for k, v in _snapshot(root).items() if after.get(k) != v}
        backups = root / ".novel-studio" / "repair"
        for k in changed - {k for k in changed if k.startswith(".novel-studio/repair/")}:
            if k in after and not any((b / k).is_file() for b in backups.glob("*")):
                problems.append(f"repair changed {k} without a backup")
        if code == 0:
            again, said_again = _run(["continue", "1", "--offline", "--yes", *project], capsys)
            if again != 0:
                problems.append(f"repair said all is well but continue still stops: {repaired} / {said_again}")
        elif not _names(repaired, rel) and rel not in repaired:
            problems.append(f"repair exit {code} without naming {rel}: {repaired}")
    for text in (status, said, repaired):
        problems += [f"English only: {line}" for line in _english_lines(text, rel)]
    assert not problems, "\n".join(problems)
