"""The full `status` report as a whole process (issue 12: ≤ 0.3 s on 500 chapters): what it imports and builds
is bounded by name, not timed. It runs without pydantic's plugin discovery (no `importlib.metadata`, no scan of
the installed distributions) unless the author named plugins in `PYDANTIC_DISABLE_PLUGINS`; it pauses the cyclic
garbage collector only while it builds the report; it builds only the model classes of the files it validates
and its own report's; it validates the changelog again only once it changed (`studio.coldstart.ChangelogFacts`
kept by `studio.status.ReportParts`); and it prints what it printed before."""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

import studio.status as status_module
from studio.cli import status_cmd
from studio.init_project import init_project
from studio.paths import ProjectPaths
from studio.project import Project
from studio.status import build_status, cache_folder, render_status
from tests.status_child import status_child

# Imported by no full report: each is pydantic's plugin scan's, the lock's or ledger's writer side, or a cost
# the report does not need (the report reads; it pins, locks and appends nothing).
NOT_IMPORTED = ("importlib.metadata", "email", "socket", "logging", "tomli_w")

# The studio's model classes a full report builds on the sample novel, its records and kept parts warm: the
# files `Project.open` validates and the changelog's lines (the cold-start check), and the report's own.
FULL_REPORT_MODELS = frozenset({
    "studio.models.base:FileModel",
    "studio.models.changelog:ChangelogEntry",
    "studio.models.changelog:OpWarning",
    "studio.models.checkpoint:Checkpoint",
    "studio.models.checkpoint:PendingAction",
    "studio.models.foreshadowing:ForeshadowingHistoryEntry",
    "studio.models.foreshadowing:ForeshadowingItem",
    "studio.models.foreshadowing:ForeshadowingLedger",
    "studio.models.patch:StateOp",
    "studio.models.patch:StatePatch",
    "studio.models.state:CharacterState",
    "studio.models.state:CurrentState",
    "studio.status:CacheShare",
    "studio.status:ChapterScore",
    "studio.status:ColdStartNote",
    "studio.status:ForeshadowSummary",
    "studio.status:LockSummary",
    "studio.status:PromptVersionNote",
    "studio.status:RecoverySummary",
    "studio.status:StatusReport",
    "studio.status:StorylineSummary",
})


def _state_changed(paths: ProjectPaths) -> None:
    """The state file rewritten (same bytes, a new mtime): the full report, not the memo or the kept report."""
    path = paths.current_state
    path.write_bytes(path.read_bytes())


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "novel", sample=True)
    status_child(root)  # records and kept parts: the usual full report after a commit
    _state_changed(ProjectPaths(root))
    return root


def test_a_full_report_imports_no_plugin_scan_and_builds_only_its_models(sample: Path) -> None:
    out, info = status_child(sample)
    assert info["full"] and "字数" in out
    assert [m for m in NOT_IMPORTED if m in info["modules"]] == []
    assert sorted(set(info["models"]) - FULL_REPORT_MODELS) == []


def test_named_plugins_keep_pydantic_own_loader(sample: Path) -> None:
    """An author who leaves out some plugins by name has plugins: pydantic's loader looks for them as always."""
    out, info = status_child(sample, env={"PYDANTIC_DISABLE_PLUGINS": "some-plugin"})
    assert info["full"] and "importlib.metadata" in info["modules"]
    _state_changed(ProjectPaths(sample))
    assert status_child(sample)[0] == out  # the same report without plugin discovery


def test_the_loader_without_plugins_only_where_pydantic_has_none_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a process whose pydantic loaded its plugin loader already (this one), it stays; otherwise status's
    loader answers as pydantic's own does under `PYDANTIC_DISABLE_PLUGINS=__all__`: no plugin."""
    import pydantic.plugin._loader as real

    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    assert status_cmd._without_pydantic_plugins() is False and sys.modules["pydantic.plugin._loader"] is real
    monkeypatch.delitem(sys.modules, "pydantic.plugin._loader")
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "a,b")
    assert status_cmd._without_pydantic_plugins() is False and "pydantic.plugin._loader" not in sys.modules
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "__all__")
    assert status_cmd._without_pydantic_plugins() is True
    assert list(sys.modules["pydantic.plugin._loader"].get_plugins()) == list(real.get_plugins()) == []


