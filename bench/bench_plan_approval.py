"""How fast the plan-approval screen opens and scrolls on plans of 30, 100 and 500 chapters.

    python bench/bench_plan_approval.py [--lengths 30,100,500] [--presses 20] [--size 80x24]

Prints figures only (no asserts), per plan length, headless (`App.run_test`, frames composed but not written
to a terminal):
- open: from pushing `PlanApprovalScreen` to the first frame that shows it (`App._display` observed), median of
  3 opens;
- keys: `j`, `pagedown`, `end`, `home` and `x` (bound to nothing: the floor of this measure, a key's trip
  through Pilot and the next frame) pressed in turn (`--presses` times in all), each timed from the key event
  to the first frame after it; median and p95 per key.
The plan is synthetic (every field filled, Chinese text), shaped as `novel-studio plan --json` prints it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402

from pipeline.decisions import Option, Question, QuestionKind  # noqa: E402
from screens.plan_approval import PlanApprovalScreen  # noqa: E402

KEYS = ("j", "pagedown", "end", "home", "x")
"""`x` is bound to nothing: its figure is the floor of this way of measuring (the key's trip and a frame)."""


def plan_question(length: int) -> Question:
    chapters = [
        {
            "chapter": n,
            "heading": f"第{n}章 雾港第{n}夜",
            "storyline": "main-arc" if n % 3 else "harbor-feud",
            "pov": "lin-wu",
            "location": "雾港码头",
            "conflict": "守灯人失踪，林雾被迫接手灯塔，税关的人在雾里搜她父亲留下的账簿",
            "payoff": "林雾第一次以灯驱雾，亡者退回海里",
            "hook": "雾里有人叫出她的乳名",
            "foreshadowing": "父亲的笔记" if n % 5 == 0 else None,
        }
        for n in range(1, length + 1)
    ]
    plan = {
        "volume": 1,
        "first_chapter": 1,
        "last_chapter": length,
        "chapters": chapters,
        "threads": [f"thread-{i}" for i in range(max(1, length // 10))],
        "warnings": [f"故事线 main-arc 连续 {i} 章为主线" for i in range(3)],
        "estimated_write_cost_usd": 0.4 * length,
    }
    return Question(
        kind=QuestionKind.PLAN_APPROVAL,
        chapter=None,
        title_zh="批准第 1 卷的计划吗？",
        title_en="Approve the plan of volume 1?",
        options=[Option("y", "批准", "approve")],
        recommended="y",
        data={"volume": 1, "plan": plan, "outline_path": ""},
    )


class FrameApp(App[None]):
    """A host whose frames are counted (`_display` is where Textual hands a frame to the driver)."""

    def __init__(self) -> None:
        super().__init__()
        self.frames = 0
        self.frame_event = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield Static("host")

    def _display(self, screen: Any, renderable: Any) -> None:
        self.frames += 1
        self.frame_event.set()
        super()._display(screen, renderable)


async def _next_frame(app: FrameApp, start: float) -> float:
    await app.frame_event.wait()
    return (time.perf_counter() - start) * 1000


async def measure(length: int, presses: int, size: tuple[int, int]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"open": [], **{k: [] for k in KEYS}}
    question = plan_question(length)
    for _ in range(3):
        app = FrameApp()
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            app.frame_event.clear()
            start = time.perf_counter()
            app.push_screen(PlanApprovalScreen(question, "zh"))
            while not isinstance(app.screen, PlanApprovalScreen):
                await asyncio.sleep(0)
            out["open"].append(await _next_frame(app, start))
            await pilot.pause()
            if out["j"]:
                continue
            for i in range(presses):
                key = KEYS[i % len(KEYS)]
                await pilot.pause()
                app.frame_event.clear()
                start = time.perf_counter()
                await pilot.press(key)
                if key == "x":
                    app.refresh()  # nothing changes on screen: ask for the frame the other keys cause
                out[key].append(await _next_frame(app, start))
    return out


def p95(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", default="30,100,500")
    parser.add_argument("--presses", type=int, default=25)
    parser.add_argument("--size", default="80x24")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    print(f"plan-approval screen, headless {width}x{height} (ms)")
    for length in (int(v) for v in args.lengths.split(",")):
        figures = asyncio.run(measure(length, args.presses, (width, height)))
        parts = [f"open median {statistics.median(figures['open']):.1f}"]
        for key in KEYS:
            values = figures[key]
            if values:
                parts.append(f"{key} median {statistics.median(values):.1f} p95 {p95(values):.1f}")
        print(f"{length:4d} chapters: " + " · ".join(parts))


if __name__ == "__main__":
    main()
