"""Planning in the studio (issue 7 items 4, 7): `c` asks to plan first, `PlanRequested` runs the planning
session, its `PLAN_APPROVAL` question is the approval screen, and the end of a session is reported.

The planning session is a fake injected through `NovelStudioApp(plan_session=...)` (the real one is the
planning branch's `pipeline.planning.session.run_plan_session`); it asks the same questions and emits events."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.decisions import Decider, parse_plan_answer
from pipeline.events import Notice, StageFinished, StageStarted
from screens.plan_approval import PlanApprovalScreen
from screens.plan_runner import progress_text
from screens.prompt_dialogs import ConfirmDialog, NumberDialog
from studio.author_brief import brief_from_answers
from studio.errors import StudioError
from studio.init_project import init_project
from studio.lock import LockState, ProjectLock
from studio.models.checkpoint import Checkpoint, OrchestratorState, save_checkpoint
from studio.models.quick_start import QuickStartRequest
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project
from studio.tui.app import NovelStudioApp
from studio.tui.host import EventSink
from studio.tui.messages import PlanRequested
from studio.tui.new_novel import quick_start_path
from studio.tui.plan_flow import PlanNeed, plan_needed
from tests.snapshot_apps.planning_app import plan_question
from tests.tui_helpers import main_screen, make_app, notes, wait_for

OUTLINE = """# 第一卷 雾港

## 第1章 夜航
- Storyline: main-arc
- POV: lin-wu
- Location: 雾港码头
- Conflict: 守灯人失踪

## 第2章 旧灯油
- Storyline: main-arc
- POV: lin-wu
- Location: 灯塔
- Conflict: 灯油被换
"""


class FakePlanSession:
    """Asks PLAN_APPROVAL until the answer is y (writes the volume's outline) or n; records what it saw."""

    def __init__(self, root: Path, *, fail: str | None = None) -> None:
        self.root = root
        self.fail = fail
        self.calls: list[tuple[int | None, str]] = []
        self.answers: list[str] = []

    async def __call__(
        self, root: Path, *, volume: int | None, note: str, decide: Decider, emit: EventSink
    ) -> object:
        self.calls.append((volume, note))
        if self.fail is not None:
            raise StudioError(self.fail)
        emit(StageStarted(1, "plan", "offline"))
        emit(StageFinished(1, "plan", "offline", 5, cost_usd=0.01))
        outline = root / "staging" / "plan" / "vol-01" / "outline.md"
        outline.parent.mkdir(parents=True, exist_ok=True)
        outline.write_text(OUTLINE, encoding="utf-8")
        while True:
            answer = await decide(plan_question(outline))
            self.answers.append(answer)
            action = parse_plan_answer(answer).action
            if action == "y":
                target = ProjectPaths(root).outline(volume or 1)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(OUTLINE, encoding="utf-8")
                return "applied"
            if action == "n":
                return "cancelled"


def _new_project(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "new-novel", title="雾港")
    (root / "brief.md").write_text(brief_from_answers("雾港", {"genre": "都市悬疑"}), encoding="utf-8")
    return root


def _app(root: Path, session: FakePlanSession) -> NovelStudioApp:
    return make_app(root, plan_session=session)


# ----------------------------------------------------------------------------------------------- plan_needed


def test_plan_needed(tmp_path: Path, sample: Path) -> None:
    assert plan_needed(Project.open(sample)) is None  # chapter 3 is in volume 1's outline
    root = _new_project(tmp_path)
    assert plan_needed(Project.open(root)) == PlanNeed("unplanned", 1, 1)
    paths = ProjectPaths(root)
    cp = Checkpoint.load_or_default(paths.checkpoint)
    cp.orchestrator_state = OrchestratorState.QUICK_START
    save_checkpoint(paths, cp)
    assert plan_needed(Project.open(root)) == PlanNeed("unplanned", 1, 1)  # no saved choices: nothing to resume
    QuickStartRequest().save(quick_start_path(paths))
    assert plan_needed(Project.open(root)) == PlanNeed("quick_start", 1, 1)
    cp.orchestrator_state = OrchestratorState.WRITING  # never started (say, refused for a missing key)
    save_checkpoint(paths, cp)
    assert plan_needed(Project.open(root)) == PlanNeed("quick_start", 1, 1)
    staged = paths.staging / "plan" / "vol-01"
    staged.mkdir(parents=True)
    (staged / "plan.json").write_text(json.dumps({"volume": 1}), encoding="utf-8")
    assert plan_needed(Project.open(root)) == PlanNeed("staged", 1, 1)
    cp.orchestrator_state = OrchestratorState.VOL_REVIEW
    save_checkpoint(paths, cp)
    (staged / "plan.json").unlink()
    assert plan_needed(Project.open(root)) is None  # the volume end says what comes next


# ----------------------------------------------------------------------------------------------- `c`


async def test_c_on_an_unplanned_project_plans_first_and_approves(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = FakePlanSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        confirm = app.screen
        assert isinstance(confirm, ConfirmDialog) and "第1章还没有计划" in confirm.message
        await pilot.press("y")  # plan first
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        assert main_screen(app).planning
        await pilot.press("k")
        await pilot.pause()
        await pilot.press("backspace", "1", "2", "enter")  # the count dialog: 6 -> 12
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen) and len(session.answers) == 1)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not main_screen(app).planning and "规划结束" in notes(app))
        await pilot.pause()
        assert plan_needed(main_screen(app).project) is None  # reloaded: chapter 1 is planned now
    assert session.calls == [(None, "")]
    assert session.answers == ["k:12", "y"]
    assert not (root / "chapters" / "chapter-001.md").exists()  # nothing was written from nothing


