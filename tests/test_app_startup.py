"""Pilot tests of the studio's start-up checks, the welcome screen and the keymap from the settings file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.providers.offline import OfflineProvider
from screens.decision_dialog import DecisionDialog
from screens.main_screen import MainScreen
from screens.prompt_dialogs import ConfirmDialog, GotoDialog
from screens.welcome_screen import WelcomeScreen
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp
from studio.tui.keymap import binding_defaults, check_keymap
from tests.tui_helpers import RecordingStudio, main_screen, make_app, notes, run_to_end, wait_for

ROOT = Path(__file__).resolve().parent.parent


def checkpoint(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".checkpoint.json").read_text(encoding="utf-8"))
    return data


def staged_bytes(root: Path, n: int) -> dict[Path, bytes]:
    """Chapter `n`'s staged files (relative paths) and their bytes."""
    from studio.tui.discard import staged_files

    return {p.relative_to(root): p.read_bytes() for p in staged_files(ProjectPaths(root), n)}


async def interrupt_chapter_3(root: Path) -> None:
    app = make_app(root, delay=0.05)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("c")
        assert await wait_for(pilot, lambda: bool(screen.draft_text))
        screen.runner.stop()
        assert await wait_for(pilot, lambda: not screen.running)
        await pilot.pause()
    assert checkpoint(root)["inflight_chapter"] == 3


async def test_interrupted_chapter_asked_on_start_and_discarded(sample: Path) -> None:
    await interrupt_chapter_3(sample)
    paths = ProjectPaths(sample)
    assert any(paths.staging.rglob("*"))
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        dialog = app.screen
        assert isinstance(dialog, DecisionDialog) and dialog.question.kind.value == "interrupted"
        assert [o.key for o in dialog.question.options] == ["resume", "later", "discard"]
        staged = staged_bytes(sample, 3)
        assert staged, "nothing was staged"
        await pilot.press("3")  # discard: not one key away, it is asked once more
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: checkpoint(sample)["inflight_chapter"] is None)
        assert not paths.staged_chapter(3).exists()
        assert await wait_for(pilot, lambda: "已丢弃第 3 章" in notes(app))
        assert not main_screen(app).running
    backups = list((sample / ".novel-studio" / "discarded").glob("chapter-003-*"))
    assert len(backups) == 1, "the discarded work was not backed up"
    assert {rel: (backups[0] / rel).read_bytes() for rel in staged} == staged


async def test_discard_at_start_up_is_asked_again_and_keeps_by_default(sample: Path) -> None:
    """Regression (issue 11 item 21): discarding staged work was one key away, with no backup."""
    await interrupt_chapter_3(sample)
    staged = staged_bytes(sample, 3)
    assert staged
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        await pilot.press("3")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("enter")  # the default is to keep the work
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause()
    assert staged_bytes(sample, 3) == staged
    assert checkpoint(sample)["inflight_chapter"] == 3
    assert not (sample / ".novel-studio" / "discarded").exists()


async def test_interrupted_chapter_resumed_from_start_dialog(sample: Path) -> None:
    await interrupt_chapter_3(sample)
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        await pilot.press("enter")  # resume (recommended)
        screen = main_screen(app)
        asked = []
        for _ in range(600):
            await pilot.pause(0.02)
            if isinstance(app.screen, DecisionDialog):
                asked.append(app.screen.question.kind.value)
                await pilot.press("enter")
            elif 3 in screen.project.committed_chapters() and not screen.running:
                break
        assert "interrupted" not in asked  # not asked twice
        assert 3 in screen.project.committed_chapters()


async def test_live_foreign_lock_disables_writing(sample: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "lock_holder.py"), str(sample), "hold"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ACQUIRED"
        app = make_app(sample)
        async with app.run_test(size=(80, 24)) as pilot:
            assert await wait_for(pilot, lambda: f"pid {holder.pid}" in notes(app))
            assert "不能写作" in notes(app)
            screen = main_screen(app)
            await pilot.press("c")
            await pilot.pause(0.1)
            assert not screen.running
            assert isinstance(app.screen, MainScreen)
    finally:
        holder.terminate()
        holder.wait(10)


