"""How long `status` takes on a 500-chapter project, cold (no cache), after a change and repeated, and how much
memory.

    python bench/bench_status.py [--chapters 500] [--runs 5] [--keep DIR]

Prints figures only (no asserts): generation time, median wall time of in-process Project.open +
build_status + render_status cold and warm, and `python -m studio.cli.main status` as a whole process in two
cases, median and min over `--runs` of its wall time and of its own CPU time (user+sys, from `os.wait4`,
which counts that child alone):
- first run after a change: one chapter file rewritten (same text, new mtime), `RACY_NS` waited out so the
  run may keep its output (`studio.status_memo`): only chapter text changed, so the report the last full run
  kept is recounted (no pydantic);
- first run after a re-judge: one evaluation file rewritten (same bytes, new mtime) and its score recorded
  as the commit records it (`studio.status_scores.record_score`): the report the last full run kept is
  rescored from the score cache (`studio.status_scores`), no pydantic;
- first run after an evaluation edited outside a commit: the same rewrite without the record: its stat misses
  the score cache, so it is validated with its model (pydantic imported, the evaluation's classes built);
- first run after a change the full report needs: `state/current-state.json` rewritten (same bytes, new
  mtime): the whole report is built (`studio.status`), its caches warm (the changelog's facts too: it did not
  change, `studio.coldstart.ChangelogFacts`);
- first run after a change of state and changelog, as a commit leaves them: both rewritten (same bytes, new
  mtimes): the whole report, the changelog validated line by line again;
- repeat: nothing changed since the last run: the memo's output is printed.
Each case's child peak resident memory follows. Separate lines are the imports alone (fresh interpreters): the
repeat path (`studio.cli.main`, `status_cmd`, `status_memo`) and the full report's (`studio.status`,
`studio.project` on top, after `status_cmd._without_pydantic_plugins()` as a status process does), with the
pydantic model classes each builds: what a status process pays before it reads a file.

The child's peak memory is its own `VmHWM` (/proc/self/status, read by a two-line shim at its exit): Linux's
`ru_maxrss` of a child (RUSAGE_CHILDREN, wait4) starts from the parent's high-water mark at fork, so for a
small child of this big bench it would report the bench's own peak. Where /proc is missing (macOS), the
child's ru_maxrss is printed with that caveat. The machine's load average is printed with the figures:
wall times on a loaded machine are inflated; CPU times much less so.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import generate_project  # noqa: E402

from studio.project import Project  # noqa: E402
from studio.status import build_status, cache_folder, render_status  # noqa: E402
from studio.status_memo import RACY_NS  # noqa: E402
from studio.status_scores import record_score  # noqa: E402

HWM_MARK = "novel-studio-bench-vmhwm-kb:"
# Runs the CLI as `python -m studio.cli.main` would, then prints this process's VmHWM on stderr at exit.
_HWM_SHIM = (
    "import atexit, runpy, sys\n"
    "def _hwm():\n"
    "    try:\n"
    "        for line in open('/proc/self/status'):\n"
    "            if line.startswith('VmHWM:'):\n"
    f"                sys.stderr.write('{HWM_MARK}' + line.split()[1] + '\\n')\n"
    "    except OSError:\n"
    "        pass\n"
    "atexit.register(_hwm)\n"
    "sys.argv[0] = 'novel-studio'\n"
    "runpy.run_module('studio.cli.main', run_name='__main__', alter_sys=True)\n"
)


@dataclass
class ChildRun:
    wall_s: float
    cpu_s: float  # user + sys of the child alone (os.wait4)
    exit_code: int
    maxrss_mb: float  # the child's ru_maxrss (inflated by the parent's peak on Linux: see the module doc)
    stdout: str = ""


def run_child(
    cmd: list[str], env: dict[str, str], stderr: int | None = subprocess.DEVNULL, stdout: int | None = subprocess.DEVNULL
) -> tuple[ChildRun, bytes]:
    """One whole-process run: wall time, the child's own CPU time and its stderr (when `stderr=PIPE`; its
    stdout in `ChildRun.stdout` when `stdout=PIPE`)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=stdout, stderr=stderr)
    out = proc.stdout.read().decode("utf-8", "replace") if proc.stdout is not None else ""
    err = proc.stderr.read() if proc.stderr is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        proc.stderr.close()
    if proc.stdout is not None:
        proc.stdout.close()
    return ChildRun(wall, usage.ru_utime + usage.ru_stime, proc.returncode, _peak_mb(usage.ru_maxrss), out), err


