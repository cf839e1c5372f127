"""How fast the studio paints on a 500-chapter novel, and how fast it answers keys while a chapter streams.

    python bench/bench_tui.py [--quick] [--chapters 500] [--runs 5] [--presses 50] [--rate 100] [--no-pty]
                              [--parts abcde]

Prints figures only (no asserts):
(a) time to first paint on a synthetic project (`bench/synth.py`): from `NovelStudioApp(...)` to the first
    frame of the main screen with the outline filled (`App.run_test(headless=True, size=(160, 48))`, frames
    observed at `App._display`, where Textual hands a compositor update to the driver), median of `--runs`;
    the same in a fresh interpreter (imports included) with its peak RSS; and, unless `--no-pty`,
    `python -m studio.cli.main --project DIR --offline` on a real pseudo-terminal (TERM=xterm-256color,
    160x48) until its output holds both pane titles (大纲, 正文), with its peak RSS then (VmHWM).
(b) key-press latency while a chapter streams at `--rate` text deltas per second (the offline replies,
    delivered on absolute deadlines): `c` starts the run; during the draft the keys `2`, `pageup`, `pagedown`,
    `1`, `up`, `down` (the outline's previous / next chapter; `k`/`j` do the same), `?`, `escape` (help closed)
    are pressed in turn, each sent as `pilot.press` sends it (a Key event through
    the driver) and timed from then to the first frame in which its effect shows (focus moved, help on the
    screen stack, chapter scrolled, another chapter shown); median and p95, and p95 per kind of key (pane
    switching, chapter selection, scrolling, help), against the same keys with nothing running. Also how often `ChapterView` flushed its buffered deltas
    into the TextArea and how many frames were rendered per second while streaming (the coalescing).

`--parts`: the letters of the parts to run (default all: `abcde`), e.g. `--parts e` for the load-independent
repaint counts alone, `--parts d` for the real-pty latencies.

Headless frames are composed but not written to a terminal, so (a) in-process and (b) leave out the terminal
write; the pty measure in (a) includes it. `--quick`: a 100-chapter project, 3 runs, 20 presses.
(c) what a chapter selection computes, per chapter: the state diff (chapter after chapter, which replays one
    changelog entry from the state remembered for the chapter before, and cold), the scores pane, the typesetting.
(d) unless `--no-pty`, key latency in a real pty (`tests/pty_term.py`: the studio as `python -m studio.cli.main
    --project DIR --offline` on a pseudo-terminal, 160x48, its output read by pyte): idle, first the keys `1`,
    `2`, `pagedown`, `pageup` in turn (`--presses` of them: pane switching and scrolling), then chapter
    selection as an author walks the outline: the studio opens on the last chapter, so `up` through
    `--presses` * 0.4 (at least 10) chapters not shown yet (fewer when the outline's top comes first), then
    `down` back over them (first visits, then revisits). Each key is written once the terminal has been quiet for 0.3 s (an author reading; the studio
    prepares the selected chapter's neighbours after 0.15 s idle: `screens.main_screen`), and timed from the
    write to the first byte of the next frame and to the end of that frame (no output for 30 ms); the frame is
    read whole before pyte parses it (parsing each 4 KB chunk before reading the next put this process's pyte
    time into the figure). p95 and median per
    kind, the studio's CPU time per key (its threads' time on a CPU, `/proc/PID/task/*/schedstat`, in ns; user+sys
    in 10 ms ticks where that is missing), the three slowest presses with their CPU, the four that used the most
    CPU, and the studio's resident memory after them. Then while chapter n+1 of a copy of the (b)
    project streams (NOVEL_STUDIO_OFFLINE_DELAY=0.2, `--pty-delay`) the output never stops, so there each key is timed from
    the write to the first frame showing its effect: `2` / `1` until the accent border has moved (the pane
    corners' colours, as seen idle), `down` / `up` in the outline until the header names the newly selected
    chapter; p95 per kind, and the studio's share of a core over those presses.
(e) what one key repaints, in-process (load-independent): per key (`1`/`2` pane switching, `up`/`down` in the
    outline, `pagedown`/`pageup` in the chapter pane), the screen cells handed to the compositor as dirty, the
    widget lines styled again (`StylesCache.render_line`, or `widgets.compat.PlainRowStyles.render_line`), the
    widget lines handed to the compositor
    ("composed": `Widget.render_lines` rows, styled or from their caches), what a terminal would be sent (the
    update rendered to escape sequences, as a real terminal's app does and a headless one skips), screen
    layouts and frames (a chapter selection is one: the moved cursor and its chapter together), median (and the most layouts) over the presses; and the main thread's CPU per key
    (`time.thread_time`, Pilot's own work and the terminal rendering included; median and most). "chapter walk":
    the (d) walk in the outline (`up` through chapters not shown yet, `down` back, 0.3 s rest before each press),
    where the diff and scores panes' scrollbars appear and go. Then
    the same while chapter n+1 streams, held mid-draft (`HeldStreamProvider`: no delta lands in a measure):
    "selection, streaming" (`up`/`down` between the draft and the chapter before it) and "draft flush" (one
    20-character delta appended, measured until its flush has been painted).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import resource
import select
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402
from synth import generate_project  # noqa: E402
from textual import events  # noqa: E402
from textual.worker import WorkerCancelled, WorkerFailed  # noqa: E402

from pipeline.providers.base import ModelRequest, ModelResult, TextCallback  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from screens.help_screen import HelpScreen  # noqa: E402
from screens.main_screen import MainScreen  # noqa: E402
from studio.tui.app import NovelStudioApp  # noqa: E402
from studio.tui.heap import settle_heap  # noqa: E402

Out = Callable[[str], None]
SIZE = (160, 48)
PANE_TITLES = ("大纲", "正文")
KEY_CYCLE = ("2", "pageup", "pagedown", "1", "up", "down", "question_mark", "escape")
KEY_KINDS: dict[str, str] = {
    "1": "pane switching", "2": "pane switching",
    "up": "chapter selection", "down": "chapter selection",
    "pageup": "scrolling", "pagedown": "scrolling",
    "question_mark": "help open/close", "escape": "help open/close",
}
STREAM_AGENTS = frozenset({"chapter_writer", "revision"})
PTY_KEY_CYCLE = ("1", "2", "pagedown", "pageup")
"""Idle: pane switching (outline, chapter pane) and scrolling the chapter pane, in turn."""
PTY_WALK_MIN = 10
"""Idle chapter selection: at least this many `up` presses (then as many `down`); `--presses` * 0.4 by default."""
PTY_KINDS = {"1": "pane switching", "2": "pane switching", "down": "chapter selection", "up": "chapter selection",
             "pagedown": "scrolling", "pageup": "scrolling"}
PTY_STREAM_CYCLE = ("2", "1", "down", "up")
"""While streaming: to the chapter pane and back, then the outline's next / previous chapter."""
PTY_OFFLINE_DELAY = 0.2
"""Seconds between the offline writer's 20-character deltas in the streaming part (NOVEL_STUDIO_OFFLINE_DELAY):
about 100 characters a second, a real model's pace, so the draft streams for longer than the presses take."""


