"""The studio's import preview on a big manuscript: does the screen keep answering while it reads and splits?

    python bench/bench_import_tui.py [--chars 3000000] [--chapter-chars 3000] [--keep DIR]

Generates one TXT book of `--chars` 字 (GB18030, `bench_import_split.make_book`), opens the import preview
(`screens.import_preview.ImportPreviewScreen`, headless at 80x24) on it and prints figures only (no asserts):

- `preview shown`: from the screen's mount to the preview lines on screen (reading, decoding, splitting in the
  screen's thread worker, then the preview rendered);
- `re-split by size`: from the `s` key to the new preview (the text already read is split again);
- `loop stall max` / `p95`: the longest and the 95th-percentile gap between ticks of a 10 ms timer on the
  App's loop while the worker runs: what a key pressed meanwhile would wait for (a frozen screen shows the
  whole read as one stall).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402
from bench_import_split import make_book  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402

from screens.import_preview import ImportPreviewScreen  # noqa: E402
from studio.tui.import_flow import ImportTarget  # noqa: E402

TICK_S = 0.01


class TickApp(App[None]):
    """Pushes the preview and records the gaps between the ticks of a timer on its loop."""

    def __init__(self, target: ImportTarget) -> None:
        super().__init__()
        self.target = target
        self.gaps: list[float] = []
        self._last = 0.0
        self.recording = False

    def compose(self) -> ComposeResult:
        yield Static("")

    def on_mount(self) -> None:
        self._last = time.perf_counter()
        self.set_interval(TICK_S, self._tick)
        self.push_screen(ImportPreviewScreen(self.target, "zh"))

    def _tick(self) -> None:
        now = time.perf_counter()
        if self.recording:
            self.gaps.append(now - self._last)
        self._last = now


def p95(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def measure(target: ImportTarget) -> dict[str, float]:
    app = TickApp(target)
    figures: dict[str, float] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        app.recording = True
        start = time.perf_counter()
        while True:
            screen = app.screen
            if isinstance(screen, ImportPreviewScreen) and not screen.busy and (
                screen.manuscript is not None or screen.error is not None
            ):
                break
            await asyncio.sleep(0.005)
        figures["preview_s"] = time.perf_counter() - start
        screen = app.screen
        assert isinstance(screen, ImportPreviewScreen)
        if screen.error is not None:
            raise SystemExit(f"preview failed: {screen.error}")
        figures["chapters"] = float(len(screen.manuscript.chapters) if screen.manuscript else 0)
        start = time.perf_counter()
        await pilot.press("s")
        while screen.busy or screen.manuscript is None:
            await asyncio.sleep(0.005)
        figures["resplit_s"] = time.perf_counter() - start
        app.recording = False
    figures["stall_max_s"] = max(app.gaps, default=float("nan"))
    figures["stall_p95_s"] = p95(app.gaps)
    figures["stall_median_s"] = statistics.median(app.gaps) if app.gaps else float("nan")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=3_000_000)
    parser.add_argument("--chapter-chars", type=int, default=3000)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args(argv)

    def run(work: Path) -> None:
        book = work / "big-book.txt"
        book.write_bytes(make_book(args.chars, args.chapter_chars).encode("gb18030"))
        target = ImportTarget(book, work / "project")
        figures = asyncio.run(measure(target))
        print(f"manuscript: {args.chars:,} 字, GB18030, {int(figures['chapters'])} chapters")
        print(f"preview shown:      {figures['preview_s']:.2f} s (read + decode + split + preview, in a thread worker)")
        print(f"re-split by size:   {figures['resplit_s']:.2f} s")
        print(f"loop stall max:     {figures['stall_max_s'] * 1000:.0f} ms (10 ms timer on the App's loop)")
        print(f"loop stall p95:     {figures['stall_p95_s'] * 1000:.0f} ms, median {figures['stall_median_s'] * 1000:.0f} ms")

    run_in_workdir(args.keep, "bench-import-tui-", run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