async def test_missing_key_dialog_continue_offline(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    app = RecordingStudio(sample, offline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        dialog = app.screen
        assert isinstance(dialog, DecisionDialog) and dialog.question.kind.value == "missing_key"
        assert any("export ANTHROPIC_API_KEY=" in fact for fact in dialog.question.facts)
        screen = main_screen(app)
        assert "离线模式" not in screen.header.plain()
        await pilot.press("enter")  # continue offline (recommended)
        assert await wait_for(pilot, lambda: "离线模式" in screen.header.plain())
        assert app.offline and screen.runner.offline


async def test_auth_error_during_a_run_asks_the_key_question(sample: Path) -> None:
    from pipeline.providers.base import AuthError

    class Rejected(OfflineProvider):
        async def run(self, request: Any, on_text: Any = None) -> Any:
            raise AuthError("ANTHROPIC_API_KEY", "invalid x-api-key", status_code=401)

    app = RecordingStudio(sample, offline=False, provider_factory=lambda s: Rejected(delay_s=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert await wait_for(
            pilot,
            lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.kind.value == "missing_key",
        )


async def test_welcome_screen_opens_the_sample(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    app = make_app(folder, welcome=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("4")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.project_root == folder / "sample-novel"
        assert "雾港守灯人" in main_screen(app).header.plain()


async def test_welcome_screen_creates_a_project_and_quits(tmp_path: Path) -> None:
    app = make_app(tmp_path, welcome=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (tmp_path / "novel-studio.toml").is_file()
    app = make_app(tmp_path / "other", welcome=True)
    (tmp_path / "other").mkdir()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert not (tmp_path / "other" / "novel-studio.toml").exists()


def _with_keymap(root: Path, table: str) -> None:
    settings = root / "novel-studio.toml"
    settings.write_text(settings.read_text(encoding="utf-8") + f"\n[ui.keymap]\n{table}\n", encoding="utf-8")


async def test_keymap_from_settings(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_keymap(sample, 'write_next = "w"')
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        seen: list[int] = []
        monkeypatch.setattr(screen.runner, "start", lambda request: seen.append(request.chapters))
        await pilot.press("w")
        assert seen == [1]
        await pilot.press("c")
        assert seen == [1]  # the old key is free now


async def test_keymap_clash_and_unknown_are_reported(sample: Path) -> None:
    _with_keymap(sample, 'write_next = "g"\nno_such_action = "x"')
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = notes(app)
        assert "“g”" in text and "no_such_action" in text
        await pilot.press("g")  # the clashing remap was left out: g still goes to a chapter
        await pilot.pause()
        assert isinstance(app.screen, GotoDialog)


def test_check_keymap_unit() -> None:
    defaults = binding_defaults((MainScreen.BINDINGS, NovelStudioApp.BINDINGS))
    ok = check_keymap({"write_next": "w", "goto": "c"}, defaults)  # "c" is free once write_next moves
    assert "write_next" in ok.keymap and "goto" in ok.keymap and not ok.problems
    bad = check_keymap({"write_next": "", "help": "q"}, defaults, "en")
    assert not bad.keymap and len(bad.problems) == 2


async def test_resume_answer_is_used_by_that_run_only(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: "resume" answered at start-up stayed patched onto the runner when that run did not ask (a
    crash mid-commit finishes without asking), so a later stopped chapter resumed without asking the author."""
    from pipeline.decisions import Option, Question, QuestionKind
    from pipeline.orchestrator import RunResult
    from studio.tui.host import RunRequest

    await interrupt_chapter_3(sample)
    answers: list[str] = []
    runs: list[int] = []

    class OneQuestionLater:
        """Run 1 asks nothing; run 2 meets an interrupted chapter and asks."""

        def __init__(self, root: Path, agents: Any, *, decider: Any, **kwargs: Any) -> None:
            self.decider = decider

        async def run(self, chapters: int, note: str | None = None) -> RunResult:
            runs.append(chapters)
            if len(runs) > 1:
                question = Question(
                    kind=QuestionKind.INTERRUPTED, chapter=4, title_zh="第4章上次被中断", title_en="Chapter 4",
                    options=[Option("resume", "继续", "resume"), Option("discard", "丢弃", "discard")],
                    recommended="resume",
                )
                answers.append(await self.decider(question))
            return RunResult()

    # The runner imports the orchestrator when a run starts: patched where it is looked up.
    monkeypatch.setattr("pipeline.orchestrator.Orchestrator", OneQuestionLater)
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        await pilot.press("enter")  # resume, answered ahead of the run
        screen = main_screen(app)
        assert await wait_for(pilot, lambda: len(runs) == 1 and not screen.running)
        screen.start_run(RunRequest(1))
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog)), "answered without asking"
        dialog = app.screen
        assert isinstance(dialog, DecisionDialog) and dialog.question.kind is QuestionKind.INTERRUPTED
        await pilot.press("2")  # discard: the author's own answer this time (asked once more)
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: answers == ["discard"])


def test_studio_exits_non_zero_after_an_unhandled_exception(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (issue 11 item 15): the studio exited 0 after an unhandled exception."""
    from studio.cli.main import launch_studio

    def crash(self: MainScreen) -> None:
        raise RuntimeError("boom")

    original_run = NovelStudioApp.run

    def run_headless(self: NovelStudioApp, **kwargs: Any) -> Any:
        return original_run(self, headless=True, size=(80, 24))

    monkeypatch.setattr(MainScreen, "action_help", crash)
    monkeypatch.setattr(NovelStudioApp, "on_ready", lambda self: self.call_later(self.simulate_key, "question_mark"),
                        raising=False)
    monkeypatch.setattr(NovelStudioApp, "run", run_headless)
    monkeypatch.setattr("studio.cli.main.terminal_refusal", lambda lang: None)  # headless: no terminal needed
    assert launch_studio(sample, lang="zh", offline=True) == 1


async def test_latest_chapter_not_utf8_is_reported_not_a_crash(sample: Path) -> None:
    """Regression (issue 11 item 15): a latest chapter that is not UTF-8 crashed the studio with a traceback."""
    chapter = ProjectPaths(sample).chapter(2)
    original = chapter.read_bytes() + "乱码".encode("gbk")
    chapter.write_bytes(original)
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert app.is_running and app.screen is screen
        assert "第2章无法读取" in screen.chapter_view.text and "UTF-8" in screen.chapter_view.text
        assert "第2章无法读取" in notes(app)
    assert chapter.read_bytes() == original  # never rewritten


async def test_a_refused_run_says_why_not_a_class_name(sample: Path) -> None:
    # The checkpoint counts chapter 2, which is gone: the cold-start check refuses the run with a way out.
    (sample / "chapters" / "chapter-002.md").unlink()
    app = make_app(sample)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await run_to_end(app, pilot)
        shown = notes(app)
        assert "novel-studio repair" in shown or "第 2 章" in shown, shown
        assert "ColdStartRefused" not in shown
    assert not (sample / "chapters" / "chapter-003.md").exists()


# The pipeline modules importing the studio may load: the run's data types (questions, events), the provider
# protocol and prices, the estimate. The agents (their protocol too), the staging, commit, undo and refine edits,
# the context builders, the orchestrator, the extraction and the review load when they run.
STARTUP_PIPELINE_MODULES = frozenset({
    "pipeline", "pipeline.brief", "pipeline.decisions", "pipeline.estimate", "pipeline.events",
    "pipeline.prompts_registry", "pipeline.providers", "pipeline.providers.base", "pipeline.providers.cost",
    "pipeline.providers.presets", "pipeline.providers.retry",
})

# Other modules the first paint does not need (issue 12 "fast start"): the blacklist matcher (refine edits), the
# checks' findings and punctuation fixes, Markdown (the volume review), the file watcher's library; the welcome
# screen and the new-novel path, the planning's staged plans and approval screens, the import's record and
# extraction screen, the export, search and volume-end screens.
NOT_AT_START = ("studio.checks.matcher", "studio.checks.findings_list", "studio.checks.punctuation_fix",
                "markdown_it", "textual.widgets._markdown", "watchfiles", "screens.blacklist_proposals",
                "screens.import_source", "screens.welcome_screen", "studio.tui.new_novel", "studio.init_project",
                "studio.planning.staged", "screens.plan_approval", "screens.trial_confirm",
                "studio.models.import_record", "screens.import_progress", "screens.export_dialog",
                "screens.search_screen", "screens.volume_end")


def test_importing_the_studio_loads_no_agents_nor_orchestrator() -> None:
    """Structural, not timed: the pipeline's heavy modules (the agents and the judge's calibration, the context
    builders, the orchestrator, the extraction, the volume review) stay out of the studio's start; a new
    module-level import of them fails here by name."""
    code = (
        "import json, sys\n"
        "from studio.tui.app import NovelStudioApp\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert sorted(m for m in loaded if m.startswith("pipeline.agents")) == []
    assert sorted(m for m in loaded if m.split(".")[0] == "pipeline" and m not in STARTUP_PIPELINE_MODULES) == []
    assert sorted(m for m in NOT_AT_START if m in loaded) == []


def test_the_palette_still_offers_the_providers_it_imports_lazily() -> None:
    from screens.blacklist_proposals import BlacklistCommands
    from screens.import_source import AppendImportCommands

    providers = {c if isinstance(c, type) else c() for c in NovelStudioApp.COMMANDS}
    assert {BlacklistCommands, AppendImportCommands} <= providers


async def test_a_second_start_shows_the_last_diff_without_replaying_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (issue 12 "fast start"): every start replayed the whole changelog before the first paint to
    show the last chapter's state diff (~110 ms of CPU on 500 chapters). The replayed state is kept in the user's
    cache between starts (`studio.views.replay_cache`), so the next start replays nothing from the log's start,
    and its first screen shows the same diff."""
    import screens.main_screen as main_screen_module
    from studio.views import replay_cache, state_diff
    from tests.test_synth import load_synth
    from widgets.state_diff_view import render_state_diff

    root = tmp_path / "novel"
    load_synth().generate_project(root, 12, chars_per_chapter=300, seed=2)
    replays: list[int | None] = []
    original = state_diff.replay

    def counting(entries: Any, upto_version: int | None = None, **kwargs: Any) -> Any:
        replays.append(upto_version)
        return original(entries, upto_version, **kwargs)

    monkeypatch.setattr(state_diff, "replay", counting)
    # the start alone: no neighbour prepared while idle (a loaded machine's pause outlasts `PREPARE_AFTER_S`,
    # and preparing chapter 11 replays too)
    monkeypatch.setattr(main_screen_module, "PREPARE_AFTER_S", 3600.0)
    shown: list[object] = []
    for _ in range(2):
        state_diff._state_memo.clear()  # each start is a new process: nothing memoised in this one
        state_diff._changelog_memo.clear()
        replay_cache.forget()
        app = make_app(root)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            screen = main_screen(app)
            assert screen.selected == 12
            shown.append(screen.diff_view._diff)
            assert "第12章" in render_state_diff(screen.diff_view._diff, "zh").plain
    assert shown[0] is not None and shown[0] == shown[1]
    assert len(replays) == 1, replays  # the first start only


def test_the_studio_starts_without_garbage_collections(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 12 "fast start": automatic collections cost about 0.2 s of CPU of the start (imports and the first
    screen make long-lived objects, little garbage). `launch_studio` starts the App with them off; a real terminal
    switches them on after the first paint (`settle_heap`), a headless App when it ends."""
    import gc

    from studio.cli.main import launch_studio

    seen: list[bool] = []
    original_run = NovelStudioApp.run

    def run_headless(self: NovelStudioApp, **kwargs: Any) -> Any:
        return original_run(self, headless=True, size=(80, 24))

    def ready(self: NovelStudioApp) -> None:
        seen.append(gc.isenabled())
        self.exit()

    monkeypatch.setattr(NovelStudioApp, "on_ready", ready, raising=False)
    monkeypatch.setattr(NovelStudioApp, "run", run_headless)
    monkeypatch.setattr("studio.cli.main.terminal_refusal", lambda lang: None)  # headless: no terminal needed
    assert gc.isenabled()
    assert launch_studio(sample, lang="zh", offline=True) == 0
    assert seen == [False]
    assert gc.isenabled()


def test_settle_heap_switches_collections_back_on() -> None:
    import gc

    from studio.tui.heap import collections_paused, settle_heap

    try:
        with collections_paused():
            assert not gc.isenabled()
            settle_heap()  # after the first paint
            assert gc.isenabled()
        assert gc.isenabled()
    finally:
        gc.unfreeze()



@pytest.mark.serial  # a child that does not quit is killed in `close`
@pytest.mark.xdist_group("serial")
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_the_file_watcher_starts_after_the_first_paint(sample: Path, tmp_path: Path) -> None:
    """Issue 12 "fast start": the watcher (importing `watchfiles` and anyio, then its first scan) started in
    the screen's first after-refresh callback, which a real terminal's start-up runs before the first paint (a
    headless App does not: hence a real pty, tests/startup_order_child.py)."""
    from tests.pty_term import PtyTerm
    from tests.serve_client import serve_env

    out = tmp_path / "order.txt"
    env = dict(serve_env(tmp_path, 0.0), PYTHONPATH=str(ROOT))
    term = PtyTerm.spawn([sys.executable, str(ROOT / "tests" / "startup_order_child.py"), str(out), str(sample)],
                         size=(160, 48), env=env)
    try:
        assert term.wait_until(out.is_file, timeout=120), term.text()
    finally:
        term.close()
    assert out.read_text(encoding="utf-8") == "started after the first paint"


async def test_the_outline_builds_each_label_once_and_only_for_the_lines_it_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12 "fast start": every chapter's label was built at the natural width when the tree was made and
    again at the pane's width after the first layout (1,000 labels on 500 chapters before the first paint).
    A label is now built when its line is first drawn, at the width then; the lines show the fitted labels."""
    from rich.text import Text

    from studio.views.outline_rows import ChapterRow
    from tests.test_synth import load_synth
    from widgets import outline_tree
    from widgets.outline_tree import Columns, chapter_label, columns_for

    root = tmp_path / "novel"
    load_synth().generate_project(root, 150, chars_per_chapter=200, seed=3)
    built: list[int] = []

    def counting(row: ChapterRow, columns: Columns, lang: Any = "zh") -> Text:
        built.append(row.number)
        return chapter_label(row, columns, lang)

    monkeypatch.setattr(outline_tree, "chapter_label", counting)
    app = make_app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        outline = main_screen(app).outline
        assert outline.current_chapter == 150
        assert len(built) == len(set(built)), "a label was built twice"
        assert 0 < len(built) < 150
        cells = outline.scrollable_content_region.width - outline.guide_depth
        columns = columns_for(outline.rows, "zh", cells)
        node = outline.chapter_node(150)
        assert node is not None and isinstance(node.data, ChapterRow)
        drawn = "".join(segment.text for segment in outline.render_line(node.line - int(outline.scroll_y)))
        assert chapter_label(node.data, columns, "zh").plain.rstrip() in drawn


async def test_the_layout_class_does_not_restyle_the_screen_at_start(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12 "fast start": the wide/narrow class was set in `MainScreen.on_mount`, after every widget had its
    styles, which restyled the whole screen before the first paint. It is set before the widgets mount."""
    restyled: list[object] = []
    update_styles = NovelStudioApp.update_styles

    def spy(self: NovelStudioApp, node: Any = None, animate: bool = True) -> None:
        restyled.append(node)
        update_styles(self, node, animate=animate)

    monkeypatch.setattr(NovelStudioApp, "update_styles", spy)
    for size in ((160, 48), (80, 24)):
        restyled.clear()
        app = make_app(sample)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            screen = main_screen(app)
            assert screen.has_class("-wide" if size[0] >= 100 else "-narrow")
            assert [node for node in restyled if isinstance(node, MainScreen)] == []
            if size[0] < 100:
                shown = [pane.id for pane in screen.query(".pane") if pane.display]
                assert shown == ["pane-chapter"]


async def test_a_narrow_start_draws_the_hidden_outline_fitted_when_it_is_shown(sample: Path) -> None:
    """At 80x24 the outline pane starts hidden (the chapter pane shows), with no width: its labels are built
    when it is first shown, fitted to its width then, and again after a resize to the wide layout."""
    from studio.views.outline_rows import ChapterRow
    from widgets.outline_tree import chapter_label, columns_for

    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        outline = screen.outline
        assert not screen.query_one("#pane-outline").display and outline.size.width == 0
        for size in ((80, 24), (160, 48)):
            await pilot.resize_terminal(*size)
            await pilot.press("1")
            await pilot.pause()
            assert screen.focused is outline
            cells = outline.scrollable_content_region.width - outline.guide_depth
            columns = columns_for(outline.rows, "zh", cells)
            for y in range(min(4, len(outline.rows[0].chapters))):
                node = outline.chapter_node(outline.rows[0].chapters[y].number)
                assert node is not None and isinstance(node.data, ChapterRow)
                drawn = "".join(s.text for s in outline.render_line(node.line - int(outline.scroll_y)))
                assert chapter_label(node.data, columns, "zh").plain.rstrip() in drawn, (size, drawn)