# --------------------------------------------------------------------------------------------- helpers

def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def p95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else math.nan
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def peak_mb(ru_maxrss: int) -> float:
    return ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru_maxrss / 1024  # bytes on macOS, KiB on Linux


def hwm_mb(pid: int | str = "self") -> float | None:
    """A process's peak RSS from /proc (VmHWM, Linux), else None. A child's ru_maxrss is no good here: Linux
    carries the parent's peak across fork+exec into it."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class DeltaRateProvider:
    """The offline replies; the chapter writer's (and reviser's) streamed at `deltas_per_s` deltas per second,
    sized so a draft lasts about `stream_s`; every other agent answers at once."""

    name = "delta-rate"
    offline = True

    def __init__(self, deltas_per_s: float = 100.0, stream_s: float = 25.0) -> None:
        self.deltas_per_s = deltas_per_s
        self.stream_s = stream_s
        self._replies = OfflineProvider(delay_s=0)
        self.deltas = 0
        self.first_delta_at: float | None = None
        self.last_delta_at: float | None = None
        self.streaming = False
        """True while a draft's deltas are being delivered (the run's state, whatever chapter the studio shows)."""

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        if request.agent not in STREAM_AGENTS:
            return await self._replies.run(request, on_text)
        text = self._replies.reply_text(request)
        chunk = max(1, round(len(text) / (self.deltas_per_s * self.stream_s)))
        pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
        started = time.monotonic()
        self.streaming = True
        try:
            await self._deliver(pieces, started, on_text)
        finally:
            self.streaming = False
        result = await self._replies.run(request, None)
        return result

    async def _deliver(self, pieces: list[str], started: float, on_text: TextCallback | None) -> None:
        for index, piece in enumerate(pieces):
            wait = started + (index + 1) / self.deltas_per_s - time.monotonic()
            await asyncio.sleep(wait if wait > 0 else 0)
            now = time.perf_counter()
            self.first_delta_at = self.first_delta_at or now
            self.last_delta_at = now
            self.deltas += 1
            if on_text is not None:
                maybe = on_text(piece)
                if asyncio.iscoroutine(maybe):
                    await maybe


class HeldStreamProvider:
    """The offline replies; the chapter writer streams the first `chars` characters of its draft in 20-character
    deltas at once, then holds (the run stays in its draft stage) until `release()`: (e) measures keys and
    flushes while a chapter streams, with no delta arriving in the middle of a measure."""

    name = "held-stream"
    offline = True

    def __init__(self, chars: int = 1500) -> None:
        self.chars = chars
        self._replies = OfflineProvider(delay_s=0)
        self._release = asyncio.Event()

    def release(self) -> None:
        self._release.set()

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        if request.agent in STREAM_AGENTS and on_text is not None and not self._release.is_set():
            text = self._replies.reply_text(request)[: self.chars]
            for i in range(0, len(text), 20):
                maybe = on_text(text[i : i + 20])
                if asyncio.iscoroutine(maybe):
                    await maybe
            await self._release.wait()
        return await self._replies.run(request, None)


class FrameProbe:
    """Watches the frames the app hands to its driver (`App._display`) and times when a condition first holds
    in a rendered frame."""

    def __init__(self, app: NovelStudioApp) -> None:
        self.app = app
        self.frames: list[float] = []
        self._check: Callable[[], bool] | None = None
        self._hit: asyncio.Event | None = None
        self.hit_at: float | None = None
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is None:
                return
            now = time.perf_counter()
            self.frames.append(now)
            if self._check is not None and self.hit_at is None:
                try:
                    ok = self._check()
                except Exception:
                    ok = False
                if ok:
                    self.hit_at = now
                    if self._hit is not None:
                        self._hit.set()

        app._display = display  # type: ignore[method-assign]

    def watch(self, check: Callable[[], bool]) -> asyncio.Event:
        self._check = check
        self.hit_at = None
        self._hit = asyncio.Event()
        return self._hit

    def frames_between(self, start: float, end: float) -> int:
        return sum(1 for t in self.frames if start <= t <= end)


def make_app(root: Path, provider: Any = None) -> NovelStudioApp:
    def factory(settings: Any) -> Any:
        return provider if provider is not None else OfflineProvider(delay_s=0)

    return NovelStudioApp(root, lang="zh", offline=True, provider_factory=factory)


def outline_painted(app: NovelStudioApp) -> bool:
    screen = app.screen
    return isinstance(screen, MainScreen) and screen.is_mounted and bool(screen.outline.root.children)


# --------------------------------------------------------------------------------------------- (a) first paint

async def first_paint_once(root: Path) -> tuple[float, float]:
    """Seconds from App construction to (its first frame of any screen, the first frame of the main screen
    with the outline filled)."""
    start = time.perf_counter()
    app = make_app(root)
    probe = FrameProbe(app)
    painted = probe.watch(lambda: outline_painted(app))
    async with app.run_test(headless=True, size=SIZE):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(painted.wait(), timeout=60)
        paint = (probe.hit_at or math.nan) - start
        first = (probe.frames[0] if probe.frames else math.nan) - start
        app.exit()
    return first, paint


def child_first_paint(root: Path, t0: float) -> int:
    """`--child-first-paint`: one measure in this fresh interpreter; prints JSON for the parent."""
    first, paint = asyncio.run(first_paint_once(root))
    now = time.monotonic()
    print(json.dumps({
        "spawn_to_done": now - t0,
        "construct_to_paint": paint,
        "construct_to_first_frame": first,
        "maxrss_mb": hwm_mb() or peak_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
    }))
    return 0


def fresh_interpreter_paint(root: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.monotonic()
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child-first-paint", str(root), "--t0", repr(t0)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"child failed ({done.returncode}): {done.stderr[-2000:]}")
    data: dict[str, float] = json.loads(lines[-1])
    return data


def pty_paint(root: Path, timeout_s: float = 60.0) -> tuple[float, float] | None:
    """The real CLI on a pseudo-terminal: seconds until both pane titles were written, and the child's peak
    RSS at that point (MB, VmHWM). None where there are no ptys."""
    try:
        import fcntl
        import pty  # noqa: F401
        import struct
        import termios
    except ImportError:
        return None
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(SIZE[0]), LINES=str(SIZE[1]))
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    env.pop("NO_COLOR", None)
    env.pop("TEXTUAL", None)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "studio.cli.main", "--project", str(root), "--offline"],
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=str(ROOT), start_new_session=True, close_fds=True,
    )
    os.close(slave)
    buffer = b""
    painted: float | None = None
    rusage: Any = None
    hwm: float | None = None
    wanted = [t.encode("utf-8") for t in PANE_TITLES]
    try:
        deadline = time.perf_counter() + timeout_s
        while painted is None and time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                rusage = _reap(proc)
                if rusage is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            buffer += chunk
            if all(w in buffer for w in wanted):
                painted = time.perf_counter() - start
                hwm = hwm_mb(proc.pid)
        # quit (ctrl+q), draining the output so the child never blocks on a full pty
        with contextlib.suppress(OSError):
            os.write(master, b"\x11")
        deadline = time.perf_counter() + 15
        while rusage is None and time.perf_counter() < deadline:
            rusage = _reap(proc)
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                with contextlib.suppress(OSError):
                    os.read(master, 65536)
        if rusage is None:
            proc.terminate()
            deadline = time.perf_counter() + 5
            while rusage is None and time.perf_counter() < deadline:
                time.sleep(0.05)
                rusage = _reap(proc)
            if rusage is None:
                proc.kill()
                proc.wait()
    finally:
        os.close(master)
    if painted is None:
        return None
    if hwm is None:
        hwm = peak_mb(rusage.ru_maxrss) if rusage is not None else math.nan
    return painted, hwm


def _reap(proc: subprocess.Popen[bytes]) -> Any:
    """The child's resource usage once it has exited (reaped here), else None."""
    try:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
    except ChildProcessError:
        return None
    if pid == 0:
        return None
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage


# --------------------------------------------------------------------------------------------- (b) key latency

@dataclass
class PressResult:
    key: str
    latency: float
    during_stream: bool


@dataclass
class StreamFigures:
    idle: list[PressResult] = field(default_factory=list)
    streaming: list[PressResult] = field(default_factory=list)
    window_s: float = 0.0
    flushes: int = 0
    frames: int = 0
    deltas: int = 0
    timeouts: int = 0
    skipped_scroll: int = 0


def key_effect(app: NovelStudioApp, screen: MainScreen, key: str) -> Callable[[], bool] | None:
    """What shows that `key` took effect (None: the key cannot act now, e.g. nothing to scroll)."""
    area = screen.chapter_view.text_area
    if key == "2":
        return lambda: app.screen is screen and screen.focused is area
    if key == "1":
        return lambda: app.screen is screen and screen.focused is screen.outline
    if key == "question_mark":
        return lambda: isinstance(app.screen, HelpScreen)
    if key == "escape":
        return lambda: app.screen is screen
    if key in ("up", "down"):
        before_selected = screen.selected
        return lambda: screen.selected is not None and screen.selected != before_selected
    before = area.scroll_y
    if key == "pageup":
        return (lambda: area.scroll_y < before) if before > 0 else None
    if key == "pagedown":
        return (lambda: area.scroll_y > before) if before < area.max_scroll_y else None
    raise ValueError(key)


KEY_CHARS: dict[str, str | None] = {"1": "1", "2": "2", "question_mark": "?", "escape": None,
                                    "pageup": None, "pagedown": None, "up": None, "down": None}


def send_key(app: NovelStudioApp, key: str) -> None:
    """Deliver a key the way `pilot.press` does (a Key event through the driver, as a terminal's input would),
    without pilot's wait for the process to go idle: while a chapter streams it never does, so each
    `pilot.press` would return only after its ~1 s idle timeout."""
    event = events.Key(key, KEY_CHARS[key])
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


