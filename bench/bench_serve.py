"""The browser mode's two waits: a page's first frame, and Ctrl+C on `serve` until it is gone.

    python bench/bench_serve.py [--runs 3] [--delay 0.2] [--busy N] [--chromium] [--keep DIR]

Prints figures only (no asserts). Each run starts the real `novel-studio serve` (textual-serve, offline
studio, a fresh sample novel, a free port) and drives it as the page's textual.js does (tests/serve_client.py):
- page -> first frame: from `GET /` until the first output frame of the session arrives on the websocket
  (textual.js shows the terminal then), and until the studio's main screen shows (大纲): wall time, and
  the CPU time the session process had used by then (its start-up: imports, project load, first paint);
- Ctrl+C -> serve gone: with chapter 3 streaming in the tab (the offline provider paced at `--delay`
  seconds per delta), SIGINT to serve until serve has exited, and until its session process is gone too:
  wall time, and the CPU time serve and its sessions spent from the SIGINT to their end (utime+stime from
  /proc before, the reaped totals of wait4 after) -- on a loaded machine the wall time is inflated, the
  CPU time much less so;
- a closed tab -> session gone: the same, closing the websocket instead of stopping serve.
With `--chromium` the same again in a real headless Chromium (tests/chromium_cdp.py): page -> main screen
shown, and Ctrl+C mid-run -> serve exited, sessions gone, the page showing that the session ended.
Medians and maxima over `--runs`. `--busy N` runs N busy loops (one process each) meanwhile: a loaded
machine simulated (with 2 cores, `--busy 2` leaves the studio no idle core).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402

from studio.init_project import init_project  # noqa: E402
from tests.serve_client import ServeProcess, Tab, alive, serve_env, wait_until  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
SIZE = (100, 30)


@dataclass
class Figures:
    first_frame: list[float] = field(default_factory=list)
    main_screen: list[float] = field(default_factory=list)
    main_screen_cpu: list[float] = field(default_factory=list)
    stop_serve: list[float] = field(default_factory=list)
    stop_sessions: list[float] = field(default_factory=list)
    stop_cpu: list[float] = field(default_factory=list)
    close_sessions: list[float] = field(default_factory=list)
    browser_main_screen: list[float] = field(default_factory=list)
    browser_stop_serve: list[float] = field(default_factory=list)
    browser_stop_sessions: list[float] = field(default_factory=list)
    browser_stop_cpu: list[float] = field(default_factory=list)
    browser_page_closed: list[float] = field(default_factory=list)


def cpu_seconds(pid: int, *, with_reaped: bool) -> float:
    """utime+stime of `pid` (and of its reaped children when `with_reaped`) from /proc, in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
    if with_reaped:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / TICKS


def start(work: Path, name: str, delay: float) -> ServeProcess:
    root = init_project(work / name / "novel", sample=True)
    serve = ServeProcess.start(root, work / name / "logs", env=serve_env(work / name, delay))
    if not serve.wait_listening():
        raise SystemExit(f"serve did not start:\n{serve.stderr()}")
    return serve


def open_tab(serve: ServeProcess, figures: Figures | None) -> Tab:
    t0 = time.perf_counter()
    tab = serve.open_tab(SIZE)
    if not tab.wait_for("大纲"):
        raise SystemExit(f"no main screen:\n{tab.text()}")
    shown = time.perf_counter()
    if figures is not None and tab.first_frame_at is not None:
        figures.first_frame.append(tab.first_frame_at - t0)
        figures.main_screen.append(shown - t0)
        figures.main_screen_cpu.append(sum(cpu_seconds(pid, with_reaped=True) for pid in serve.sessions()))
    return tab


def start_chapter(tab: Tab) -> None:
    tab.press("c")
    if not tab.wait_for("写作中"):
        raise SystemExit(f"the chapter did not start:\n{tab.text()}")


def interrupt_and_measure(serve: ServeProcess, serve_gone: list[float], sessions_gone: list[float],
                          cpu: list[float]) -> float:
    """Ctrl+C (SIGINT) to serve mid-run; appends the wall times until serve and its sessions are gone and the
    CPU time they spent meanwhile; returns the moment of the SIGINT (perf_counter)."""
    sessions = serve.sessions()
    before = cpu_seconds(serve.proc.pid, with_reaped=True) + sum(
        cpu_seconds(pid, with_reaped=True) for pid in sessions)
    t0 = time.perf_counter()
    serve.interrupt()
    _, status, usage = os.wait4(serve.proc.pid, 0)
    gone = time.perf_counter()
    serve.proc.returncode = os.waitstatus_to_exitcode(status)
    wait_until(lambda: not [pid for pid in sessions if alive(pid)])
    serve_gone.append(gone - t0)
    sessions_gone.append(time.perf_counter() - t0)
    after = usage.ru_utime + usage.ru_stime  # serve + every session it reaped
    cpu.append(max(0.0, after - before))
    return t0