def test_the_garbage_collector_is_back_after_a_status(sample: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Paused while the report is built, on again after it (this process goes on after `main` returns)."""
    from studio.cli.main import main

    assert gc.isenabled()
    seen: list[bool] = []
    build = status_cmd._run

    def watched(args: argparse.Namespace) -> int:
        seen.append(gc.isenabled())
        return build(args)

    monkeypatch.setattr(status_cmd, "_run", watched)
    assert main(["status", "--project", str(sample)]) == 0
    assert seen == [False] and gc.isenabled() and "字数" in capsys.readouterr().out


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every validating read of the changelog from here on (`parse_changelog`), one item each."""
    import studio.coldstart as coldstart_module

    calls: list[int] = []
    parse = coldstart_module.parse_changelog

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return parse(*args, **kwargs)

    monkeypatch.setattr(coldstart_module, "parse_changelog", counted)
    return calls


def _report(root: Path) -> tuple[dict[str, Any], str]:
    report = build_status(Project.open(root, for_status=True))
    return report.model_dump(mode="json"), render_status(report, "en")


def test_an_unchanged_changelog_is_validated_once(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its facts are kept under its stat (`ReportParts`): the next full report does not validate it again and
    says the same; a line appended (here by another tool) is validated again and reported as without the
    kept facts."""
    monkeypatch.setattr(status_module, "RACY_NS", 0)  # the sample was written a moment ago
    parses = _count_parses(monkeypatch)
    shutil.rmtree(cache_folder(sample), ignore_errors=True)
    first = _report(sample)
    assert len(parses) == 1
    again = _report(sample)
    assert len(parses) == 1 and again == first

    changelog = ProjectPaths(sample).changelog
    with changelog.open("a", encoding="utf-8") as fh:
        fh.write('{"chapter": 3, "delta": {"林枫": "受伤"}}\n')  # another tool's line: a notice
    foreign = _report(sample)
    assert len(parses) == 2 and any("由其他工具写入" in n for n in foreign[0]["notices"])
    assert _report(sample) == foreign and len(parses) == 2
    shutil.rmtree(cache_folder(sample))
    assert _report(sample) == foreign  # what a run without kept facts says

    with changelog.open("a", encoding="utf-8") as fh:
        fh.write('{"kind": "patch", "state_version": "x"}\n')  # broken: `continue` refuses
    broken = _report(sample)
    assert any(b["key"] == "changelog_invalid" for b in broken[0]["blockers"])
    assert _report(sample) == broken  # validated again, not answered from the kept facts
    shutil.rmtree(cache_folder(sample))
    assert _report(sample) == broken


def test_changelog_facts_of_another_shape_are_not_believed() -> None:
    from studio.coldstart import ChangelogFacts

    facts = ChangelogFacts(False, "patch", 7, (1, 2), False)
    assert ChangelogFacts.from_data(facts.to_data()) == facts
    bad_values: list[object] = [None, [], [False, "patch", "7", [1], False], [False, "patch", 7, [1.0], False],
                                [0, None, 0, [], 0]]
    for bad in bad_values:
        assert ChangelogFacts.from_data(bad) is None, bad


def test_a_full_report_lists_the_chapters_once(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cold-start check takes the project's listing of chapters/ (`Project.committed_chapter_files`)."""
    import studio.coldstart as coldstart_module
    import studio.project as project_module

    listed: list[Path] = []
    for module in (coldstart_module, project_module):
        real = module.numbered_files

        def listing(folder: Path, *args: Any, real: Any = real, **kwargs: Any) -> Any:
            listed.append(Path(folder))
            return real(folder, *args, **kwargs)

        monkeypatch.setattr(module, "numbered_files", listing)
    report = build_status(Project.open(sample, for_status=True))
    assert listed.count(ProjectPaths(sample).root / "chapters") == 1
    assert report.chapters_committed > 0