def child_peak_mb(root: Path, env: dict[str, str]) -> tuple[float, str]:
    """The peak resident memory of one `status` process, and where the figure comes from."""
    cmd = [sys.executable, "-c", _HWM_SHIM, "status", "--project", str(root)]
    run, err = run_child(cmd, env, stderr=subprocess.PIPE)
    for line in err.decode("utf-8", "replace").splitlines():
        if line.startswith(HWM_MARK):
            return int(line[len(HWM_MARK):]) / 1024, "VmHWM of the child"
    return run.maxrss_mb, "ru_maxrss of the child: includes the parent's peak at fork, an upper bound"


_COUNT_MODELS = (  # counted only where pydantic was imported already: counting must not import it
    "BaseModel = sys.modules['pydantic'].BaseModel if 'pydantic' in sys.modules else None\n"
    "def subs(c):\n"
    "    if c is None:\n"
    "        return\n"
    "    for s in c.__subclasses__():\n"
    "        yield s\n"
    "        yield from subs(s)\n"
    "print(len({s for s in subs(BaseModel) if s.__module__.startswith('studio')}))\n"
)
# What a repeat `status` imports (the memo path), and what the full report imports on top of it.
REPEAT_IMPORTS = "import studio.cli.main, studio.cli.status_cmd, studio.status_memo"
# as a status process does before its first model (`status_cmd.early`): pydantic without its plugin scan
FULL_IMPORTS = (REPEAT_IMPORTS + "\nstudio.cli.status_cmd._without_pydantic_plugins()\n"
                "import studio.project, studio.status")


def import_figures(env: dict[str, str], runs: int, imports: str) -> tuple[list[float], int, bool]:
    """CPU seconds of `runs` fresh interpreters running `imports`, the studio's pydantic model classes they
    built, and whether pydantic was imported at all."""
    cpus: list[float] = []
    models = 0
    code = imports + "\nimport sys\nprint('pydantic' in sys.modules)\n" + _COUNT_MODELS
    loaded = False
    for _ in range(runs):
        run, _ = run_child([sys.executable, "-c", code], env, stdout=subprocess.PIPE)
        cpus.append(run.cpu_s)
        lines = run.stdout.split()
        loaded = bool(lines) and lines[0] == "True"
        models = int(lines[1]) if len(lines) > 1 else 0
    return cpus, models, loaded


def touch_chapter(root: Path, folder: str = "chapters", pattern: str = "*.md") -> None:
    """One chapter (or another file of `folder`) rewritten with the same bytes (a new mtime), then `RACY_NS`
    waited out, as a change made a few seconds before `status` is run."""
    chapter = max((root / folder).glob(pattern))
    chapter.write_bytes(chapter.read_bytes())
    time.sleep(RACY_NS / 1e9 + 0.1)


def touch_state_and_changelog(root: Path) -> None:
    """The state file and the changelog rewritten (same bytes, new mtimes), then `RACY_NS` waited out: what the
    full report sees after a commit (its changelog's facts are not kept for these stats)."""
    for name in ("current-state.json", "changelog.jsonl"):
        path = root / "state" / name
        path.write_bytes(path.read_bytes())
    time.sleep(RACY_NS / 1e9 + 0.1)


def _stale_bytecode(source: Path) -> bool:
    """Whether `source` has no .pyc or one that no longer matches it (its header's mtime and size, PEP 552):
    Python then compiles the module at every import and, with PYTHONDONTWRITEBYTECODE, never keeps it."""
    try:
        header = Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
        st = source.stat()
    except OSError:
        return True
    if len(header) < 16 or int.from_bytes(header[4:8], "little") != 0:  # hash-based .pyc: checked by hash
        return len(header) < 16
    mtime, size = int.from_bytes(header[8:12], "little"), int.from_bytes(header[12:16], "little")
    return mtime != int(st.st_mtime) & 0xFFFFFFFF or size != st.st_size & 0xFFFFFFFF


def bytecode_note() -> str:
    """Whether the child runs from cached bytecode: without it (no .pyc, or one older than its source) every
    run compiles those modules again (PYTHONDONTWRITEBYTECODE keeps it from being written), which a real
    install does once."""
    sources = [p for folder in ("studio", "pipeline") for p in (ROOT / folder).rglob("*.py")]
    stale = [p for p in sources if _stale_bytecode(p)]
    flag = " (PYTHONDONTWRITEBYTECODE is set)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    if not stale:
        return f"bytecode: warm (.pyc cached and current for all {len(sources)} modules){flag}"
    names = ", ".join(str(p.relative_to(ROOT)) for p in stale[:3]) + (" …" if len(stale) > 3 else "")
    return (f"bytecode: STALE or missing for {len(stale)} of {len(sources)} modules ({names}){flag}: those are "
            "compiled at every run below; run `python -m compileall -q studio pipeline` once for the warm figure")


