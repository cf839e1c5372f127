"""What each writing agent sends: prompt size per agent against seed 002's budgets, and the cache-read share.

    python bench/bench_prompts.py [--at 10,500] [--keep DIR]

Prints figures only (no asserts):
(a) each agent's request (writer, reviser, summarizer, refiner, judge; built by `pipeline.agents.requests`, the
    code `ModelAgents` and `novel-studio prompt` use) at the `--at` chapters of a planned synthetic book
    (`bench/synth.py --planned`: 12 world rules, three L2 contracts per character, an L3 contract for every
    chapter, summaries of realistic length that differ per chapter); estimated tokens (`pipeline.tokens`) by
    cache tier, against the seed 002 section 8.4 budget of the agent;
(b) the cache-read share per agent, chapters 3 to 10 in order: the tokens of the request's cached prefix (every
    block up to the last breakpoint) that are byte-identical to the previous chapter's request, over the
    request's tokens. Measured on the planned synthetic book as it stood before each chapter (one project per
    chapter, so the state, foreshadowing ledger, summaries and contracts change between two requests as in a
    real run: a block that changes every chapter inside a cached tier shows as a miss), and, for comparison,
    on the bundled sample novel (one project for every chapter: its state and ledger never change).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402
from synth import generate_project  # noqa: E402

from pipeline.agents.protocol import RevisionInput  # noqa: E402
from pipeline.agents.requests import AgentRequests  # noqa: E402
from pipeline.context import default_registry  # noqa: E402
from pipeline.providers.base import ModelRequest  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.init_project import init_project  # noqa: E402
from studio.project import Project  # noqa: E402

Out = Callable[[str], None]
# seed 002 section 8.4 ("非硬上限"): the upper end of each agent's estimate; the reviser is the writer's budget
CHAPTERS = range(3, 11)  # the cache-share measure: chapters 3 to 10 in order
BUDGETS = {"writer": 24_000, "reviser": 24_000, "summarizer": 12_000, "refiner": 8_000, "judge": 16_000}
AGENTS = tuple(BUDGETS)


def _blocks(request: ModelRequest) -> list[tuple[str, bool]]:
    blocks = [(b.text, b.cache) for b in request.system]
    for message in request.messages:
        for block in message["content"]:
            blocks.append((block["text"], "cache_control" in block))
    return blocks


def tiers(request: ModelRequest) -> tuple[int, int]:
    """(estimated tokens of the cached prefix, of the whole request)."""
    blocks = _blocks(request)
    last = max((i for i, (_, cached) in enumerate(blocks) if cached), default=-1)
    cached = sum(estimate_tokens(text) for text, _ in blocks[: last + 1])
    return cached, sum(estimate_tokens(text) for text, _ in blocks)


def shared_prefix(previous: ModelRequest, current: ModelRequest) -> int:
    """Estimated tokens of `current`'s cached prefix that a cache written by `previous` serves: the breakpoints
    of `current` up to the last one whose whole prefix is byte-identical."""
    a, b = _blocks(previous), _blocks(current)
    served = 0
    running = 0
    for i, (text, cached) in enumerate(b):
        if i >= len(a) or a[i][0] != text:
            break
        running += estimate_tokens(text)
        if cached:
            served = running
    return served


def requests_at(project: Project, chapter: int) -> dict[str, ModelRequest]:
    settings = load_settings(project.root)
    built = AgentRequests(project, settings, default_registry())
    # the latest written chapter stands in for this chapter's draft (a real chapter's size and shape)
    source = next((n for n in range(chapter - 1, 0, -1) if project.chapter_text(n)), None)
    text = (project.chapter_text(source) or "") if source is not None else ""
    if source is not None:
        text = text.replace(f"第{source}章", f"第{chapter}章", 1)
    revision = RevisionInput("revision", text, ["第 3 段：把心理独白改成动作"], ["节奏偏慢"], [])
    return {
        "writer": built.writer(chapter, note=None, revision=None).request,
        "reviser": built.writer(chapter, note=None, revision=revision).request,
        "summarizer": built.summarizer(chapter, text, "- 林枫到后山竹林")[0],
        "refiner": built.refiner(chapter, text, polish=False),
        "judge": built.judge(chapter, text, cross_references=["赵明（character，传闻）"], revision=0),
    }


def prompt_sizes(work: Path, at: tuple[int, ...], out: Out) -> dict[int, dict[str, int]]:
    figures: dict[int, dict[str, int]] = {}
    for chapter in at:
        root = work / f"synth-{chapter}"
        generate_project(root, chapter - 1, planned=True)
        project = Project.open(root)
        figures[chapter] = {}
        out(f"  ch {chapter} ({chapter - 1} chapters written):")
        for agent, request in requests_at(project, chapter).items():
            cached, total = tiers(request)
            figures[chapter][agent] = total
            verdict = "within" if total <= BUDGETS[agent] else "OVER"
            out(f"    {agent:<11} {total:>7,} tokens, cached prefix {cached:>6,} "
                f"({verdict} seed 002 budget {BUDGETS[agent]:,})")
    return figures


def _shares(pairs: list[tuple[dict[str, ModelRequest], dict[str, ModelRequest]]], first: dict[str, ModelRequest],
            label: str, out: Out) -> dict[str, float]:
    served = dict.fromkeys(AGENTS, 0)
    sent = {agent: tiers(first[agent])[1] for agent in AGENTS}
    for previous, current in pairs:
        for agent in AGENTS:
            sent[agent] += tiers(current[agent])[1]
            served[agent] += shared_prefix(previous[agent], current[agent])
    shares = {}
    for agent in AGENTS:
        shares[agent] = served[agent] / sent[agent] if sent[agent] else 0.0
        out(f"    {agent:<11} {shares[agent]:6.1%} of {sent[agent]:,} input tokens over chapters {label}")
    return shares


def cache_share(work: Path, out: Out, chapters: range = CHAPTERS) -> dict[str, float]:
    """The planned synthetic book as it stood before each chapter (its own project per chapter: the state,
    ledger, summaries and contracts a real run changes between two chapters), requests in chapter order."""
    built = []
    for chapter in chapters:
        root = work / f"book-before-{chapter}"
        generate_project(root, chapter - 1, chars_per_chapter=1200, planned=True)
        built.append(requests_at(Project.open(root), chapter))
    return _shares(list(zip(built, built[1:], strict=False)), built[0], f"{chapters[0]}-{chapters[-1]}", out)


def sample_cache_share(work: Path, out: Out, chapters: range = CHAPTERS) -> dict[str, float]:
    """The bundled sample novel, one project for every chapter (state and ledger as after its last chapter)."""
    root = init_project(work / "sample", sample=True)
    project = Project.open(root)
    built = [requests_at(project, chapter) for chapter in chapters]
    return _shares(list(zip(built, built[1:], strict=False)), built[0], f"{chapters[0]}-{chapters[-1]}", out)


def run_benchmark(work: Path, at: tuple[int, ...], out: Out = print) -> dict[str, object]:
    out("(a) prompt size per agent, estimated tokens (planned synthetic book: world rules, contracts, realistic summaries)")
    sizes = prompt_sizes(work, at, out)
    out("")
    out("(b) cache-read share per agent (cached prefix identical to the previous chapter's request), on the "
        "planned synthetic book as it stood before each chapter")
    shares = cache_share(work, out)
    out("    and on the bundled sample novel (one project: its state, ledger and contracts fixed for every chapter)")
    sample = sample_cache_share(work, out)
    return {"sizes": sizes, "shares": shares, "sample_shares": sample}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--at", default="10,500", help="chapters to measure, e.g. 10,500")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    at = tuple(int(x) for x in args.at.split(",") if x.strip())
    run_in_workdir(args.keep, "bench-prompts-", lambda work: run_benchmark(work, at))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
