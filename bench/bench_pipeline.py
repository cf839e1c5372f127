"""What one chapter of the writing pipeline costs locally, in prompt size, in wall time and in tokens.

    python bench/bench_pipeline.py [--quick] [--at 10,500] [--runs 3] [--speed 20] [--rate 60] [--ttft 1.5]

Prints figures only (no asserts):
(a) local overhead per chapter: the real orchestrator and agents on the offline provider with zero delay,
    one chapter written at each of the `--at` chapters of a synthetic project (`bench/synth.py`, the chapters
    before it committed), median of `--runs` runs each on a fresh copy, with the gate path the chapter took and
    the split of the wall time between the provider and local work (context assembly, staging, commit);
(b) the ChapterWriter prompt's estimated tokens at the same chapters (`pipeline.context.writer_context`), by
    cache tier (target: flat, under 25K);
(c) with `bench/rate_provider.py` (fixed time to first token, fixed output tokens/s, scaled down by `--speed`)
    the wall time of a chapter against the sum of its stage times, i.e. what running Summarizer and
    StyleRefiner side by side saves, on a chapter that passes and on one that goes through a revision;
(d) input and output tokens per chapter by stage, from the chapter log written at commit, and their cost at the
    default list prices with each agent's model from the settings (offline token counts are estimates).

`--quick` measures at chapters 10 and 60 and runs the rate fake faster.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402
from rate_provider import RateProvider  # noqa: E402
from synth import generate_project  # noqa: E402

from pipeline.agents.runner import ModelAgents  # noqa: E402
from pipeline.context import chapter_info, writer_context  # noqa: E402
from pipeline.decisions import take_recommended  # noqa: E402
from pipeline.events import ChapterCommitted, Event, GateDecided, StageFinished, StageStarted, TextDelta  # noqa: E402
from pipeline.orchestrator import Orchestrator, RunResult  # noqa: E402
from pipeline.providers.base import ModelRequest, ModelResult, Provider, TextCallback, Usage  # noqa: E402
from pipeline.providers.cost import DEFAULT_PRICES, cost_usd, price_for  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.models.pipeline_log import PipelineLog  # noqa: E402
from studio.models.settings import Settings  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402
from studio.project import Project  # noqa: E402

WRITER_TARGET_TOKENS = 25_000
PASS_CHAPTER = 10  # offline judge: 10 % 7 == 3 -> pass
REVISE_CHAPTER = 12  # offline judge: 12 % 7 == 5 -> 3.2, revise; +0.4 after the revision -> polish

# The agent (hence the model in the settings) behind each stage name of the chapter log.
STAGE_AGENT: dict[str, str] = {
    "draft": "chapter_writer",
    "summarize": "summarizer",
    "refine": "style_refiner",
    "polish": "style_refiner",
    "judge": "quality_judge",
    "judge-secondary": "judge_secondary",
    "revise": "revision",
    "rewrite": "revision",
}

Interval = tuple[float, float]
Out = Callable[[str], None]


# --------------------------------------------------------------------------------------------- timing helpers


def union_length(intervals: Sequence[Interval]) -> float:
    """Total length covered by the intervals (overlaps counted once)."""
    total = 0.0
    end = float("-inf")
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


class TimedProvider:
    """Wraps a provider and records when each call ran, minus the time spent in its `on_text` callback
    (the orchestrator writing the `.partial` draft and emitting events is local work, not the model's)."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.offline = inner.offline
        self.intervals: list[Interval] = []
        self.callback_s = 0.0

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        wrapped: TextCallback | None = None
        if on_text is not None:
            inner_cb = on_text

            def wrapped(delta: str) -> Any:
                start = time.perf_counter()
                try:
                    return inner_cb(delta)
                finally:
                    self.callback_s += time.perf_counter() - start

        start = time.perf_counter()
        try:
            return await self.inner.run(request, wrapped)
        finally:
            self.intervals.append((start, time.perf_counter()))


class TimedAgents:
    """Wraps an `Agents` implementation and records when each agent call ran."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.intervals: list[Interval] = []

    async def _timed(self, coro: Any) -> Any:
        start = time.perf_counter()
        try:
            return await coro
        finally:
            self.intervals.append((start, time.perf_counter()))

    async def write(self, chapter: int, **kw: Any) -> Any:
        return await self._timed(self.inner.write(chapter, **kw))

    async def summarize(self, chapter: int, text: str, hints: str) -> Any:
        return await self._timed(self.inner.summarize(chapter, text, hints))

    async def refine(self, chapter: int, text: str, **kw: Any) -> Any:
        return await self._timed(self.inner.refine(chapter, text, **kw))

    async def judge(self, chapter: int, text: str, **kw: Any) -> Any:
        return await self._timed(self.inner.judge(chapter, text, **kw))


@contextlib.contextmanager
def counting_fsyncs() -> Iterator[list[int]]:
    """Count `os.fsync` calls (every durable write of `studio.fileio` makes one or two) while inside."""
    count = [0]
    real = os.fsync

    def fsync(fd: Any) -> None:
        count[0] += 1
        real(fd)

    os.fsync = fsync
    try:
        yield count
    finally:
        os.fsync = real


# --------------------------------------------------------------------------------------------- one chapter


@dataclass
class ChapterRun:
    chapter: int
    setup_s: float  # Project.open + settings + ModelAgents, before the orchestrator runs
    wall_s: float  # await orchestrator.run(1)
    provider_s: float  # union of provider calls, callback time excluded
    callback_s: float  # inside on_text: .partial writes and TextDelta events
    agents_s: float  # union of agent calls (context assembly, provider, reply validation)
    before_first_s: float  # lock, checkpoint, recovery, chapter start
    after_last_s: float  # gate, commit, report (and the quality brief where due)
    fsyncs: int  # os.fsync calls during the run
    commit_s: float  # the last gate decision to the last commit step (`pipeline.commit`, via the step hook)
    stages: list[tuple[str, float, float]] = field(default_factory=list)  # name, start, end (perf_counter)
    path: str = ""
    gates: list[str] = field(default_factory=list)
    result: RunResult | None = None
    log: PipelineLog | None = None

    @property
    def local_s(self) -> float:
        return self.wall_s - self.provider_s

    def stage_sum(self) -> float:
        return sum(end - start for _, start, end in self.stages)

    def stage_union(self) -> float:
        return union_length([(start, end) for _, start, end in self.stages])


def bench_settings(root: Path) -> Settings:
    """The project's settings with no user file and no environment, so runs are reproducible."""
    return load_settings(root, env={}, user_file=root / ".bench-no-user-settings.toml")


def gate_path(events: list[tuple[float, Event]]) -> str:
    """`draft → summarize‖refine → judge → pass 4.28 → commit`, from the events in order."""
    tokens: list[str] = []
    active: set[str] = set()
    last_gate: tuple[str, int] | None = None
    for _, event in events:
        if isinstance(event, StageStarted):
            if active and tokens:
                tokens[-1] += "‖" + event.stage
            else:
                tokens.append(event.stage)
            active.add(event.stage)
        elif isinstance(event, StageFinished):
            active.discard(event.stage)
        elif isinstance(event, GateDecided):
            # The gate is re-derived after a polish pass (same action, same revision count): shown once.
            key = (event.action, event.revision_count)
            if key != last_gate:
                tokens.append(f"{event.action} {event.overall:.2f}")
            last_gate = key
        elif isinstance(event, ChapterCommitted):
            tokens.append("commit")
    return " → ".join(tokens)


def stage_intervals(events: list[tuple[float, Event]]) -> list[tuple[str, float, float]]:
    started: dict[str, float] = {}
    out: list[tuple[str, float, float]] = []
    for at, event in events:
        if isinstance(event, StageStarted):
            started[event.stage] = at
        elif isinstance(event, StageFinished) and event.stage in started:
            out.append((event.stage, started.pop(event.stage), at))
    return out


async def run_chapter(root: Path, provider: Provider) -> ChapterRun:
    """Write the next chapter of the project at `root` with the real orchestrator and agents."""
    setup_start = time.perf_counter()
    settings = bench_settings(root)
    project = Project.open(root)
    timed_provider = TimedProvider(provider)
    agents = TimedAgents(ModelAgents(project, settings, timed_provider))
    events: list[tuple[float, Event]] = []
    commit_marks: list[float] = []

    def hook(step: str) -> None:
        if step.startswith("commit:"):
            commit_marks.append(time.perf_counter())

    def emit(event: Event) -> None:
        if not isinstance(event, TextDelta):
            events.append((time.perf_counter(), event))

    orch = Orchestrator(
        root,
        agents,
        decider=take_recommended,
        emit=emit,
        settings=settings,
        offline=bool(getattr(provider, "offline", False)),
        step_hook=hook,
    )
    setup_s = time.perf_counter() - setup_start
    with counting_fsyncs() as fsyncs:
        start = time.perf_counter()
        result = await orch.run(1)
        end = time.perf_counter()
    if not result.committed:
        raise RuntimeError(f"no chapter committed: {result}")
    chapter = result.committed[-1]
    log_path = ProjectPaths(root).log(chapter)
    gates = [at for at, e in events if isinstance(e, GateDecided)]
    gate_at = gates[-1] if gates else end
    first = min((a for a, _ in agents.intervals), default=end)
    last = max((b for _, b in agents.intervals), default=start)
    return ChapterRun(
        chapter=chapter,
        setup_s=setup_s,
        wall_s=end - start,
        provider_s=union_length(timed_provider.intervals) - timed_provider.callback_s,
        callback_s=timed_provider.callback_s,
        agents_s=union_length(agents.intervals),
        before_first_s=first - start,
        after_last_s=end - last,
        fsyncs=fsyncs[0],
        commit_s=(max(commit_marks) - gate_at) if commit_marks else 0.0,
        stages=stage_intervals(events),
        path=gate_path(events),
        gates=[e.action for _, e in events if isinstance(e, GateDecided)],
        result=result,
        log=PipelineLog.load(log_path) if log_path.is_file() else None,
    )


def make_project(root: Path, chapter: int, *, chars: int) -> Path:
    """A synthetic project with `chapter - 1` committed chapters whose outline covers `chapter`."""
    generate_project(root, chapter - 1, chars_per_chapter=chars)
    info = chapter_info(Project.open(root), chapter)
    if info.chapter is None:
        raise RuntimeError(f"the synthetic outline does not cover chapter {chapter}")
    return root


def fresh_copy(base: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(base, dest)
    return dest


def median_run(runs: list[ChapterRun]) -> ChapterRun:
    return sorted(runs, key=lambda r: r.wall_s)[len(runs) // 2]


# --------------------------------------------------------------------------------------------- the sections


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def local_overhead(base: Path, work: Path, runs: int, out: Out) -> ChapterRun:
    """(a) for one project: `runs` runs, each on a fresh copy; prints and returns the median run."""
    results: list[ChapterRun] = []
    for i in range(runs):
        root = fresh_copy(base, work / f"run-{i}")
        results.append(asyncio.run(run_chapter(root, OfflineProvider(delay_s=0))))
        shutil.rmtree(root, ignore_errors=True)
    med = median_run(results)
    walls = [r.wall_s for r in results]
    out(f"  ch {med.chapter}: wall median {ms(statistics.median(walls))} "
        f"(min {ms(min(walls))}, max {ms(max(walls))}, runs: {runs}); gate path: {med.path}")
    other_local = med.wall_s - med.agents_s - med.before_first_s - med.after_last_s
    agent_local = med.agents_s - med.provider_s - med.callback_s
    out(f"    provider (offline reply synthesis, zero delay)    {ms(med.provider_s):>8}")
    out(f"    local: agents outside the provider               {ms(agent_local):>8}  "
        "(context assembly, prompt render, reply validation)")
    out(f"    local: streaming callback                        {ms(med.callback_s):>8}  (.partial writes, events)")
    out(f"    local: before the first stage                    {ms(med.before_first_s):>8}  "
        "(lock, checkpoint, recovery)")
    out(f"    local: between stages                            {ms(other_local):>8}  (staging, checkpoints)")
    out(f"    local: after the last stage                      {ms(med.after_last_s):>8}  "
        "(gate, commit, report, brief)")
    out(f"      of which gate decision -> commit done          {ms(med.commit_s):>8}  (pipeline.commit steps)")
    out(f"    local total (wall - provider)                    {ms(med.local_s):>8}  ({med.fsyncs} fsyncs in the run)")
    out(f"    setup outside the run (Project.open, settings)   {ms(med.setup_s):>8}")
    return med


def writer_prompt(root: Path, chapter: int, out: Out) -> int:
    """(b) for one project: the ChapterWriter prompt's estimated tokens, by tier."""
    project = Project.open(root)
    settings = bench_settings(root)
    start = time.perf_counter()
    bundle = writer_context(project, settings, chapter)
    took = time.perf_counter() - start
    tiers = ", ".join(f"{s.tier} {estimate_tokens(s.text):,}" for s in bundle.sections)
    verdict = "under" if bundle.estimated_tokens < WRITER_TARGET_TOKENS else "OVER"
    out(f"  ch {chapter}: {bundle.estimated_tokens:,} tokens ({verdict} {WRITER_TARGET_TOKENS:,}); "
        f"by tier: {tiers}; assembled in {ms(took)}")
    return bundle.estimated_tokens


def rate_run(base: Path, work: Path, provider: RateProvider, out: Out) -> ChapterRun:
    """(c) for one project: one chapter streamed at a fixed rate."""
    root = fresh_copy(base, work / "rate")
    run = asyncio.run(run_chapter(root, provider))
    shutil.rmtree(root, ignore_errors=True)
    by_stage: dict[str, float] = {}
    for name, start, end in run.stages:
        by_stage[name] = by_stage.get(name, 0.0) + (end - start)
    parts = " + ".join(f"{name} {secs:.2f}" for name, secs in by_stage.items())
    total = run.stage_sum()
    busy = run.stage_union()
    saved = total - busy
    scale = provider.speed
    out(f"  ch {run.chapter} [{run.path}]")
    out(f"    stage times: {parts} = {total:.2f} s (sum)")
    out(f"    wall {run.wall_s:.2f} s; stages busy (overlap counted once) {busy:.2f} s; "
        f"local outside the stages {run.wall_s - busy:.2f} s")
    out(f"    side by side saves {saved:.2f} s = {saved / (run.wall_s + saved):.1%} of a sequential chapter "
        f"({run.wall_s + saved:.2f} s)")
    out(f"    at the unscaled rate (x{scale:g}): wall ~{run.wall_s * scale:.0f} s, sum of stages ~{total * scale:.0f} s, "
        f"saved ~{saved * scale:.0f} s")
    if run.result is not None:
        out(f"    priced by the runner at the settings' prices: ${run.result.cost_usd:.4f} "
            f"({run.result.input_tokens:,} in / {run.result.output_tokens:,} out, estimated)")
    return run


def token_table(log: PipelineLog | None, settings: Settings, out: Out) -> float:
    """(d) for one chapter log: tokens and cost at the default prices, by stage."""
    if log is None:
        out("    (no chapter log)")
        return 0.0
    out(f"  ch {log.chapter} (gate {log.gate_decision}, {log.revisions} revisions)")
    out(f"    {'stage':<16} {'model':<20} {'input':>8} {'output':>8} {'cost USD':>10}")
    total_in = total_out = 0
    total_cost = 0.0
    for stage in log.stages:
        agent = STAGE_AGENT.get(stage.name)
        model = settings.model_for(agent) if agent else (stage.model or "?")
        usage = Usage(
            input_tokens=stage.input_tokens,
            output_tokens=stage.output_tokens,
            cache_creation_input_tokens=stage.cache_creation_input_tokens,
            cache_read_input_tokens=stage.cache_read_input_tokens,
        )
        cost = cost_usd(usage, price_for(model, DEFAULT_PRICES)) or 0.0
        total_in += usage.total_in()
        total_out += stage.output_tokens or 0
        total_cost += cost
        out(f"    {stage.name:<16} {model:<20} {usage.total_in():>8,} {stage.output_tokens or 0:>8,} {cost:>10.4f}")
    out(f"    {'total':<16} {'':<20} {total_in:>8,} {total_out:>8,} {total_cost:>10.4f}")
    return total_cost


# --------------------------------------------------------------------------------------------- main


@dataclass
class Options:
    at: tuple[int, ...] = (10, 500)
    runs: int = 3
    rate: float = 60.0
    ttft: float = 1.5
    speed: float = 20.0
    chars: int = 3000


def run_benchmark(work: Path, opts: Options, out: Out = print) -> dict[str, Any]:
    """Every section, in `work`; returns the figures for callers (the smoke test)."""
    figures: dict[str, Any] = {"overhead": {}, "writer_tokens": {}, "rate": {}, "cost": {}}
    bases: dict[int, Path] = {}
    for chapter in opts.at:
        start = time.perf_counter()
        bases[chapter] = make_project(work / f"base-{chapter}", chapter, chars=opts.chars)
        out(f"project for ch {chapter}: {chapter - 1} committed chapters "
            f"({opts.chars} chars each), generated in {time.perf_counter() - start:.1f} s")

    out("")
    out("(a) local overhead per chapter: offline provider, zero delay, take_recommended, fresh copy per run")
    medians: dict[int, ChapterRun] = {}
    for chapter, base in bases.items():
        medians[chapter] = local_overhead(base, work / f"a-{chapter}", opts.runs, out)
        figures["overhead"][chapter] = medians[chapter].wall_s

    out("")
    out("(b) ChapterWriter prompt, estimated tokens (pipeline.context.writer_context)")
    for chapter, base in bases.items():
        figures["writer_tokens"][chapter] = writer_prompt(base, chapter, out)
    sizes = list(figures["writer_tokens"].values())
    if len(sizes) > 1 and min(sizes):
        out(f"  growth from ch {opts.at[0]} to ch {opts.at[-1]}: {(sizes[-1] - sizes[0]) / sizes[0]:+.1%}")

    out("")
    provider = RateProvider(opts.rate, opts.ttft, speed=opts.speed)
    out(f"(c) fixed-rate fake API: {opts.rate:g} output tokens/s, {opts.ttft:g} s to first token, every call; "
        f"speed x{opts.speed:g} -> {provider.effective_rate:g} tokens/s and {ms(provider.effective_ttft_s)} "
        "to first token in wall time")
    for chapter in (PASS_CHAPTER, REVISE_CHAPTER):
        base = bases.get(chapter) or make_project(work / f"base-{chapter}", chapter, chars=opts.chars)
        run = rate_run(base, work / f"c-{chapter}", provider, out)
        figures["rate"][chapter] = (run.wall_s, run.stage_sum(), run.stage_union())

    out("")
    settings = bench_settings(next(iter(bases.values())))
    models = ", ".join(f"{a} {settings.model_for(a)}" for a in dict.fromkeys(STAGE_AGENT.values()))
    prices = ", ".join(f"{m} ${p.input:g}/${p.output:g}" for m, p in DEFAULT_PRICES.items())
    out("(d) tokens and cost per chapter by stage, from logs/chapter-NNN-log.json of the median run in (a)")
    out(f"  models: {models}")
    out(f"  default prices per MTok in/out: {prices}; no cache reads counted (offline reports none)")
    out("  token counts are the offline provider's estimates (pipeline.tokens.estimate_tokens), not a tokenizer's")
    for chapter, med in medians.items():
        figures["cost"][chapter] = token_table(med.log, settings, out)
    return figures


def parse_at(text: str) -> tuple[int, ...]:
    values = tuple(int(v) for v in text.split(",") if v.strip())
    if not values or min(values) < 2:
        raise argparse.ArgumentTypeError("chapters must be >= 2 (the one before is committed)")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="chapters 10 and 60, faster rate fake")
    parser.add_argument("--at", type=parse_at, help="chapters to measure, e.g. 10,500")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rate", type=float, default=60.0, help="output tokens per second of the fake API")
    parser.add_argument("--ttft", type=float, default=1.5, help="seconds to first token of the fake API")
    parser.add_argument("--speed", type=float, help="scale the fake API's timing down (default 20, quick 60)")
    parser.add_argument("--chars", type=int, default=3000, help="characters per synthetic chapter")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args(argv)

    opts = Options(
        at=args.at or ((10, 60) if args.quick else (10, 500)),
        runs=max(1, args.runs),
        rate=args.rate,
        ttft=args.ttft,
        speed=args.speed or (60.0 if args.quick else 20.0),
        chars=args.chars,
    )
    run_in_workdir(args.keep, "novel-studio-bench-pipeline-", lambda work: run_benchmark(work, opts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