async def test_c_then_cancel_writes_nothing(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = FakePlanSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")
        await pilot.pause()
        assert not main_screen(app).running
    assert session.calls == []
    assert not (root / "chapters" / "chapter-001.md").exists()
    assert Checkpoint.load_or_default(ProjectPaths(root).checkpoint).last_completed_chapter == 0


async def test_c_on_a_planned_chapter_writes_at_once(sample: Path) -> None:
    session = FakePlanSession(sample)
    app = _app(sample, session)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDialog)
        assert main_screen(app).runner.running or (sample / "chapters" / "chapter-003.md").exists()
        await app.workers.wait_for_complete()
    assert session.calls == []


async def test_c_with_a_staged_plan_offers_to_review_it(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    staged = ProjectPaths(root).staging / "plan" / "vol-01"
    staged.mkdir(parents=True)
    (staged / "plan.json").write_text(json.dumps({"volume": 1}), encoding="utf-8")
    session = FakePlanSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        confirm = app.screen
        assert isinstance(confirm, ConfirmDialog) and "已经暂存" in confirm.message
        await pilot.press("y")
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("y")  # yes, discard
        assert await wait_for(pilot, lambda: not main_screen(app).planning)
    assert session.calls == [(1, "")]
    assert session.answers == ["n"]


# ----------------------------------------------------------------------------------------------- PlanRequested


async def test_plan_requested_runs_the_session_with_volume_and_note(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = FakePlanSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main_screen(app).post_message(PlanRequested(volume=2, note="节奏放慢"))
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        await pilot.press("c")  # writing is refused while the plan waits: keys go to the approval screen
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not main_screen(app).planning)
    assert session.calls == [(2, "节奏放慢")]
    assert (root / "volumes" / "vol-02" / "outline.md").is_file()


async def test_a_second_request_while_planning_is_refused(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = FakePlanSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        screen.post_message(PlanRequested(volume=1))
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        screen.post_message(PlanRequested(volume=1))
        assert await wait_for(pilot, lambda: "正在规划，请稍候" in notes(app))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not screen.planning)
    assert session.calls == [(1, "")]


async def test_a_failing_session_is_reported_and_the_studio_stays(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = FakePlanSession(root, fail="计划经过 2 轮修正仍有错误，未暂存任何内容")
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main_screen(app).post_message(PlanRequested(volume=None))
        assert await wait_for(pilot, lambda: "规划出错：计划经过 2 轮修正仍有错误" in notes(app))
        assert not main_screen(app).planning
        assert app.is_running
    log = (root / ".novel-studio" / "logs" / "studio.log").read_text(encoding="utf-8")
    assert "plan failed" in log and "Traceback" in log  # the details are in the log only


async def test_escape_stops_planning(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = FakePlanSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        screen.plans.plan(1)
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        assert screen.running  # the studio counts planning as running (no second run, no edit meanwhile)
        screen.action_stop()
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not screen.planning and "规划已停止" in notes(app))


async def test_the_real_plan_session_offline_plans_and_applies_volume_one(tmp_path: Path) -> None:
    """The App's default session is the pipeline's own: offline, a briefed project gets its volume 1 planned,
    shown on the approval screen, and applied on `y` (the outline and the contracts are on disk)."""
    root = _new_project(tmp_path)
    app = make_app(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        main_screen(app).post_message(PlanRequested(volume=None))
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen), limit=3000)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not main_screen(app).planning, limit=3000)
    paths = ProjectPaths(root)
    assert paths.outline(1).is_file()
    assert paths.contract(1, 1).is_file()
    assert Project.open(root).storylines.storylines  # the plan session gave the fresh project its main-arc


@dataclass(frozen=True)
class PlanStep:
    """An event of the planning session's own (the main screen has no renderer for it)."""

    step: str


