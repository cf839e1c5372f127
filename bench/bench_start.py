"""How fast the studio starts: `python -m studio.cli.main --project DIR --offline` on a real pseudo-terminal
until its first paint, with the child's own CPU time then, warm and cold bytecode.

    python bench/bench_start.py [--chapters 500] [--runs 3] [--keep DIR] [--no-cold] [--real-provider] [--callgrind]

Prints figures only (no asserts). For each run: wall time from spawn to the first paint (the output holds
both pane titles, 大纲 and 正文, and the outline's last chapter) and the child's CPU time (user+sys from
/proc/PID/stat) at that moment, median and min. The CPU time is the figure to compare on a loaded machine:
wall time there waits for the other processes; the load average is printed with the figures.

Two states of the bytecode cache: warm (the studio's modules compiled once, as any install has them after its
first run) and, unless `--no-cold`, cold: the studio's packages copied to a fresh folder without
`__pycache__` and run from there with `PYTHONDONTWRITEBYTECODE=1`, so the studio's own modules are compiled
at every start while the libraries keep the bytecode pip compiled: a checkout run where writing bytecode is
switched off (as in a sandbox that sets PYTHONDONTWRITEBYTECODE). A separate line is the imports alone
(`from studio.tui.app import NovelStudioApp`) in a fresh interpreter, its CPU time.

`--real-provider`: also the warm start as most authors start it, without `--offline`: the real provider's
preset with a made-up API key in the environment (never sent: no call is made before the first paint, and
without a key the key question would cover the outline the bench waits for). Until stop 14 that start imported
the Anthropic SDK and httpx before its first paint.

A line for the state pane alone: the last chapter's diff (`state_diff_for_chapter`) as a start computes it, the
first call in a fresh interpreter with the user cache filled (the replayed state kept between starts), its CPU
time: until stop 15 it parsed the whole changelog; now the lines after the kept state.

`--callgrind` (needs valgrind): one more start, warm bytecode, under `valgrind --tool=callgrind` on the pty,
in a child that runs the CLI as the author does and exits at once at its first frame of the main screen with
the outline filled (`--child-exit-at-paint`): the instructions from spawn to the first paint, a figure that
does not depend on the machine's load (valgrind runs it about 50 times slower).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402
from synth import chapter_title, generate_project  # noqa: E402

from tests.pty_term import PtyTerm, studio_argv  # noqa: E402

SIZE = (160, 48)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def child_cpu_s(pid: int) -> float:
    """user+sys CPU seconds of a live process, from /proc/PID/stat (NaN where there is no /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime (fields 14 and 15)


PACKAGES = ("studio", "pipeline", "screens", "widgets", "templates", "prompts")


def cold_copy(work: Path) -> Path:
    """The studio's packages copied without bytecode (run from there: every start compiles them)."""
    target = work / "cold-checkout"
    if not target.is_dir():
        for name in PACKAGES:
            shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def start_once(root: Path, env: dict[str, str], last_title: str, cwd: Path = ROOT,
               offline: bool = True) -> tuple[float, float] | None:
    """(wall seconds from spawn to the first paint, the child's CPU seconds then); None if it never painted.
    `offline=False`: without `--offline` (the settings' real provider)."""
    argv = studio_argv(root) if offline else [arg for arg in studio_argv(root) if arg != "--offline"]
    start = time.perf_counter()
    term = PtyTerm.spawn(argv, size=SIZE, env=env, cwd=cwd)
    try:
        painted = term.wait_until(
            lambda: "大纲" in term.text() and "正文" in term.text() and last_title in term.text(), timeout=120
        )
        wall = time.perf_counter() - start
        cpu = child_cpu_s(term.proc.pid)
    finally:
        term.close()
    return (wall, cpu) if painted else None


def import_cpu_s(env: dict[str, str], cwd: Path = ROOT) -> float:
    """CPU seconds of a fresh interpreter importing the studio's App (os.wait4: that child alone)."""
    proc = subprocess.Popen([sys.executable, "-c", "from studio.tui.app import NovelStudioApp"], env=env,
                            cwd=str(cwd))
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def child_exit_at_paint(root: Path) -> int:
    """`--child-exit-at-paint`: the studio as `python -m studio.cli.main --project ROOT --offline` runs it, ended
    (`os._exit`, nothing torn down) right after it wrote its first frame of the main screen with the outline
    filled."""
    from textual.app import App

    display = App._display

    def display_then_exit(self: App[object], screen: object, renderable: object) -> None:
        display(self, screen, renderable)  # type: ignore[arg-type]
        from screens.main_screen import MainScreen

        shown = self.screen
        if renderable is not None and isinstance(shown, MainScreen) and shown.is_mounted and \
                shown.outline.root.children:
            os._exit(0)

    App._display = display_then_exit  # type: ignore[method-assign,assignment]
    from studio.cli.main import main as studio_main

    return studio_main(["--project", str(root), "--offline"])


def child_state_diff(root: Path) -> int:
    """`--child-state-diff`: print the CPU seconds of the last chapter's state diff, the first in this process
    (the project opened and the modules imported before the clock starts)."""
    from studio.project import Project
    from studio.views.state_diff import state_diff_for_chapter

    project = Project.open(root)
    last = max(project.committed_chapters(), default=1)
    start = time.process_time()
    state_diff_for_chapter(project, last)
    print(time.process_time() - start)
    return 0


def state_diff_cpu_s(root: Path, env: dict[str, str]) -> float:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child-state-diff", str(root)], env=env,
                          cwd=str(ROOT), capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def callgrind_instructions(root: Path, env: dict[str, str], work: Path) -> int | None:
    """Instructions (callgrind's Ir) of one start, spawn to the first paint, on the pty; None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    out = work / "callgrind.out"
    out.unlink(missing_ok=True)
    argv = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(Path(__file__).resolve()),
            "--child-exit-at-paint", str(root)]
    term = PtyTerm.spawn(argv, size=SIZE, env=env)
    try:
        term.wait_until(lambda: term.proc.poll() is not None, timeout=1800)
    finally:
        term.close()
    try:
        text = out.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    return None


def _line(label: str, runs: list[tuple[float, float]]) -> str:
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    return (f"  {label}: spawn -> first paint wall median {statistics.median(walls):.2f} s (min {min(walls):.2f}), "
            f"child CPU at first paint median {statistics.median(cpus):.2f} s (min {min(cpus):.2f}); {len(runs)} runs")


def run_benchmark(work: Path, chapters: int, runs: int, cold: bool, out: object = print,
                  callgrind: bool = False, real_provider: bool = False) -> dict[str, object]:
    say = out if callable(out) else print
    root = work / "novel"
    if not (root / "chapters").is_dir():
        generate_project(root, chapters)
    base = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                XDG_CACHE_HOME=str(work / "xdg"))
    base.pop("NO_COLOR", None)
    warm_env = dict(base)
    warm_env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "studio", "pipeline", "screens", "widgets"],
                   cwd=str(ROOT), env=warm_env, check=False, stdout=subprocess.DEVNULL)
    last_title = chapter_title(chapters) if chapters else "大纲"
    say(f"studio start on {chapters} chapters, {SIZE[0]}x{SIZE[1]} pty, --offline")
    figures: dict[str, object] = {}
    states = [("warm bytecode", warm_env, ROOT)]
    if cold:
        copy = cold_copy(work)
        states.append(("cold bytecode (the studio's modules compiled at each start)",
                       dict(base, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(copy)), copy))
    for label, env, cwd in states:
        start_once(root, env, last_title, cwd)  # one start first: the user caches (word counts, scores, the replayed state) filled
        done = [r for r in (start_once(root, env, last_title, cwd) for _ in range(runs)) if r is not None]
        if not done:
            say(f"  {label}: never painted")
            continue
        say(_line(label, done))
        imports = [import_cpu_s(env, cwd) for _ in range(runs)]
        say(f"    of which imports (from studio.tui.app import NovelStudioApp, fresh interpreter): CPU median "
            f"{statistics.median(imports):.2f} s (min {min(imports):.2f})")
        figures[label] = {"runs": done, "imports": imports}
        if cwd == ROOT:
            diffs = [state_diff_cpu_s(root, env) for _ in range(runs)]
            say(f"    of which the state pane (the last chapter's diff, first call in a fresh interpreter): CPU median "
                f"{statistics.median(diffs) * 1000:.1f} ms (min {min(diffs) * 1000:.1f})")
            figures[f"{label}, state pane"] = diffs
    if real_provider:
        real_env = dict(warm_env, ANTHROPIC_API_KEY="bench-made-up-key-never-sent")
        start_once(root, real_env, last_title, offline=False)
        done = [r for r in (start_once(root, real_env, last_title, offline=False) for _ in range(runs))
                if r is not None]
        label = "warm bytecode, real provider (no --offline, a made-up key)"
        say(_line(label, done) if done else f"  {label}: never painted")
        figures[label] = {"runs": done}
    if callgrind:
        instructions = callgrind_instructions(root, warm_env, work)
        if instructions is None:
            say("  callgrind: no figure (valgrind missing, or the start did not paint)")
        else:
            say(f"  callgrind, warm bytecode: spawn -> first paint {instructions / 1e6:,.0f} M instructions")
        figures["callgrind"] = instructions
    say(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-bytecode starts")
    parser.add_argument("--real-provider", action="store_true",
                        help="also start without --offline (the real provider's preset, a made-up key)")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count the instructions of one start under valgrind's callgrind")
    parser.add_argument("--child-exit-at-paint", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-state-diff", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_state_diff is not None:
        return child_state_diff(args.child_state_diff)
    if args.child_exit_at_paint is not None:
        return child_exit_at_paint(args.child_exit_at_paint)
    run_in_workdir(args.keep, "bench-start-",
                   lambda work: run_benchmark(work, args.chapters, args.runs, not args.no_cold,
                                              callgrind=args.callgrind, real_provider=args.real_provider))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