def measure_stop(work: Path, run: int, delay: float, figures: Figures) -> None:
    serve = start(work, f"stop-{run}", delay)
    tab: Tab | None = None
    try:
        tab = open_tab(serve, figures)
        start_chapter(tab)
        interrupt_and_measure(serve, figures.stop_serve, figures.stop_sessions, figures.stop_cpu)
    finally:
        if tab is not None:
            tab.close()
        serve.close()


def measure_chromium(work: Path, run: int, delay: float, figures: Figures) -> None:
    from tests.chromium_cdp import Chromium

    serve = start(work, f"chromium-{run}", delay)
    browser: Chromium | None = None
    try:
        browser = Chromium.launch(work / f"chromium-{run}" / "profile")
        t0 = time.perf_counter()
        browser.open(serve.base_url + "/")
        if not browser.wait_for(lambda text: "大纲" in text):
            raise SystemExit(f"no main screen in Chromium:\n{browser.screen_text()}")
        figures.browser_main_screen.append(time.perf_counter() - t0)
        browser.press("c")
        if not browser.wait_text("写作中"):
            raise SystemExit(f"the chapter did not start in Chromium:\n{browser.screen_text()}")
        stopped = interrupt_and_measure(serve, figures.browser_stop_serve, figures.browser_stop_sessions,
                                        figures.browser_stop_cpu)
        page = browser
        if wait_until(lambda: bool(page.evaluate("document.body.classList.contains('-closed')"))):
            figures.browser_page_closed.append(time.perf_counter() - stopped)
    finally:
        if browser is not None:
            browser.close()
        serve.close()


def measure_close(work: Path, run: int, delay: float, figures: Figures) -> None:
    serve = start(work, f"close-{run}", delay)
    try:
        tab = open_tab(serve, None)
        start_chapter(tab)
        sessions = serve.sessions()
        t0 = time.perf_counter()
        tab.close()
        wait_until(lambda: not [pid for pid in sessions if alive(pid)])
        figures.close_sessions.append(time.perf_counter() - t0)
        serve.proc.send_signal(signal.SIGINT)
        serve.wait_exit()
    finally:
        serve.close()


def line(label: str, values: list[float]) -> str:
    if not values:
        return f"{label:<50} n/a"
    return f"{label:<50} median {statistics.median(values) * 1000:7.0f} ms   max {max(values) * 1000:7.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.2, help="offline provider: seconds per text delta")
    parser.add_argument("--busy", type=int, default=0, help="busy loops to run meanwhile (a loaded machine)")
    parser.add_argument("--chromium", action="store_true", help="also measure in a real headless Chromium")
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    args = parser.parse_args()
    figures = Figures()

    def run(work: Path) -> None:
        for n in range(args.runs):
            measure_stop(work, n, args.delay, figures)
            measure_close(work, n, args.delay, figures)
            if args.chromium:
                measure_chromium(work, n, args.delay, figures)

    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(0, args.busy))]
    try:
        run_in_workdir(args.keep, "bench-serve-", run)
    finally:
        for loop in busy:
            loop.kill()
            loop.wait()
    print(f"novel-studio serve, {args.runs} runs, offline provider at {args.delay}s per delta, tab {SIZE[0]}x{SIZE[1]}"
          f", {args.busy} busy loops, load average {os.getloadavg()[0]:.1f}")
    print(line("page -> first frame (wall)", figures.first_frame))
    print(line("page -> main screen shown (wall)", figures.main_screen))
    print(line("page -> main screen shown (CPU, the session)", figures.main_screen_cpu))
    print(line("Ctrl+C mid-run -> serve exited (wall)", figures.stop_serve))
    print(line("Ctrl+C mid-run -> sessions gone (wall)", figures.stop_sessions))
    print(line("Ctrl+C mid-run -> gone (CPU, serve+sessions)", figures.stop_cpu))
    print(line("tab closed mid-run -> session gone (wall)", figures.close_sessions))
    if args.chromium:
        print(line("Chromium: page -> main screen shown (wall)", figures.browser_main_screen))
        print(line("Chromium: Ctrl+C mid-run -> serve exited (wall)", figures.browser_stop_serve))
        print(line("Chromium: Ctrl+C -> sessions gone (wall)", figures.browser_stop_sessions))
        print(line("Chromium: Ctrl+C -> gone (CPU, serve+sessions)", figures.browser_stop_cpu))
        print(line("Chromium: Ctrl+C -> page says session ended", figures.browser_page_closed))


if __name__ == "__main__":
    main()