async def press_cycle(
    app: NovelStudioApp, pilot: Any, probe: FrameProbe, presses: int, *, gap_s: float,
    keep_going: Callable[[], bool], figures: StreamFigures, streaming: bool,
) -> list[PressResult]:
    screen = app.main_screen
    assert screen is not None
    results: list[PressResult] = []
    index = 0
    attempts = 0
    while len(results) < presses and keep_going() and attempts < presses * 4:
        attempts += 1
        key = KEY_CYCLE[index % len(KEY_CYCLE)]
        index += 1
        check = key_effect(app, screen, key)
        if check is None:
            figures.skipped_scroll += 1
            continue
        hit = probe.watch(check)
        start = time.perf_counter()
        send_key(app, key)
        try:
            await asyncio.wait_for(hit.wait(), timeout=5.0)
        except TimeoutError:
            figures.timeouts += 1
        if probe.hit_at is not None:
            results.append(PressResult(key, probe.hit_at - start, streaming))
        if key == "question_mark" and isinstance(app.screen, HelpScreen) is False:
            index += 1  # help did not open: do not press escape (it would ask to stop the run)
        await asyncio.sleep(gap_s)
    if isinstance(app.screen, HelpScreen):
        send_key(app, "escape")
        await asyncio.sleep(0.2)
    return results


async def key_latency(root: Path, opts: Options) -> StreamFigures:
    provider = DeltaRateProvider(opts.rate, opts.stream_s)
    app = make_app(root, provider)
    probe = FrameProbe(app)
    figures = StreamFigures()
    async with app.run_test(headless=True, size=SIZE) as pilot:
        for _ in range(600):
            await pilot.pause(0.01)
            if app.main_screen is not None and app.main_screen.is_mounted and app.screen is app.main_screen:
                break
        screen = app.main_screen
        assert screen is not None
        await pilot.pause(0.2)
        settle_heap()  # as the studio does in a real terminal once painted (headless Apps do not)
        await pilot.press("1")
        # the same keys with nothing running
        figures.idle = await press_cycle(
            app, pilot, probe, opts.presses, gap_s=opts.gap_s, keep_going=lambda: True, figures=figures,
            streaming=False,
        )
        await pilot.press("1")
        await pilot.press("c")
        view = screen.chapter_view
        deadline = time.perf_counter() + 30
        while not (view.is_streaming and view.flush_count > 0) and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
        # let the draft fill more than a screen, so the scroll keys have somewhere to go
        deadline = time.perf_counter() + min(10.0, opts.stream_s / 3)
        while view.text_area.max_scroll_y < 10 and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        flushes0, start = view.flush_count, time.perf_counter()
        deltas0 = provider.deltas
        figures.streaming = await press_cycle(
            # while the draft streams, not while the chapter pane shows it: `up` selects the chapter before
            # (the pane then shows that one); a check on the pane stopped the presses there, after 5 of them
            app, pilot, probe, opts.presses, gap_s=opts.gap_s, keep_going=lambda: provider.streaming,
            figures=figures, streaming=True,
        )
        end = time.perf_counter()
        figures.window_s = end - start
        figures.flushes = view.flush_count - flushes0
        figures.frames = probe.frames_between(start, end)
        figures.deltas = provider.deltas - deltas0
        if screen.running:
            screen.runner.stop()
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await app.workers.wait_for_complete()
        app.exit()
    gc.unfreeze()  # leave the process as found (the smoke test runs this in the test process)
    return figures


# --------------------------------------------------------------------------------------------- the report

@dataclass
class Options:
    chapters: int = 500
    runs: int = 5
    presses: int = 50
    rate: float = 100.0
    stream_s: float = 30.0
    gap_s: float = 0.2
    pty: bool = True
    fresh: bool = True
    pty_delay: float = PTY_OFFLINE_DELAY
    parts: str = "abcde"


def _latency_line(label: str, results: list[PressResult]) -> str:
    values = [r.latency for r in results]
    if not values:
        return f"  {label}: no presses measured"
    return (f"  {label}: median {ms(statistics.median(values))}, p95 {ms(p95(values))}, "
            f"max {ms(max(values))} ({len(values)} presses)")


def _by_kind(results: list[PressResult]) -> list[str]:
    """p95 per kind of key (pane switching, chapter selection, scrolling, help)."""
    lines = []
    for kind in dict.fromkeys(KEY_KINDS.values()):
        values = [r.latency for r in results if KEY_KINDS[r.key] == kind]
        if values:
            lines.append(f"    {kind}: p95 {ms(p95(values))}, median {ms(statistics.median(values))} "
                         f"({len(values)} presses)")
    return lines


def _by_key(results: list[PressResult]) -> str:
    parts = []
    for key in KEY_CYCLE:
        values = [r.latency for r in results if r.key == key]
        if values:
            parts.append(f"{'?' if key == 'question_mark' else key} {statistics.median(values) * 1000:.0f}")
    return ", ".join(parts)


def key_latency_report(stream_root: Path, opts: Options, figures: dict[str, Any], out: Out) -> None:
    """(b): run `key_latency` on `stream_root` and print its figures."""
    chapter = max(1, opts.chapters - 2) + 1
    out(f"(b) key-press latency: key sent (as pilot.press sends it) -> first frame showing the effect; keys {', '.join(KEY_CYCLE)} in turn "
        f"({opts.gap_s * 1000:.0f} ms after the previous one showed); chapter {chapter} of a {chapter - 1}-chapter project drafted at "
        f"{opts.rate:g} deltas/s")
    stream = asyncio.run(key_latency(stream_root, opts))
    figures["stream"] = stream
    out(_latency_line("idle (nothing running)", stream.idle))
    if stream.idle:
        for line in _by_kind(stream.idle):
            out(line)
        out(f"    median by key (ms): {_by_key(stream.idle)}")
    out(_latency_line("while streaming", stream.streaming))
    if stream.streaming:
        for line in _by_kind(stream.streaming):
            out(line)
        out(f"    median by key (ms): {_by_key(stream.streaming)}")
    if stream.window_s > 0:
        out(f"  during the {stream.window_s:.1f} s of presses: {stream.deltas / stream.window_s:.0f} deltas/s "
            f"arrived, ChapterView flushed {stream.flushes / stream.window_s:.1f} times/s "
            f"({stream.flushes} flushes for {stream.deltas} deltas), "
            f"{stream.frames / stream.window_s:.1f} frames/s rendered")
    if stream.timeouts or stream.skipped_scroll:
        out(f"  {stream.timeouts} presses showed no effect within 5 s; {stream.skipped_scroll} scroll presses "
            "skipped (nothing to scroll yet)")


