"""Kill a run at every write point and resume it, for the fault-injection test (see test_fault_injection).

Usage: python tests/fault_runner.py PRISTINE WORKDIR LAST_CHAPTER [FIRST_WRITE [LAST_WRITE]] [--shard=K/N]
Environment: NOVEL_STUDIO_TEST_SCORES  "4:3.7" judge scores per chapter (as in crash_runner.py)
`--shard=K/N` checks only the write points equal to K modulo N (see `selected`), so a sweep splits into cases
that pytest-xdist spreads over its workers; the N shards together check every point.

Imports once, then forks a child per run so each run is a fresh process state without paying for the
imports again: a reference run of PRISTINE's copy writes chapters until LAST_CHAPTER is committed; then for
every write point N (all of the reference run's, or FIRST..LAST) a child runs a fresh copy with
`NOVEL_STUDIO_FAULT_WRITE=N` (it dies by SIGKILL there, see `studio.fileio`), another child resumes it
without a fault, and the files are compared with the reference. The changelog's clock is frozen so the
runs write byte-identical files; a warm-up run first fills the caches outside the project, so the write
points are the same in every run. Prints one JSON line: {"writes": W, "checked": [...], "failures": [...]}.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.decisions import take_recommended  # noqa: E402
from pipeline.orchestrator import Orchestrator  # noqa: E402
from studio import fileio, state_engine  # noqa: E402
from studio.models.checkpoint import Checkpoint, PipelineStage  # noqa: E402
from studio.models.settings import Settings  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402
from tests.crash_runner import parse_scores  # noqa: E402
from tests.fake_agents import FakeAgents  # noqa: E402

FROZEN = "2026-01-01T00:00:00+00:00"
COMPARED = ("chapters", "summaries", "evaluations", "storylines", "foreshadowing", "state")


def run_until(root: Path, last: int) -> int:
    """Write chapters until `last` is committed (a commit finished on resume counts as one chapter)."""
    paths = ProjectPaths(root)
    state_engine._now = lambda: FROZEN  # the only clock in the compared files
    agents = FakeAgents(paths, scores=parse_scores(os.environ.get("NOVEL_STUDIO_TEST_SCORES", "")))
    orch = Orchestrator(root, agents, decider=take_recommended, emit=lambda e: None, settings=Settings())
    done = Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
    result = asyncio.run(orch.run(max(last - done, 0)))
    return result.exit_code


def forked(body: Callable[[], int], fault: int | None, report: Path | None = None) -> int:
    """Run `body` in a forked child with the write fault set (None: no fault) and the write count reset;
    `report` gets the child's write count. Returns its wait status code (exit code, or -signal)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if fault is None:
                os.environ.pop(fileio.FAULT_ENV, None)
            else:
                os.environ[fileio.FAULT_ENV] = str(fault)
            fileio._write_count = 0
            code = body()
            if report is not None:
                report.write_text(str(fileio.write_count()))
        except BaseException as exc:  # noqa: BLE001 - the child must never return into the parent's loop
            sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def in_child(root: Path, last: int, fault: int | None, report: Path | None = None) -> int:
    """A run until chapter `last` is committed, in a forked child (see `forked`)."""
    return forked(lambda: run_until(root, last), fault, report)


def tree_bytes(root: Path, names: Sequence[str], *, skip_temp: bool = False) -> dict[str, bytes]:
    """The bytes of every file under the folders (or of the files) `names` of `root`, by relative path: what the
    kill-and-resume tests compare with an uninterrupted run."""
    out: dict[str, bytes] = {}
    for name in names:
        base = root / name
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base] if base.is_file() else []
        for path in files:
            if not (skip_temp and path.name.endswith(".tmp")):
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def checkpoint_bytes(root: Path) -> bytes:
    """`.checkpoint.json` without its clock (`last_checkpoint_time`), keys sorted."""
    cp = json.loads((root / ".checkpoint.json").read_text("utf-8"))
    cp.pop("last_checkpoint_time", None)
    return json.dumps(cp, sort_keys=True).encode()


def snapshot(root: Path) -> dict[str, bytes]:
    return tree_bytes(root, COMPARED)


def leftovers(root: Path) -> list[str]:
    paths = ProjectPaths(root)
    staged = [p for p in paths.staging.rglob("*") if p.is_file()] if paths.staging.exists() else []
    temps = [p for p in root.rglob("*.tmp")]
    lock = [paths.lock_dir] if paths.lock_dir.exists() else []
    return [str(p.relative_to(root)) for p in [*staged, *temps, *lock]]


