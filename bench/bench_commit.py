"""What one chapter's commit costs, and whether the event loop stays free while it runs.

    python bench/bench_commit.py [--chapters 20] [--runs 3]

Prints figures only (no asserts). For each run a fresh synthetic project (`bench/synth.py`) gets one more
chapter from the real orchestrator on the offline provider (no delay); during the commit (from
`prepare_commit` to the end of `run_commit`):
- the fsyncs, split into file fsyncs and directory fsyncs (the commit's write points each make one or two);
- the commit's wall and CPU time (process CPU: the worker thread's included);
- the longest stall of the event loop while the commit runs, seen by a ticker that sleeps 2 ms at a time:
  the time a key would wait before the studio could handle it (the commit runs off the loop in a thread).
Medians over `--runs`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import stat
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402
from synth import generate_project  # noqa: E402

import pipeline.orchestrator as orchestrator_module  # noqa: E402
from pipeline.agents.runner import ModelAgents  # noqa: E402
from pipeline.decisions import take_recommended  # noqa: E402
from pipeline.orchestrator import Orchestrator  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.project import Project  # noqa: E402

Out = Callable[[str], None]


@dataclass
class CommitRun:
    file_fsyncs: int
    dir_fsyncs: int
    wall_s: float
    cpu_s: float
    max_stall_s: float


class CommitProbe:
    """Wraps the orchestrator's commit functions to time them and count the fsyncs made inside."""

    def __init__(self) -> None:
        self.inside = 0
        self.file_fsyncs = 0
        self.dir_fsyncs = 0
        self.wall_s = 0.0
        self.cpu_s = 0.0
        self.spans: list[tuple[float, float]] = []  # perf_counter start and end of each wrapped call

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.inside += 1
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spans.append((wall, time.perf_counter()))
                self.wall_s += time.perf_counter() - wall
                self.cpu_s += time.process_time() - cpu
                self.inside -= 1
        return wrapped

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        real_fsync = os.fsync
        names = ("prepare_commit", "run_commit")
        originals = {name: getattr(orchestrator_module, name) for name in names}

        def fsync(fd: Any) -> None:
            if self.inside:
                if stat.S_ISDIR(os.fstat(fd).st_mode):
                    self.dir_fsyncs += 1
                else:
                    self.file_fsyncs += 1
            real_fsync(fd)

        os.fsync = fsync
        for name, fn in originals.items():
            setattr(orchestrator_module, name, self.wrap(fn))
        try:
            yield
        finally:
            os.fsync = real_fsync
            for name, fn in originals.items():
                setattr(orchestrator_module, name, fn)


async def one_chapter(root: Path) -> CommitRun:
    settings = load_settings(root, env={}, user_file=root / ".bench-no-user-settings.toml")
    agents = ModelAgents(Project.open(root), settings, OfflineProvider(delay_s=0.0))
    probe = CommitProbe()
    orch = Orchestrator(root, agents, decider=take_recommended, emit=lambda e: None, settings=settings,
                        offline=True)
    ticks: list[float] = []
    done = False

    async def ticker() -> None:
        ticks.append(time.perf_counter())
        while not done:
            await asyncio.sleep(0.002)
            ticks.append(time.perf_counter())

    with probe.installed():
        tick = asyncio.create_task(ticker())
        result = await orch.run(1)
        done = True
        await tick
    if not result.committed:
        raise RuntimeError(f"no chapter committed: {result}")
    return CommitRun(probe.file_fsyncs, probe.dir_fsyncs, probe.wall_s, probe.cpu_s, longest_stall(ticks, probe.spans))


def longest_stall(ticks: list[float], spans: list[tuple[float, float]]) -> float:
    """The longest gap between two ticks of the loop that overlaps a commit span."""
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False) if any(a < end and b > start for start, end in spans)]
    return max(gaps, default=0.0)


def main(argv: list[str] | None = None, out: Out = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    os.environ.pop("NOVEL_STUDIO_TEST_NO_FSYNC", None)  # the fsyncs are what is measured
    runs: list[CommitRun] = []

    def run(work: Path) -> None:
        for i in range(args.runs):
            root = work / f"novel-{i}"
            generate_project(root, args.chapters)
            runs.append(asyncio.run(one_chapter(root)))

    run_in_workdir(args.keep, "bench-commit-", run)
    med = statistics.median
    out(f"commit of chapter {args.chapters + 1} (median of {len(runs)} runs, offline provider, real fsyncs)")
    out(f"  fsyncs                 {med(r.file_fsyncs + r.dir_fsyncs for r in runs):>6.0f}"
        f"  (files {med(r.file_fsyncs for r in runs):.0f}, folders {med(r.dir_fsyncs for r in runs):.0f})")
    out(f"  wall                   {med(r.wall_s for r in runs) * 1000:>6.1f} ms")
    out(f"  CPU                    {med(r.cpu_s for r in runs) * 1000:>6.1f} ms")
    out(f"  longest loop stall     {med(r.max_stall_s for r in runs) * 1000:>6.1f} ms  (a key waits at most this long)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
