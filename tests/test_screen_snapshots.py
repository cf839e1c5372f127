"""Snapshots (SVG) of the screens and dialogs the other snapshot modules did not hold, at 80x24 and 160x48, with
Chinese text (English for the search, the export and the trial confirm), and the map of every screen to its snapshots.

Every Screen / ModalScreen class of `screens/*.py` and `studio/tui/*.py`, and the pipeline questions the studio
asks through `DecisionDialog`, with the tests that snapshot it at both sizes (the tests' module, then the test
and its parameter; `tests/__snapshots__/<module>/` holds the SVGs):

| screen (module)                                  | 80x24 and 160x48                                         |
|--------------------------------------------------|----------------------------------------------------------|
| MainScreen (screens/main_screen.py)              | test_app_snapshots: test_main_screen_{narrow,wide}, test_main_screen_marks_line_{narrow,wide}; 100x30: test_main_screen_medium; English: test_main_screen_en[80x24/100x30/160x48] |
| HelpScreen (screens/help_screen.py)              | test_app_snapshots: test_help_{narrow,wide}; test_dialog_snapshots[help] + test_snapshots_dialogs_wide[help] |
| DecisionDialog (screens/decision_dialog.py)      | test_dialog_snapshots + test_snapshots_dialogs_wide: [decision_gate], [decision_interrupted_en]; here: [volume_end], [trial_confirm], [trial_adjust], [trial_confirm_en], [decision_long] (too long for 80x24: the facts scroll) |
| ConfirmDialog, NumberDialog, TextDialog, GotoDialog (screens/prompt_dialogs.py) | test_dialog_snapshots + test_snapshots_dialogs_wide: [confirm_quit], [number], [text_note], [goto] |
| RefineReviewScreen (screens/refine_review.py)    | test_dialog_snapshots: test_refine_review_snapshot[80x24/160x48] (+ markers at 80x24) |
| PlanApprovalScreen (screens/plan_approval.py)    | test_planning_snapshots: [approval-*], [approval_en-*] (+ scrolled at 80x24) |
| PlanNoteDialog (screens/plan_approval.py)        | test_planning_snapshots: test_note_dialog_snapshot (80x24); here: [plan_note] |
| BriefForm (screens/brief_form.py)                | test_planning_snapshots: [brief_form-*]                  |
| StyleChoice (screens/style_choice.py)            | test_planning_snapshots: [style_preset-*], [style_samples-*] |
| WelcomeScreen (screens/welcome_screen.py)        | test_planning_snapshots: [welcome-*]                     |
| ImportSourceForm (screens/import_source.py)      | test_tui_import_snapshots: [form-*]                      |
| ImportPreviewScreen (screens/import_preview.py)  | test_tui_import_snapshots: [preview-*], [preview_en-*]   |
| ImportNamesScreen (screens/import_names.py)      | test_tui_import_snapshots: [names-*]                     |
| ImportWorkScreen (screens/import_progress.py)    | here: [import_work_failed]                               |
| ExtractionScreen (screens/import_progress.py)    | here: test_extraction_snapshot[running-*], [done-*]      |
| SearchScreen (screens/search_screen.py)          | here: [search], [search_en]                              |
| FindingsScreen (screens/findings_screen.py)      | here: [findings]                                         |
| ExportDialog (screens/export_dialog.py)          | here: [export], [export_en]                              |
| BlacklistProposalsDialog (screens/blacklist_proposals.py) | here: [blacklist]                               |
| VolumeReviewScreen (screens/review_screen.py)    | here: [volume_review], [volume_review_en]                |
| ProjectErrorScreen (studio/tui/app.py)           | here: [project_error]                                    |
| CommandPalette (Textual's, the studio's commands) | here: [palette] (on the main screen)                    |

The widgets of the main screen's panes have their own snapshots at 80x24, 160x48 and their 100x30 pane width, in
both languages (test_widget_snapshots). Nothing shown
depends on the clock or on tmp_path: the projects are fresh copies of the sample (`snapshot_apps/screens_app`)
or of the generated imported book, the paths on screen are fixed. Each test waits for its screen's worker (the
search, the findings' load, the extraction) with pauses, never a sleep. Regenerate on purpose with
``.venv/bin/pytest tests/test_screen_snapshots.py --snapshot-update`` and look at the SVGs before committing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.command import CommandInput, CommandList, CommandPalette
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Label, TextArea

from pipeline.brief import build_brief
from pipeline.decisions import Question
from pipeline.importing.extract import estimate_extraction
from pipeline.planning.quick_start import trial_question
from screens.blacklist_proposals import BlacklistProposalsDialog
from screens.decision_dialog import DecisionDialog
from screens.export_dialog import ExportDialog
from screens.findings_screen import FindingsScreen
from screens.help_screen import HelpScreen
from screens.import_progress import ExtractionScreen, ImportWorkScreen
from screens.plan_approval import PlanNoteDialog
from screens.review_screen import VolumeReviewScreen
from screens.search_screen import SearchScreen
from screens.trial_confirm import adjust_question
from screens.volume_end import volume_end_question
from studio.errors import StudioError
from studio.models.blacklist_proposals import BlacklistProposal, BlacklistProposals
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.planning.review_report import build_review, render_review
from studio.project import Project
from studio.tui.app import NovelStudioApp, ProjectErrorScreen
from tests.import_extract_helpers import imported_project
from tests.snapshot_apps.dialogs_app import HostApp
from tests.snapshot_apps.screens_app import (
    FIXED,
    broken_project_message,
    long_question,
    snapshot_sample,
)
from tests.test_tui_import_extract import GatedProvider
from tests.tui_helpers import wait_for

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (160, 48)]
SIZE_IDS = ["80x24", "160x48"]
BOOK = "青云旧事"  # the imported book's folder name (the extraction screen's title shows it)
EXTRACT_CHAPTERS = 4


@dataclass(frozen=True)
class Case:
    """One screen: `make(tmp_path)` builds it on the host app; `ready(screen)` holds once its worker is done."""

    make: Callable[[Path], Screen[Any]]
    ready: Callable[[Screen[Any]], bool] = lambda screen: True


def _sample(tmp: Path) -> Path:
    root = tmp / "novel"
    return root if (root / "novel-studio.toml").is_file() else snapshot_sample(root)


def _volume_end(tmp: Path) -> Screen[Any]:
    root = _sample(tmp)
    project = Project.open(root)
    return DecisionDialog(volume_end_question(project, 1, build_brief(project.paths, 3), "zh"), "zh")


def _english(question: Question) -> Question:
    """The trial question as `screens.trial_confirm` asks it in English: its English facts."""
    facts_en = question.data["facts_en"]
    assert isinstance(facts_en, list)
    return replace(question, facts=[str(f) for f in facts_en])


def _failing_job(step: Callable[[str], None]) -> int:
    step("正在写入第 12/40 章……")
    raise StudioError("目标文件夹不是空的：/novel/下载/青云旧事（里面已有 3 个文件）。请换一个空文件夹。")


CASES: dict[str, Case] = {
    "search": Case(
        lambda tmp: SearchScreen(_sample(tmp), "zh", initial="灯账"),
        lambda screen: isinstance(screen, SearchScreen) and screen.searches > 0,
    ),
    "search_en": Case(
        lambda tmp: SearchScreen(_sample(tmp), "en", initial="沈照"),
        lambda screen: isinstance(screen, SearchScreen) and screen.searches > 0,
    ),
    "findings": Case(
        lambda tmp: FindingsScreen(_sample(tmp), [1, 2, 3], "zh"),
        lambda screen: isinstance(screen, FindingsScreen) and screen.loads > 0,
    ),
    "export": Case(lambda tmp: ExportDialog(FIXED, "雾港守灯人", "zh", chapters=range(1, 13))),
    "export_en": Case(lambda tmp: ExportDialog(FIXED, "雾港守灯人", "en", chapters=range(1, 13))),
    "blacklist": Case(
        lambda tmp: BlacklistProposalsDialog(ProjectPaths(_sample(tmp)), "zh"),
        lambda screen: isinstance(screen, BlacklistProposalsDialog) and bool(screen.pending),
    ),
    "volume_end": Case(_volume_end),
    "decision_long": Case(lambda tmp: DecisionDialog(long_question(), "zh")),
    "trial_confirm": Case(lambda tmp: DecisionDialog(trial_question(ProjectPaths(_sample(tmp))), "zh")),
    "trial_confirm_en": Case(lambda tmp: DecisionDialog(_english(trial_question(ProjectPaths(_sample(tmp)))), "en")),
    "trial_adjust": Case(
        lambda tmp: DecisionDialog(adjust_question(trial_question(ProjectPaths(_sample(tmp)))), "zh")
    ),
    "volume_review": Case(
        lambda tmp: VolumeReviewScreen(
            render_review(build_review(Project.open(_sample(tmp)), 1)), "zh", volume=1, next_volume=2
        )
    ),
    "volume_review_en": Case(
        lambda tmp: VolumeReviewScreen(
            render_review(build_review(Project.open(_sample(tmp)), 1), "en"), "en", volume=1, next_volume=2
        )
    ),
    "plan_note": Case(lambda tmp: PlanNoteDialog("zh", initial="第 5 章之前让周老的旧账浮出水面；节奏放慢。")),
    "import_work_failed": Case(
        lambda tmp: ImportWorkScreen("写入项目：青云旧事", _failing_job, "zh"),
        lambda screen: isinstance(screen, ImportWorkScreen) and screen.error is not None,
    ),
    "project_error": Case(lambda tmp: ProjectErrorScreen(FIXED, broken_project_message(tmp / "broken"), "zh")),
}


def _still(screen: Screen[Any]) -> None:
    """No blinking cursor: the snapshot must not depend on when it is taken."""
    for widget in screen.query("Input, TextArea"):
        if isinstance(widget, Input | TextArea):
            widget.cursor_blink = False


def _steady(case: Case) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        assert await wait_for(pilot, lambda: case.ready(pilot.app.screen), limit=3000)
        _still(pilot.app.screen)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_screen_snapshot(name: str, size: tuple[int, int], tmp_path: Path, snap_compare: SnapCompare) -> None:
    case = CASES[name]
    app: App[None] = HostApp(lambda: case.make(tmp_path))
    assert snap_compare(app, terminal_size=size, run_before=_steady(case))


def _inside(outer: Region, inner: Region) -> bool:
    return outer.contains_region(inner) and inner.height > 0


async def test_a_long_question_keeps_its_options_and_keys_line_in_sight_at_80x24() -> None:
    """The facts give up rows (they scroll) so nothing below them is cut off at the bottom of the box."""
    app = HostApp(lambda: DecisionDialog(long_question(), "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        await pilot.pause()
        await pilot.pause()
        dialog = app.screen
        box = dialog.query_one("#decision-box").content_region
        assert _inside(box, dialog.query_one("#decision-options").region)
        assert _inside(box, dialog.query_one("#decision-hint").region)
        facts = dialog.query_one("#decision-facts")
        assert 3 <= facts.region.height < 10 and facts.max_scroll_y > 0  # fewer rows, the rest scrolls
    async with HostApp(lambda: DecisionDialog(long_question(), "zh")).run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert pilot.app.screen.query_one("#decision-facts").region.height == 10  # room: the usual 10 rows


async def test_many_blacklist_proposals_and_a_long_status_keep_the_keys_line_in_sight_at_80x24(
    tmp_path: Path,
) -> None:
    paths = ProjectPaths(_sample(tmp_path))
    example = "她眸光微闪，没有说话，只是把手里的灯往前递了递，像是在等他先开口。"
    many = [
        BlacklistProposal(id=i, phrase=f"眸光微闪{i}", count=3, chapters=[1, 2, 3], examples=[example])
        for i in range(1, 21)
    ]
    BlacklistProposals(next_id=21, proposals=many).save(paths.blacklist_proposals)
    app = HostApp(lambda: BlacklistProposalsDialog(paths, "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: isinstance(app.screen, BlacklistProposalsDialog))
        dialog = app.screen
        assert isinstance(dialog, BlacklistProposalsDialog)
        dialog.query_one("#proposals-status", Label).update("没有完成：" + "另一个进程改过这个文件，请重新打开再试。" * 6)
        await pilot.pause()
        await pilot.pause()
        box = dialog.query_one("#proposals-box").content_region
        assert dialog.query_one("#proposals-status").region.height >= 4
        assert _inside(box, dialog.query_one("#proposals-status").region)
        assert _inside(box, dialog.query_one(".dialog-hint").region)


async def test_help_at_80x24_shows_its_close_key() -> None:
    """Issue 12 item 8: every key of the studio does not fit 80x24; the rows scroll, the close key stays."""
    from tests.snapshot_apps.app_main import build_app

    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        help_screen = app.screen
        hint = help_screen.query_one("#help-hint", Label)
        assert "Esc" in str(hint.render()) and "关闭" in str(hint.render())
        assert _inside(help_screen.query_one("#help-box").content_region, hint.region)
        assert help_screen.query_one("#help-body").max_scroll_y > 0  # the rows scroll instead


EXTRACTIONS: dict[str, int | None] = {"running": 5, "done": None}  # held at the 5th model call: chapter 3


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("state", list(EXTRACTIONS))
def test_extraction_snapshot(state: str, size: tuple[int, int], tmp_path: Path, snap_compare: SnapCompare) -> None:
    """The import's full extraction in the studio (its services, the offline provider) on a generated book of 4
    chapters: held in the middle (cast pass, style pass, chapters 1-2 done), and done."""
    root = imported_project(tmp_path / BOOK, EXTRACT_CHAPTERS, chars=300)
    hold_at = EXTRACTIONS[state]
    provider = GatedProvider(hold_at if hold_at is not None else 10**6)
    app = NovelStudioApp(
        root, lang="zh", offline=True, provider_factory=lambda s: provider, clock=lambda: 0.0
    )

    def over(screen: ExtractionScreen) -> bool:
        return provider.holding if hold_at is not None else screen.result is not None

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        estimate = estimate_extraction(root, Settings(), offline=True)
        screen = ExtractionScreen(root, app, estimate, "zh")
        app.push_screen(screen)
        assert await wait_for(pilot, lambda: over(screen), limit=3000)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


PALETTE_QUERY = "章"  # only the studio's own commands match: one provider, so one order


def _gathered(app: App[Any], palette: Screen[Any]) -> bool:
    """The palette has listed the matches of `PALETTE_QUERY`: its gathering worker over, every line a match."""
    group = CommandPalette._GATHER_COMMANDS_GROUP
    if any(w.group == group and not w.is_finished for w in app.workers):
        return False
    commands = palette.query_one(CommandList)
    prompts = [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]
    return bool(prompts) and all(PALETTE_QUERY in p for p in prompts)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_palette_snapshot(size: tuple[int, int], snap_compare: SnapCompare) -> None:
    """The command palette over the main screen, searching: the studio's commands by their Chinese names. (The
    palette's discovery list is not snapshotted: its providers answer concurrently, in no fixed order.)"""
    from tests.snapshot_apps.app_main import build_app

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
        palette = pilot.app.screen
        palette.query_one(CommandInput).value = PALETTE_QUERY
        assert await wait_for(pilot, lambda: _gathered(pilot.app, palette), limit=3000)
        _still(palette)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(build_app(), terminal_size=size, run_before=run_before)


def test_the_table_names_every_screen() -> None:
    """A new Screen or ModalScreen in screens/ or studio/tui/ joins the table above (and gets its snapshots)."""
    import importlib
    import inspect
    import pkgutil

    import screens
    import studio.tui

    found: set[str] = set()
    for package in (screens, studio.tui):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, cls in inspect.getmembers(module, inspect.isclass):
                if issubclass(cls, Screen) and cls.__module__ == module.__name__:
                    found.add(name)
    assert {"MainScreen", "DecisionDialog", "ProjectErrorScreen"} <= found
    missing = sorted(name for name in found if name not in (__doc__ or ""))
    assert not missing, f"screens without a row in the table of tests/test_screen_snapshots.py: {missing}"