def selected(writes: int, args: Sequence[str]) -> list[int]:
    """The write points a sweep checks: FIRST..LAST of the positional `args` (default: 1..writes), and with
    `--shard=K/N` among them only those equal to K modulo N (every N-th point, so each shard crosses every
    stage of the run and the shards cost about the same)."""
    shard = [a for a in args if a.startswith("--shard=")]
    bounds = [int(a) for a in args if not a.startswith("--shard=")]
    first = bounds[0] if bounds else 1
    final = min(bounds[1], writes) if len(bounds) > 1 else writes
    points = list(range(first, final + 1))
    if shard:
        k, n = (int(x) for x in shard[-1].removeprefix("--shard=").split("/"))
        points = [p for p in points if p % n == k]
    return points


def shard_points(writes: int, shard: int, shards: int) -> list[int]:
    """The write points 1..writes that shard `shard` of `shards` checks (`selected` with `--shard=K/N`)."""
    return selected(writes, [f"--shard={shard}/{shards}"])


def differing(expected: dict[str, bytes], got: dict[str, bytes]) -> list[str]:
    """The paths whose bytes differ between two `tree_bytes` snapshots (or that only one has)."""
    return sorted(k for k in expected.keys() | got.keys() if expected.get(k) != got.get(k))


@dataclass
class Sweep:
    """What an in-process kill sweep did: the write points it checked, in order, and what went wrong."""

    checked: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def kill_sweep(
    points: Iterable[int],
    fresh: Callable[[int], Path],
    run: Callable[[Path], int],
    check: Callable[[Path], list[str]],
    *,
    after_kill: Callable[[Path], list[str]] | None = None,
) -> Sweep:
    """For each write point N of `points`: `fresh(N)` makes a project folder of its own; a forked child runs
    `run(folder)` and dies by SIGKILL at write N (`forked`); `after_kill(folder)` may look at the killed state;
    another child runs it again without a fault, which must exit 0; `check(folder)` lists what differs from an
    uninterrupted run. A point that passes has its folder removed (a failing one is kept to look at)."""
    sweep = Sweep()
    for n in points:
        root = fresh(n)
        sweep.checked.append(n)
        problems: list[str] = []
        if (killed := forked(partial(run, root), n)) != -signal.SIGKILL:
            problems.append(f"the faulty run ended with {killed}, not SIGKILL")
        else:
            if after_kill is not None:
                problems.extend(after_kill(root))
            if (resumed := forked(partial(run, root), None)) != 0:
                problems.append(f"the resumed run exited {resumed}")
            else:
                problems.extend(check(root))
        sweep.failures.extend(f"write {n}: {p}" for p in problems)
        if not problems:
            shutil.rmtree(root)
    return sweep


def check_one(pristine: Path, work: Path, last: int, n: int, expected: dict[str, bytes]) -> str | None:
    root = work / f"kill-{n}"
    shutil.copytree(pristine, root)
    killed = in_child(root, last, n)
    if killed != -signal.SIGKILL:
        return f"write {n}: the faulty run ended with {killed}, not SIGKILL"
    resumed = in_child(root, last, None)
    if resumed != 0:
        return f"write {n}: the resumed run exited {resumed}"
    differ = differing(expected, snapshot(root))
    if differ:
        return f"write {n}: files differ from the uninterrupted run: {differ}"
    cp = Checkpoint.load(ProjectPaths(root).checkpoint)
    if cp.last_completed_chapter != last or cp.pipeline_stage is not PipelineStage.COMMITTED:
        return f"write {n}: checkpoint at {cp.last_completed_chapter} / {cp.pipeline_stage}"
    left = leftovers(root)
    if left:
        return f"write {n}: left behind {left}"
    shutil.rmtree(root)
    return None


def main() -> int:
    pristine, work, last = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    # A first run fills the caches kept outside the project (the checks' name statistics, in the user cache
    # folder): every later run finds them warm, so each run makes the same writes in the same order.
    warmup = work / "warmup"
    shutil.copytree(pristine, warmup)
    in_child(warmup, last, None)
    shutil.rmtree(warmup)
    reference = work / "reference"
    shutil.copytree(pristine, reference)
    count_file = work / "writes.txt"
    if in_child(reference, last, None, count_file) != 0:
        print(json.dumps({"writes": 0, "checked": [], "failures": ["the uninterrupted run failed"]}))
        return 1
    writes = int(count_file.read_text())
    expected = snapshot(reference)
    checked: list[int] = []
    failures: list[str] = []
    for n in selected(writes, sys.argv[4:]):
        problem = check_one(pristine, work, last, n, expected)
        checked.append(n)
        if problem:
            failures.append(problem)
    print(json.dumps({"writes": writes, "checked": checked, "failures": failures}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
