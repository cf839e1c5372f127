"""The punctuation fix the author accepts (issue 8 item 8): one place, a whole chapter, waived marks left alone,
and `novel-studio check --fix-punctuation` (diff first, then a question or `--yes`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio import own_writes
from studio.checks.matcher import Matcher
from studio.checks.names import NameRegistry
from studio.checks.punctuation import PunctuationCheck
from studio.checks.punctuation_fix import fix_chapter, fix_finding, fixable
from studio.checks.registry import ChapterText, CheckContext
from studio.cli.main import main
from studio.errors import PausedForAuthor
from studio.models.check_allow import CheckAllowList
from studio.models.findings import ChecksReport, Finding
from studio.paths import ProjectPaths

TEXT = "# 第3章 试\n\n　　他说,好...\n\n　　她笑了,没说话。\n\n```\na,b\n```\n"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _findings(text: str, n: int = 3) -> list[Finding]:
    ctx = CheckContext([ChapterText(n, text)], NameRegistry.from_sources({}), Matcher([]))
    return list(PunctuationCheck().run(ctx))


def test_accepting_a_finding_fixes_its_mark_in_its_paragraph_only() -> None:
    comma = next(f for f in _findings(TEXT) if f.text == ",")
    assert fixable(comma) and comma.paragraph == 1 and comma.count == 2
    fixed = fix_finding(TEXT, comma)
    assert fixed == TEXT.replace("他说,好", "他说，好")  # the ellipsis and the second paragraph stay
    # the next check points at the comma that is left
    left = next(f for f in _findings(fixed) if f.text == ",")
    assert (left.paragraph, left.count) == (2, 1)


def test_accepting_the_chapter_fixes_every_mark_but_never_the_heading_code_or_a_waived_mark() -> None:
    assert fix_chapter(3, TEXT) == "# 第3章 试\n\n　　他说，好……\n\n　　她笑了，没说话。\n\n```\na,b\n```\n"
    ellipsis = next(f for f in _findings(TEXT) if f.suggestion == "……")
    allow = CheckAllowList()
    allow.ignore_here(ellipsis)
    assert fix_chapter(3, TEXT, allow) == TEXT.replace("说,好", "说，好").replace("了,没", "了，没")


def test_an_unpaired_quote_has_no_fix() -> None:
    text = "# 第1章\n\n　　“你来了。\n"
    (quote,) = _findings(text, 1)
    assert not fixable(quote) and fix_finding(text, quote) == text


def _add_chapter(root: Path, n: int, text: str) -> Path:
    path = root / "chapters" / f"chapter-{n:03d}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_cli_shows_the_diff_and_fixes_with_yes(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _add_chapter(sample, 3, TEXT)
    assert main(["check", "--project", str(sample), "--fix-punctuation", "--from", "3", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "-　　他说,好..." in out and "+　　他说，好……" in out and "已修正 1 章的标点：3" in out
    assert path.read_text(encoding="utf-8") == fix_chapter(3, TEXT)
    assert own_writes.is_own(path, path.read_bytes())  # recorded: the studio's watcher does not take it for a hand edit
    report = ChecksReport.load(ProjectPaths(sample).checks_log(3))
    assert not [f for f in report.findings if fixable(f)]  # the saved report says what is left
    assert main(["check", "--project", str(sample), "--fix-punctuation", "--yes"]) == 0
    assert "没有可自动修正的标点" in capsys.readouterr().out


def test_cli_without_a_terminal_or_yes_asks_and_writes_nothing(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _add_chapter(sample, 3, TEXT)
    code = main(["check", "--project", str(sample), "--fix-punctuation"])
    assert code == int(PausedForAuthor("").exit_code) == 3
    assert path.read_text(encoding="utf-8") == TEXT
    assert "+　　他说，好……" in capsys.readouterr().out  # the diff came first


def test_cli_json_lists_the_fixed_chapters_and_their_diff(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add_chapter(sample, 3, TEXT)
    assert main(["check", "--project", str(sample), "--fix-punctuation", "--yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fixed"] == [3] and any("他说，好……" in line for line in data["diff"]["3"])


async def test_a_and_shift_a_accept_the_fixes_in_the_findings_list(sample: Path) -> None:
    from textual.widgets import OptionList

    from screens.findings_screen import FindingsScreen
    from studio.checks.punctuation_fix import recheck_chapter
    from studio.project import Project
    from tests.test_findings_list import wait_for
    from tests.tui_helpers import main_screen, make_app

    paths = ProjectPaths(sample)
    original = paths.chapter(2).read_text(encoding="utf-8")
    head, body = original.split("\n\n", 1)
    # two paragraphs with punctuation to fix, and one with a banned phrase (a finding without a fix)
    text = f"{head}\n\n　　他说,好...她笑了,没说话。\n\n　　他又说,走...\n\n　　她眉头微皱。\n\n{body}"
    paths.chapter(2).write_text(text, encoding="utf-8")
    recheck_chapter(Project.open(sample), 2)  # the report saved after the commit
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.selected == 2
        await pilot.press("f")
        await pilot.pause()
        listing = app.screen
        assert isinstance(listing, FindingsScreen)
        await wait_for(pilot, lambda: listing.loads > 0)
        options = listing.query_one("#findings-list", OptionList)
        blacklisted = next(i for i, f in enumerate(listing.findings) if not fixable(f))
        options.highlighted = blacklisted
        await pilot.press("a")
        await pilot.pause()
        assert listing.fixes == 0  # nothing to accept on that one: a warning, nothing written
        comma = next(i for i, f in enumerate(listing.findings) if f.chapter == 2 and f.text == ",")
        options.highlighted = comma
        await pilot.press("a")
        await wait_for(pilot, lambda: listing.fixes == 1)
        fixed = paths.chapter(2).read_text(encoding="utf-8")
        assert fixed == text.replace("他说,好...她笑了,没说话", "他说，好...她笑了，没说话")  # one paragraph, one mark
        left = [f for f in listing.findings if f.chapter == 2 and fixable(f)]
        assert {(f.text, f.paragraph) for f in left} == {(",", 2), ("...", 1)}  # the list was checked again
        assert "他说，好" in screen.chapter_view.text  # the pane shows the new text
        options.highlighted = listing.findings.index(left[0])
        await pilot.press("A")
        await wait_for(pilot, lambda: listing.fixes == 2)
        assert paths.chapter(2).read_text(encoding="utf-8") == fix_chapter(2, text)
        assert not [f for f in listing.findings if f.chapter == 2 and fixable(f)]
        saved = ChecksReport.load(paths.checks_log(2)).findings
        assert not [f for f in saved if fixable(f)]


def test_the_studio_fix_waits_for_no_one_holding_the_project_lock(sample: Path) -> None:
    from studio.checks.punctuation_fix import apply_fix, plan_fixes
    from studio.errors import StudioError
    from studio.lock import ProjectLock
    from studio.project import Project

    path = _add_chapter(sample, 3, TEXT)
    project = Project.open(sample)
    (fix,) = plan_fixes(project, [3])
    other = ProjectLock(project.paths, heartbeat_interval=0)  # a run in another process
    other.acquire()
    try:
        with pytest.raises(StudioError):
            apply_fix(project, fix)
        assert path.read_text(encoding="utf-8") == TEXT
    finally:
        other.release()
    found = apply_fix(project, fix)
    assert path.read_text(encoding="utf-8") == fix.new and not [f for f in found if fixable(f)]