class SteppingSession(FakePlanSession):
    async def __call__(
        self, root: Path, *, volume: int | None, note: str, decide: Decider, emit: EventSink
    ) -> object:
        emit(PlanStep("章节契约第 2/3 批"))  # type: ignore[arg-type]  # a kind this build's events do not list
        return await super().__call__(root, volume=volume, note=note, decide=decide, emit=emit)


async def test_a_planning_step_of_its_own_is_shown(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = SteppingSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main_screen(app).plans.plan(1)
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        assert await wait_for(pilot, lambda: "章节契约第 2/3 批" in notes(app))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not main_screen(app).planning)
    assert progress_text(PlanStep("  ")) is None
    assert progress_text(Notice(None, "提醒")) == "提醒"


@dataclass(frozen=True)
class Step:
    """Shaped as the quick start's step events."""

    step: str
    status: str
    index: int
    total: int
    estimate_usd: float | None = None


def test_progress_text_of_flow_steps() -> None:
    assert progress_text(Step("world", "started", 1, 8, 0.02)) == "快速开始 1/8：世界观（预计 $0.02）"
    assert progress_text(Step("trial", "resumed", 6, 8)) == "快速开始 6/8：试写三章（接着上次）"
    assert progress_text(Step("style", "started", 4, 8, 0.0), "en") == "Quick start 4/8: style"
    assert progress_text(Step("world", "done", 1, 8)) is None  # only starts are shown
    assert progress_text(Step("new-step", "started", 2, 9)) == "快速开始 2/9：new-step"


async def test_write_many_on_an_unplanned_project_asks_first(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    session = FakePlanSession(root)
    app = _app(root, session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("C")
        assert await wait_for(pilot, lambda: isinstance(app.screen, NumberDialog))
        await pilot.press("backspace", "3", "enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")
        await pilot.pause()
        assert not main_screen(app).running
    assert session.calls == []
    assert not (root / "chapters" / "chapter-001.md").exists()


async def test_c_on_a_new_novel_whose_quick_start_did_not_run_offers_it(tmp_path: Path) -> None:
    root = _new_project(tmp_path)
    QuickStartRequest(style_source="preset", preset="冷峻悬疑").save(quick_start_path(ProjectPaths(root)))
    requests: list[QuickStartRequest] = []

    async def quick_start(root: Path, request: QuickStartRequest, *, decide: Decider, emit: EventSink) -> object:
        requests.append(request)
        return None

    session = FakePlanSession(root)
    app = make_app(root, plan_session=session, quick_start=quick_start)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        confirm = app.screen
        assert isinstance(confirm, ConfirmDialog) and "快速开始还没有完成" in confirm.message
        await pilot.press("y")
        assert await wait_for(pilot, lambda: "快速开始结束" in notes(app))
    assert requests == [QuickStartRequest(style_source="preset", preset="冷峻悬疑")]
    assert session.calls == []  # not confirmed: no planning


async def test_the_app_runs_the_pipeline_sessions_under_its_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The App's default sessions call the planning branches' functions as they define them (positional root,
    settings, provider, [request,] decide, emit; keywords after), holding the project lock meanwhile."""
    root = _new_project(tmp_path)
    seen: dict[str, tuple[object, ...]] = {}

    async def run_plan_session(
        root: Path, settings: Settings, provider: object, decide: Decider, emit: EventSink, *,
        volume: int | None, note: str, offline: bool, lang: str,
    ) -> str:
        state = ProjectLock(ProjectPaths(root)).status().state
        seen["plan"] = (volume, note, offline, lang, state)
        return "planned"

    async def run_quick_start(
        root: Path, settings: Settings, provider: object, request: QuickStartRequest, decide: Decider,
        emit: EventSink, *, lock: ProjectLock, lang: str, offline: bool,
    ) -> str:
        seen["quick"] = (request.style_source, lock.held, lang, offline)
        return "confirmed"

    monkeypatch.setitem(sys.modules, "pipeline.planning.session", _module("session", run_plan_session=run_plan_session))
    monkeypatch.setitem(
        sys.modules, "pipeline.planning.quick_start", _module("quick_start", run_quick_start=run_quick_start)
    )
    app = make_app(root)

    async def decide(question: object) -> str:
        return "y"

    def emit(event: object) -> None:
        pass

    assert await app.plan_session(root, volume=2, note="快一点", decide=decide, emit=emit) == "planned"
    assert await app.quick_start(root, QuickStartRequest(), decide=decide, emit=emit) == "confirmed"
    assert seen["plan"] == (2, "快一点", True, "zh", LockState.HELD_ALIVE)
    assert seen["quick"] == ("write_then_extract", True, "zh", True)
    assert ProjectLock(ProjectPaths(root)).status().state is LockState.FREE  # released after each


def _module(name: str, **functions: object) -> types.ModuleType:
    module = types.ModuleType(f"pipeline.planning.{name}")
    for key, value in functions.items():
        setattr(module, key, value)
    return module