def _status_once(root: Path) -> float:
    start = time.perf_counter()
    render_status(build_status(Project.open(root)), "zh")
    return time.perf_counter() - start


def _peak_mb(ru_maxrss: int) -> float:
    return ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru_maxrss / 1024  # bytes on macOS, KiB on Linux


def _ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms (min {min(values) * 1000:.0f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    args = parser.parse_args(argv)

    tmp = None if args.keep else tempfile.mkdtemp(prefix="novel-studio-bench-")
    root = args.keep or Path(tmp or ".") / "novel"
    try:
        start = time.perf_counter()
        generate_project(root, args.chapters)
        gen = time.perf_counter() - start
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        print(f"project: {args.chapters} chapters, {size / 1e6:.1f} MB, generated in {gen:.2f} s")

        cold: list[float] = []
        for _ in range(args.runs):
            shutil.rmtree(cache_folder(root), ignore_errors=True)
            cold.append(_status_once(root))
        warm = [_status_once(root) for _ in range(args.runs)]
        print(f"status in-process, cold (no cache): median {statistics.median(cold) * 1000:.0f} ms "
              f"(min {min(cold) * 1000:.0f}, max {max(cold) * 1000:.0f}, {args.runs} runs)")
        print(f"status in-process, warm (cache):    median {statistics.median(warm) * 1000:.0f} ms "
              f"(min {min(warm) * 1000:.0f}, max {max(warm) * 1000:.0f}, {args.runs} runs)")

        print(bytecode_note())
        if (ROOT / "studio" / "cli" / "main.py").is_file():
            env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
            cmd = [sys.executable, "-m", "studio.cli.main", "status", "--project", str(root)]
            first: list[ChildRun] = []
            other: list[ChildRun] = []
            full: list[ChildRun] = []
            committed: list[ChildRun] = []
            repeat: list[ChildRun] = []
            rejudged: list[ChildRun] = []
            for _ in range(args.runs):
                touch_chapter(root, "evaluations", "*.json")
                record_score(root, max((root / "evaluations").glob("*.json")))  # as the commit does
                rejudged.append(run_child(cmd, env)[0])
                touch_chapter(root, "evaluations", "*.json")
                other.append(run_child(cmd, env)[0])
                touch_chapter(root, "state", "current-state.json")
                full.append(run_child(cmd, env)[0])
                touch_state_and_changelog(root)
                committed.append(run_child(cmd, env)[0])
                touch_chapter(root)
                first.append(run_child(cmd, env)[0])
                repeat.append(run_child(cmd, env)[0])
            for label, runs in (("first run after a change", first),
                                ("first run after a re-judge (score recorded by the commit)", rejudged),
                                ("first run after an evaluation edited outside a commit (validated)", other),
                                ("first run after a change of state (the full report)", full),
                                ("first run after a change of state and changelog (full report, log validated)",
                                 committed),
                                ("repeat, nothing changed", repeat)):
                print(f"status as a whole process, {label}, {args.runs} runs: wall {_ms([r.wall_s for r in runs])}, "
                      f"CPU (user+sys of the child) {_ms([r.cpu_s for r in runs])}; exit {runs[-1].exit_code}")
            touch_chapter(root)
            peak_first, source = child_peak_mb(root, env)
            peak_repeat, _ = child_peak_mb(root, env)
            print(f"peak memory of a status process: first run after a change {peak_first:.1f} MB, "
                  f"repeat {peak_repeat:.1f} MB ({source})")
            for label, imports in (("repeat path", REPEAT_IMPORTS), ("full report", FULL_IMPORTS)):
                cpus, models, loaded = import_figures(env, args.runs, imports)
                print(f"  imports of the {label} (fresh interpreter): CPU {_ms(cpus)}; pydantic "
                      f"{'imported' if loaded else 'not imported'}, {models} model classes of the studio built")
        else:
            print("status subprocess: studio/cli/main.py not there, skipped")
        print(f"peak memory of this bench (generation included, ru_maxrss): "
              f"{_peak_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss):.1f} MB")
        print(f"load average while measuring: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
