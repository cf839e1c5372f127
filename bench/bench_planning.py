"""Tokens and cost of planning: each planning agent's request, a quick start and a volume plan (issue 7).

`python bench/bench_planning.py [--volume-length 30] [--keep DIR]` prints figures only:

- (a) per planning agent on the sample novel: the model, the prompt's estimated tokens by cache tier (the
  request `novel-studio prompt` shows), the offline reply's estimated tokens, and the cost at
  `pipeline.providers.cost.DEFAULT_PRICES` (all input uncached: each agent runs once).
- (b) a quick start on a fresh project with a filled brief: WorldBuilder (init), CharacterWeaver, StyleAnalyzer,
  PlotArchitect for a 3-chapter opening sketch, and the 3 trial chapters at `pipeline.estimate.TYPICAL_CALLS`.
  The planning prompts are rendered on the empty project, so they are a lower bound of the real ones.
- (c) a volume plan of `--volume-length` chapters on the sample (volume 2): the PlotArchitect outline call
  (outline, schedule, threads) and its contract batches of `CONTRACT_BATCH` chapters, each batch request built
  as the planner sends it (the offline outline, the chained state before the batch); the volume tier of the
  batches (the outline) is cached after the first batch in a real run, so the figures are an upper bound.

Token counts are `pipeline.tokens.estimate_tokens` estimates and offline replies stand in for the model's,
so the figures are estimates at default prices, not measurements of a real model.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import run_in_workdir  # noqa: E402

from pipeline.agents.requests import AgentRequests  # noqa: E402
from pipeline.context import ContextBundle, default_registry  # noqa: E402
from pipeline.estimate import TYPICAL_CALLS  # noqa: E402
from pipeline.planning.offline_replies import contracts_reply, plot_reply  # noqa: E402
from pipeline.planning.plan_volume import CONTRACT_BATCH, contracts_request, plan_request  # noqa: E402
from pipeline.planning.prompt_context import (  # noqa: E402
    PlanTarget,
    character_weaver_context,
    next_plan_target,
    plot_architect_context,
    plot_contracts_context,
    style_analyzer_context,
    world_builder_context,
)
from pipeline.providers.base import ModelRequest, Usage  # noqa: E402
from pipeline.providers.cost import cost_usd, price_for  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.init_project import init_project  # noqa: E402
from studio.models.contract import ChapterContract  # noqa: E402
from studio.models.volume_plan import VolumePlanReply  # noqa: E402
from studio.planning.chaining import state_before  # noqa: E402
from studio.planning.project_context import plan_context  # noqa: E402
from studio.project import Project  # noqa: E402

BRIEF = """# 创作纲领：《雁回镖局》

## 题材
武侠 / 江湖群像

## 核心卖点
落魄镖局少东家接连押送“不该押的镖”，每一趟都揭开一桩旧案。

## 主角
陆青山，二十岁，镖局少东家，刀法平平，记性极好，嘴上不饶人。

## 核心冲突
陆青山想保住父亲留下的镖局；押镖的规矩不许问货，可每一趟货都牵着人命。

## 风格基调
热血、轻快，对白多；第三人称限知。