def run_benchmark(work: Path, opts: Options, out: Out = print) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    root = work / "novel-a"
    start = time.perf_counter()
    generate_project(root, opts.chapters)
    out(f"project: {opts.chapters} chapters, generated in {time.perf_counter() - start:.1f} s; "
        f"terminal {SIZE[0]}x{SIZE[1]}")

    if "a" in opts.parts:
        out("")
        out("(a) time to first paint (App construction -> first frame of the main screen with the outline filled)")
        asyncio.run(first_paint_once(root))  # warm the imports and the OS file cache once
        firsts: list[float] = []
        paints: list[float] = []
        for _ in range(opts.runs):
            first, paint = asyncio.run(first_paint_once(root))
            firsts.append(first)
            paints.append(paint)
        figures["paint"] = statistics.median(paints)
        out(f"  in-process, headless: median {ms(statistics.median(paints))} "
            f"(min {ms(min(paints))}, max {ms(max(paints))}, {opts.runs} runs); "
            f"first frame of any screen at median {ms(statistics.median(firsts))}")
        if opts.fresh:
            child = fresh_interpreter_paint(root)
            figures["fresh"] = child
            out(f"  fresh interpreter (imports included): spawn -> first paint {ms(child['spawn_to_done'])}, "
                f"construction -> first paint {ms(child['construct_to_paint'])}; peak RSS {child['maxrss_mb']:.1f} MB")
        if opts.pty:
            measured = pty_paint(root)
            figures["pty"] = measured
            if measured is None:
                out("  real pty (python -m studio.cli.main --offline): no frame with both pane titles (or no pty)")
            else:
                out(f"  real pty, TERM=xterm-256color (python -m studio.cli.main --project DIR --offline): spawn -> "
                    f"both pane titles on the terminal {ms(measured[0])}; peak RSS of the studio then "
                    f"{measured[1]:.1f} MB")
        out(f"  peak RSS of this process so far: {peak_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss):.1f} MB")

    stream_root = work / "novel-b"
    pty_stream_root = work / "novel-c"  # the in-process part leaves novel-b's chapter stopped mid-run
    if "b" in opts.parts or "d" in opts.parts:
        generate_project(stream_root, max(1, opts.chapters - 2))
        shutil.copytree(stream_root, pty_stream_root)
    if "b" in opts.parts:
        out("")
        key_latency_report(stream_root, opts, figures, out)
    if "c" in opts.parts:
        out("")
        out("(c) what selecting a chapter computes, per chapter (median over a walk through the chapters, in-process)")
        figures["selection"] = selection_costs(root)
        for name, value in figures["selection"].items():
            out(f"  {name}: {ms(value)}")
    if opts.pty and "d" in opts.parts:
        out("")
        out(f"(d) key latency in a real pty ({SIZE[0]}x{SIZE[1]}, python -m studio.cli.main --offline, read by pyte)")
        pty_figures = pty_key_latency(root, pty_stream_root, opts.presses, out, opts.pty_delay)
        if pty_figures is not None:
            figures["pty_keys"] = pty_figures
            print_pty_latency(pty_figures, out)
    if "e" in opts.parts:
        out("")
        out(f"(e) what one key repaints, in-process ({SIZE[0]}x{SIZE[1]}, median per press)")
        repaint_root = work / "novel-e"  # (e) writes chapter n+1 (as (b) does: the volume has room for it)
        generate_project(repaint_root, max(1, opts.chapters - 2))
        figures["repaint"] = asyncio.run(repaint_costs(repaint_root, opts.presses))
        for kind, row in figures["repaint"].items():
            out(f"  {kind:<21} {row['cells']:,.0f} cells dirty, {row['lines']:,.0f} widget lines styled, "
                f"{row['composed']:,.0f} composed, {row['bytes'] / 1024:,.1f} KB written, "
                f"{row['layouts']:.0f} layouts (max {row['max_layouts']:.0f}), {row['frames']:.0f} frames; "
                f"main-thread CPU {ms(row['cpu'])} (max {ms(row['max_cpu'])})")
    out(f"peak RSS of this process: {peak_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss):.1f} MB")
    return figures


STREAM_FLUSH_TEXT = "沈照把灯往前递了半寸，雾里的人影没有动。"
"""The delta (e) appends to the held draft before each measured flush (20 characters, like the offline writer's)."""