## 禁忌与雷区
不写虐杀动物；不美化滥杀。
"""


@dataclass(frozen=True)
class Call:
    label: str
    model: str
    tiers: dict[str, int]
    input_tokens: int
    output_tokens: int
    usd: float


def measure(label: str, bundle: ContextBundle, request: ModelRequest) -> Call:
    reply = OfflineProvider().reply_text(request)
    tiers = {s.tier: estimate_tokens(s.text) for s in bundle.sections}
    usage = Usage(input_tokens=sum(tiers.values()), output_tokens=estimate_tokens(reply), estimated=True)
    usd = cost_usd(usage, price_for(request.model)) or 0.0
    return Call(label, request.model, tiers, usage.input_tokens or 0, usage.output_tokens or 0, usd)


def planning_calls(project: Project, target: PlanTarget) -> list[Call]:
    settings = load_settings(project.root)
    requests = AgentRequests(project, settings, default_registry())
    bundles = [
        ("world-builder", world_builder_context(project), "world_builder"),
        ("character-weaver", character_weaver_context(project), "character_weaver"),
        ("style-analyzer", style_analyzer_context(project), "style_analyzer"),
        (f"plot-architect ({target.last - target.first + 1} ch)", plot_architect_context(project, target=target), "plot_architect"),
    ]
    return [measure(label, bundle, requests.build(bundle, agent)) for label, bundle, agent in bundles]


def volume_plan_calls(project: Project, target: PlanTarget) -> list[Call]:
    """The outline call and every contract batch of a volume plan, as the planner sends them."""
    settings = load_settings(project.root)
    outline_request = plan_request(project, settings, target)
    calls = [measure("outline + schedule + threads", plot_architect_context(project, target=target), outline_request)]
    reply = plot_reply(outline_request.context)
    plan = VolumePlanReply.parse_data(reply).to_plan(target.volume, target.first, target.last)
    ctx = plan_context(project)
    numbers = list(plan.chapters())
    contracts: list[ChapterContract] = []
    for i in range(0, len(numbers), CONTRACT_BATCH):
        batch = numbers[i : i + CONTRACT_BATCH]
        before = state_before(contracts, ctx, batch[0])
        request = contracts_request(project, settings, plan, batch, before)
        bundle = plot_contracts_context(project, plan, batch, before)
        calls.append(measure(f"contracts ch{batch[0]}-{batch[-1]}", bundle, request))
        contracts += [ChapterContract.parse_data(c) for c in contracts_reply(request.context)["chapter_contracts"]]
    return calls


def trial_chapters(count: int) -> Call:
    settings_models = load_settings(None)
    tokens_in = tokens_out = 0
    usd = 0.0
    for agent, t_in, t_out in TYPICAL_CALLS:
        price = price_for(settings_models.model_for(agent))
        tokens_in += t_in * count
        tokens_out += t_out * count
        usd += (cost_usd(Usage(input_tokens=t_in, output_tokens=t_out), price) or 0.0) * count
    return Call(f"{count} trial chapters (typical calls)", "-", {}, tokens_in, tokens_out, usd)


def print_calls(title: str, calls: list[Call]) -> None:
    print(title)
    print(f"  {'call':<34} {'model':<18} {'stable':>7} {'volume':>7} {'chapter':>8} {'in':>7} {'out':>7} {'USD':>8}")
    for c in calls:
        print(
            f"  {c.label:<34} {c.model:<18} {c.tiers.get('stable', 0):>7} {c.tiers.get('volume', 0):>7} "
            f"{c.tiers.get('chapter', 0):>8} {c.input_tokens:>7} {c.output_tokens:>7} {c.usd:>8.4f}"
        )
    total_in = sum(c.input_tokens for c in calls)
    total_out = sum(c.output_tokens for c in calls)
    print(f"  {'total':<34} {'':<18} {'':>7} {'':>7} {'':>8} {total_in:>7} {total_out:>7} "
          f"{sum(c.usd for c in calls):>8.4f}")


def run(work: Path, volume_length: int) -> None:
    sample = Project.open(init_project(work / "sample", sample=True))
    calls = planning_calls(sample, next_plan_target(sample, volume_length))
    print_calls("(a) planning agents on the sample novel (estimated tokens, default prices)", calls)

    fresh_root = init_project(work / "fresh")
    (fresh_root / "brief.md").write_text(BRIEF, encoding="utf-8")
    fresh = Project.open(fresh_root)
    quick = planning_calls(fresh, PlanTarget(volume=1, first=1, last=3)) + [trial_chapters(3)]
    print()
    print_calls("(b) quick start on a fresh project with a filled brief", quick)

    print()
    target = next_plan_target(sample, volume_length)
    print_calls(
        f"(c) volume plan: {volume_length} chapters of volume 2 on the sample (outline call + contract batches)",
        volume_plan_calls(sample, target),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--volume-length", type=int, default=30)
    parser.add_argument("--keep", type=Path, help="build the projects in this folder and keep them")
    args = parser.parse_args(argv)
    run_in_workdir(args.keep, "bench-planning-", lambda work: run(work, max(1, args.volume_length)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