async def repaint_costs(root: Path, presses: int) -> dict[str, dict[str, float]]:
    """(e): per kind of key, the median dirty cells, styled lines, layouts and main-thread CPU per press; then,
    while chapter n+1 streams (held: `HeldStreamProvider`), the same for `up`/`down` in the outline (between
    the streaming chapter and the one before it) and per draft flush (one delta appended, flushed by its timer)."""
    from collections import Counter

    from textual._compositor import Compositor, CompositorUpdate
    from textual._styles_cache import StylesCache
    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

    from widgets.compat import PlainRowStyles

    tally: Counter[str] = Counter()
    update_widgets, render_line, refresh_layout, render_lines, display = (
        Compositor.update_widgets, StylesCache.render_line, Screen._refresh_layout, Widget.render_lines,
        App._display)
    plain_line = PlainRowStyles.render_line

    def spy_render_lines(self: Widget, crop: Any) -> Any:
        tally["composed"] += crop.height
        return render_lines(self, crop)

    def spy_display(self: App[Any], screen: Any, renderable: Any) -> None:
        # a headless app writes nothing; a terminal's gets this (its CPU counted as a real terminal's would be)
        if isinstance(renderable, CompositorUpdate):
            tally["bytes"] += len(renderable.render_segments(self.console).encode("utf-8"))
            tally["frames"] += 1
        display(self, screen, renderable)

    def spy_update(self: Compositor, widgets: Any) -> None:
        update_widgets(self, widgets)
        tally["cells"] += sum(region.area for region in self._dirty_regions)

    def spy_line(self: StylesCache, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(self, PlainRowStyles):  # counted by `spy_plain_line`
            tally["lines"] += 1
        return render_line(self, *args, **kwargs)

    def spy_plain_line(self: PlainRowStyles, *args: Any, **kwargs: Any) -> Any:
        tally["lines"] += 1
        return plain_line(self, *args, **kwargs)

    def spy_layout(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        tally["layouts"] += 1
        refresh_layout(self, *args, **kwargs)

    cycles = {"pane switching": ("1", "2"), "chapter selection": ("up", "down"), "scrolling": ("pagedown", "pageup")}
    setup = {"pane switching": "2", "chapter selection": "1", "scrolling": "2"}
    figures: dict[str, dict[str, float]] = {}

    async def measure(
        pilot: Any, step: Callable[[int], Any], count: int, settle: float = 0.0, rest: float = 0.05
    ) -> dict[str, float]:
        names = ("cells", "lines", "composed", "bytes", "layouts", "frames")
        rows: dict[str, list[float]] = {name: [] for name in (*names, "cpu")}
        for i in range(count):
            await pilot.pause(rest)
            tally.clear()
            cpu = time.thread_time()
            await step(i)
            await pilot.pause()
            if settle:
                await pilot.pause(settle)  # a timer the step started (the draft's flush) has fired
            rows["cpu"].append(time.thread_time() - cpu)
            for name in names:
                rows[name].append(tally[name])
        row = {name: statistics.median(values) for name, values in rows.items()}
        row["max_layouts"] = max(rows["layouts"])
        row["max_cpu"] = max(rows["cpu"])
        return row

    provider = HeldStreamProvider()
    app = make_app(root, provider)
    Compositor.update_widgets = spy_update  # type: ignore[method-assign]
    StylesCache.render_line = spy_line  # type: ignore[method-assign]
    PlainRowStyles.render_line = spy_plain_line  # type: ignore[method-assign]
    Screen._refresh_layout = spy_layout  # type: ignore[method-assign]
    Widget.render_lines = spy_render_lines  # type: ignore[method-assign]
    App._display = spy_display  # type: ignore[method-assign]
    try:
        async with app.run_test(headless=True, size=SIZE) as pilot:
            await pilot.pause(0.5)
            for kind, keys in cycles.items():
                await pilot.press(setup[kind])
                await pilot.pause(0.2)
                figures[kind] = await measure(pilot, lambda i, keys=keys: pilot.press(keys[i % 2]), max(4, presses))
            # an author's walk, as in (d): `up` through chapters not shown yet, `down` back; resting 0.3 s before
            # each press, so the neighbours' idle preparation is not in it. The diff and scores panes' scrollbars
            # appear and go on some of these chapters (a layout of the screen each, before `rearrange_scrollbars`)
            await pilot.press("1")
            await pilot.pause(0.2)
            walk = max(PTY_WALK_MIN, presses * 2 // 5)
            figures["chapter walk"] = await measure(
                pilot, lambda i: pilot.press("up" if i < walk else "down"), 2 * walk, rest=0.3)
            screen = app.main_screen
            assert screen is not None
            await pilot.press("1")
            await pilot.press("c")
            view = screen.chapter_view
            deadline = time.perf_counter() + 60
            while not (view.is_streaming and len(view.text) >= provider.chars and not view._buffer):
                if time.perf_counter() > deadline:
                    raise RuntimeError("(e): the held draft did not stream")
                await pilot.pause(0.05)
            await pilot.pause(0.3)
            figures["selection, streaming"] = await measure(
                pilot, lambda i: pilot.press(("up", "down")[i % 2]), max(4, presses), settle=2 / 15)

            async def flush(_i: int) -> None:
                view.append(STREAM_FLUSH_TEXT)

            figures["draft flush"] = await measure(pilot, flush, max(4, presses), settle=2 / 15)
            provider.release()
            if screen.running:
                screen.runner.stop()
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await app.workers.wait_for_complete()
    finally:
        Compositor.update_widgets = update_widgets  # type: ignore[method-assign]
        StylesCache.render_line = render_line  # type: ignore[method-assign]
        PlainRowStyles.render_line = plain_line  # type: ignore[method-assign]
        Screen._refresh_layout = refresh_layout  # type: ignore[method-assign]
        Widget.render_lines = render_lines  # type: ignore[method-assign]
        App._display = display  # type: ignore[method-assign]
    return figures


def selection_costs(root: Path, walk: int = 20) -> dict[str, float]:
    """Median seconds per chapter of the views a chapter selection builds: the state diff (walking chapter by
    chapter, and cold: nothing remembered), the scores pane and the chapter's typesetting at 76 cells."""
    from studio.project import Project
    from studio.views import state_diff
    from studio.views.scores import chapter_scores, scores_for_chapter
    from studio.views.typeset import typeset

    project = Project.open(root)
    chapters = project.committed_chapters()
    middle = len(chapters) // 2
    picked = chapters[max(0, middle - walk // 2) : middle + walk // 2] or chapters[:1]

    def timed(run: Callable[[int], object], before: Callable[[], None] = lambda: None) -> float:
        times = []
        for n in picked:
            before()
            start = time.perf_counter()
            run(n)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    # the studio passes every chapter's overall score from its outline rows (`MainScreen.show_chapter`); without
    # them `scores_for_chapter` stats all the evaluation files and reads the cache (the old single figure)
    history = [(c, score.overall) for c, score in chapter_scores(project).items()]
    state_diff._state_memo.clear()
    return {
        "state diff, chapter after chapter": timed(lambda n: state_diff.state_diff_for_chapter(project, n)),
        "state diff, cold": timed(lambda n: state_diff.state_diff_for_chapter(project, n), state_diff._state_memo.clear),
        "scores pane, as the studio builds it (history from the outline)": timed(
            lambda n: scores_for_chapter(project, n, history=history)),
        "scores pane, with no history (every evaluation file statted)": timed(lambda n: scores_for_chapter(project, n)),
        "typeset at 76 cells": timed(lambda n: typeset(project.chapter_text(n) or "", 76)),
    }


# --------------------------------------------------------------------------------------------- (d) real pty



def _child_cpu_s(pid: int) -> float:
    """The CPU time of a process: the sum of its threads' time on a CPU (`/proc/PID/task/*/schedstat`, in ns), or
    utime + stime from /proc/PID/stat (clock ticks of 10 ms) where schedstat is missing; nan elsewhere."""
    try:
        total = 0
        for task in Path(f"/proc/{pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9
    except (OSError, IndexError, ValueError):
        pass
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return math.nan


def _rss_mb(pid: int) -> float:
    """A process's resident memory now (VmRSS, /proc), nan elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return math.nan


def _read_frame(term: Any, timeout: float, quiet: float = 0.03) -> tuple[float, float] | None:
    """Read what the studio writes after a key, without parsing it while it comes: (when its first chunk was
    read, when its last was) by `time.perf_counter`, None if nothing came within `timeout`. The frame ends when
    nothing more comes for `quiet` s; then it is handed to the terminal's pyte screen. (Parsing each chunk before
    reading the next, as `PtyTerm.pump` does, put this process's pyte time into the frame's end: a big frame comes
    in 4 KB chunks.)"""
    chunks: list[bytes] = []
    first = last = math.nan
    wait = timeout
    while True:
        ready, _, _ = select.select([term.master], [], [], wait)
        if not ready:
            break
        try:
            chunk = os.read(term.master, 65536)
        except OSError:
            break
        if not chunk:
            break
        last = time.perf_counter()
        if not chunks:
            first = last
        chunks.append(chunk)
        wait = quiet
    if not chunks:
        return None
    data = b"".join(chunks)
    term.raw.extend(data)
    term.stream.feed(data)
    term.first_output, term.last_output = first, last
    return first, last


def _header_chapter(lines: list[str]) -> int | None:
    import re

    found = re.search(r"第\d+卷·第(\d+)章", lines[0] if lines else "")
    return int(found.group(1)) if found else None


def _pane_corners(term: Any) -> tuple[str, str] | None:
    """The colours of the outline's and the chapter pane's top-left border corners on the row of the pane
    titles (the focused pane's border is the accent colour); None before that row is drawn."""
    for y, line in enumerate(term.display()):
        if PANE_TITLES[0] in line and PANE_TITLES[1] in line:
            row = term.screen.buffer[y]
            corners = [x for x in range(term.screen.columns) if row[x].data == "╭"]
            return (row[corners[0]].fg, row[corners[1]].fg) if len(corners) >= 2 else None
    return None


def pty_key_latency(root: Path, stream_root: Path, presses: int, out: Out,
                    offline_delay: float = PTY_OFFLINE_DELAY) -> dict[str, Any] | None:
    """Idle on `root`, then while chapter `n+1` of `stream_root` streams (its offline deltas
    `offline_delay` s apart): key -> effect on the terminal, and the studio's CPU per key (idle)."""
    try:
        from tests.pty_term import KEYS, PtyTerm, studio_argv
    except ImportError as exc:  # no pty or no pyte
        out(f"  real pty: skipped ({exc})")
        return None
    figures: dict[str, Any] = {"idle": [], "stream": [], "cpu": [], "stream_misses": 0, "stream_cpu_share": math.nan,
                               "stream_window_s": 0.0}
    looks: dict[str, tuple[str, str]] = {}
    term = PtyTerm.spawn(studio_argv(root), size=SIZE, env=dict(os.environ))
    try:
        if not term.wait_for(PANE_TITLES[0], 120):
            out("  real pty: the studio did not paint")
            return None
        term.settle(0.5)

        def press(key: str, timeout: float = 5.0) -> bool:
            term.settle(0.3)
            cpu0 = _child_cpu_s(term.proc.pid)
            sent = time.perf_counter()
            term.send(KEYS.get(key, key.encode()))
            frame = _read_frame(term, timeout)
            if frame is None:
                return False
            figures["idle"].append((key, frame[0] - sent, frame[1] - sent))
            figures["cpu"].append((key, _child_cpu_s(term.proc.pid) - cpu0))
            return True

        for i in range(presses):
            key = PTY_KEY_CYCLE[i % len(PTY_KEY_CYCLE)]
            press(key)
            if key in ("1", "2"):
                term.settle(0.3)
                corners = _pane_corners(term)
                if corners is not None:
                    looks[key] = corners
        # chapter selection as an author walks: the studio opens on the last chapter, so up through chapters
        # not shown yet, then back down over them (the outline focused: `1`, not measured)
        walk = max(PTY_WALK_MIN, presses * 2 // 5)
        term.settle(0.3)
        term.send(b"1")
        went = 0
        while went < walk and press("up", 2.0):  # no frame: the outline's top (a small project)
            went += 1
        for _ in range(went):
            press("down")
        figures["idle_rss_mb"] = _rss_mb(term.proc.pid)
    finally:
        term.close()
    if len(looks) < 2 or looks["1"] == looks["2"]:
        out("  while streaming: skipped (the idle part did not see both pane looks)")
        return figures
    # while a chapter streams: pane switching (the accent border moves) and chapter selection (the header
    # names the newly selected chapter); the output never stops, so each key is timed to the frame showing it
    env = dict(os.environ, NOVEL_STUDIO_OFFLINE_DELAY=str(offline_delay))
    term = PtyTerm.spawn(studio_argv(stream_root), size=SIZE, env=env)
    try:
        if not term.wait_for(PANE_TITLES[0], 120):
            return figures
        term.settle(0.5)
        term.send(b"1")
        term.settle(0.3)
        term.send(b"c")
        if not term.wait_until(lambda: "写作中" in term.text(), 60):
            out("  while streaming: the draft did not start")
            return figures
        term.pump(0.5)
        cpu0, start = _child_cpu_s(term.proc.pid), time.perf_counter()
        for i in range(presses * 2):
            key = PTY_STREAM_CYCLE[i % len(PTY_STREAM_CYCLE)]
            if key in looks:
                def shown(want: tuple[str, str] = looks[key]) -> bool:
                    return _pane_corners(term) == want
            else:
                before = _header_chapter(term.display())

                def shown(before: int | None = before) -> bool:  # type: ignore[misc]
                    return _header_chapter(term.display()) not in (None, before)
            if shown():
                continue  # already so (a key before this one missed): nothing to time
            sent = time.perf_counter()
            term.send(KEYS.get(key, key.encode()))
            if term.wait_until(shown, 5.0):
                figures["stream"].append((key, term.last_output - sent))
            else:
                figures["stream_misses"] += 1
            if term.proc.poll() is not None or "运行中" not in term.display()[0]:
                break  # the run has ended (the header's state)
            term.pump(0.1)
        window = time.perf_counter() - start
        figures["stream_window_s"] = window
        figures["stream_cpu_share"] = (_child_cpu_s(term.proc.pid) - cpu0) / window if window > 0 else math.nan
    finally:
        term.close()
    return figures


def print_pty_latency(figures: dict[str, Any], out: Out) -> None:
    idle: list[tuple[str, float, float]] = figures["idle"]
    cpu: list[tuple[str, float]] = figures["cpu"]
    for kind in ("pane switching", "chapter selection", "scrolling"):
        picked = [i for i, (k, _, _) in enumerate(idle) if PTY_KINDS[k] == kind]
        if not picked:
            continue
        firsts = [idle[i][1] for i in picked]
        dones = [idle[i][2] for i in picked]
        out(f"  idle, {kind:<18} key -> first byte p95 {ms(p95(firsts))} (median {ms(statistics.median(firsts))}); "
            f"-> frame written p95 {ms(p95(dones))} (median {ms(statistics.median(dones))}); {len(picked)} presses")
        used = [cpu[i][1] for i in picked if not math.isnan(cpu[i][1])]
        if used:
            out(f"        studio CPU per key: median {ms(statistics.median(used))}, p95 {ms(p95(used))}, "
                f"mean {ms(statistics.fmean(used))}")
        slowest = sorted(picked, key=lambda i: idle[i][2], reverse=True)[:3]
        out("        slowest: " + "; ".join(
            f"#{picked.index(i) + 1} {idle[i][0]} {ms(idle[i][2])} (CPU {ms(cpu[i][1])})" for i in slowest))
        costliest = sorted((i for i in picked if not math.isnan(cpu[i][1])), key=lambda i: cpu[i][1], reverse=True)[:4]
        if costliest:  # less load-dependent than the slowest: a press that lays out the screen shows here
            out("        most CPU: " + "; ".join(
                f"#{picked.index(i) + 1} {idle[i][0]} {ms(cpu[i][1])} ({ms(idle[i][2])})" for i in costliest))
    if "idle_rss_mb" in figures:
        out(f"  the studio's resident memory after the idle presses: {figures['idle_rss_mb']:.1f} MB")
    stream: list[tuple[str, float]] = figures["stream"]
    for kind in ("pane switching", "chapter selection"):
        values = [t for k, t in stream if PTY_KINDS[k] == kind]
        if values:
            out(f"  while streaming, {kind:<18} key -> frame showing it p95 {ms(p95(values))} "
                f"(median {ms(statistics.median(values))}); {len(values)} presses")
        else:
            out(f"  while streaming, {kind}: none measured")
    if stream:
        out(f"  while streaming: {figures['stream_misses']} presses showed no effect within 5 s; the studio used "
            f"{figures['stream_cpu_share'] * 100:.0f}% of a core over the {figures['stream_window_s']:.1f} s of presses")
    else:
        out("  while streaming: no key measured (the draft ended first)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 chapters, 3 runs, 20 presses")
    parser.add_argument("--chapters", type=int, help="chapters of the synthetic project (default 500)")
    parser.add_argument("--runs", type=int, help="first-paint runs (default 5)")
    parser.add_argument("--presses", type=int, help="key presses per measure (default 50)")
    parser.add_argument("--rate", type=float, default=100.0, help="text deltas per second while drafting")
    parser.add_argument("--stream-s", type=float, help="how long the draft streams (default 30 s, quick 16 s)")
    parser.add_argument("--no-pty", action="store_true", help="skip the real-terminal first paint")
    parser.add_argument("--pty-delay", type=float, default=PTY_OFFLINE_DELAY,
                        help="seconds between the offline deltas while streaming in the pty (default 0.2)")
    parser.add_argument("--no-fresh", action="store_true", help="skip the fresh-interpreter first paint")
    parser.add_argument("--parts", default="abcde",
                        help="the parts to run, as letters (default abcde; e.g. e for the repaint counts alone)")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--child-first-paint", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_first_paint is not None:
        return child_first_paint(args.child_first_paint, args.t0 if args.t0 is not None else time.monotonic())

    opts = Options(
        chapters=max(3, args.chapters or (100 if args.quick else 500)),
        runs=max(1, args.runs or (3 if args.quick else 5)),
        presses=max(1, args.presses or (20 if args.quick else 50)),
        rate=args.rate,
        stream_s=args.stream_s or (16.0 if args.quick else 30.0),
        pty=not args.no_pty,
        pty_delay=args.pty_delay,
        fresh=not args.no_fresh,
        parts=args.parts,
    )
    run_in_workdir(args.keep, "novel-studio-bench-tui-", lambda work: run_benchmark(work, opts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
