"""Tokens and cost of a quick start (issue 7 item 2): the real flow, offline, every request measured.

`python bench/bench_quick_start.py [--style write|samples|reference|preset] [--keep DIR]` runs
`pipeline.planning.quick_start.run_quick_start` on a fresh project with a filled brief, with the offline provider
behind a recorder, and prints one line per model call (step, agent, model, estimated input and output tokens,
cost at `pipeline.providers.cost.DEFAULT_PRICES`), then per step and the total.

Input tokens are `pipeline.tokens.estimate_tokens` of everything the request sends, all of it counted as
uncached (an upper bound: a real run reads the stable tiers from the cache); output tokens are the estimate of
the offline reply, which stands in for the model's. So these are offline estimates at default prices, not
measurements of a real model. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import run_in_workdir  # noqa: E402

from pipeline.agents.runner import request_text  # noqa: E402
from pipeline.decisions import take_recommended  # noqa: E402
from pipeline.events import Event, QuickStartStep  # noqa: E402
from pipeline.planning.quick_start import run_quick_start  # noqa: E402
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage  # noqa: E402
from pipeline.providers.cost import DEFAULT_PRICES, cost_usd, price_for  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio.author_brief import brief_from_answers  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.fileio import atomic_write_text  # noqa: E402
from studio.init_project import init_project  # noqa: E402
from studio.models.quick_start import TONE_PRESETS, QuickStartRequest  # noqa: E402

BRIEF = {
    "genre": "武侠 / 江湖群像",
    "selling_points": "落魄镖局少东家接连押送“不该押的镖”，每一趟都揭开一桩旧案",
    "protagonist": "陆青山，二十岁，镖局少东家，刀法平平，记性极好，嘴上不饶人",
    "conflict": "押镖的规矩不许问货，可每一趟货都牵着人命",
    "tone": "热血、轻快，对白多；第三人称限知",
    "taboos": "不写虐杀动物；不美化滥杀",
}
SAMPLE = (
    "# 第一章\n\n雨下到后半夜才停。陆青山把最后一口镖箱钉死，回头看了一眼黑着灯的堂屋。\n\n"
    "“少东家，这趟货不对劲。”老周压低了嗓子。\n\n“规矩是不问。”陆青山说，“可没说不许看。”\n\n"
    "他蹲下去，用刀尖挑开箱缝。里头没有银子，只有一只还在动的布袋。\n"
) * 4


@dataclass
class Measured:
    step: str
    agent: str
    model: str
    input_tokens: int
    output_tokens: int

    @property
    def usd(self) -> float:
        usage = Usage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)
        return cost_usd(usage, price_for(self.model, DEFAULT_PRICES)) or 0.0


class Recorder:
    """The offline provider, with every request and reply measured."""

    name = "offline-recorder"
    offline = True

    def __init__(self) -> None:
        self.inner = OfflineProvider()
        self.step = "-"
        self.calls: list[Measured] = []

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        result = await self.inner.run(request, on_text)
        self.calls.append(Measured(self.step, request.agent, request.model, estimate_tokens(request_text(request)),
                                   estimate_tokens(result.text)))
        return result


def quick_start(work: Path, style: str) -> list[Measured]:
    root = init_project(work / "novel")
    atomic_write_text(root / "brief.md", brief_from_answers("雁回镖局", BRIEF))
    sample = work / "sample.md"
    atomic_write_text(sample, SAMPLE)
    request = QuickStartRequest(
        style_source=style,
        sample_paths=[str(sample)] if style == "samples" else [],
        reference_author="古龙" if style == "reference" else "",
        preset=TONE_PRESETS[1] if style == "preset" else "",
    )
    recorder = Recorder()

    def on_event(event: Event) -> None:
        if isinstance(event, QuickStartStep) and event.status == "started":
            recorder.step = event.step

    settings = load_settings(root)
    outcome = asyncio.run(run_quick_start(root, settings, recorder, request, take_recommended, on_event,
                                          offline=False))
    if outcome.status != "confirmed":
        raise SystemExit(f"the quick start did not finish: {outcome.status} {outcome.message}")
    return recorder.calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--style", choices=["write", "samples", "reference", "preset"], default="write")
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    style = "write_then_extract" if args.style == "write" else args.style
    calls: list[Measured] = []
    run_in_workdir(args.keep, "bench-quick-start-", lambda work: calls.extend(quick_start(work, style)))
    print(f"quick start, style source {style}: {len(calls)} model calls (offline estimates at default prices, "
          "input counted uncached)")
    print(f"{'step':<11}{'agent':<18}{'model':<20}{'in tok':>9}{'out tok':>9}{'USD':>9}")
    for c in calls:
        print(f"{c.step:<11}{c.agent:<18}{c.model:<20}{c.input_tokens:>9}{c.output_tokens:>9}{c.usd:>9.4f}")
    by_step: dict[str, list[Measured]] = defaultdict(list)
    for c in calls:
        by_step[c.step].append(c)
    print("\nper step")
    for step, items in by_step.items():
        print(f"{step:<11}{len(items):>3} calls {sum(c.input_tokens for c in items):>9} in "
              f"{sum(c.output_tokens for c in items):>8} out  ${sum(c.usd for c in items):.4f}")
    total_in = sum(c.input_tokens for c in calls)
    total_out = sum(c.output_tokens for c in calls)
    print(f"\ntotal      {len(calls):>3} calls {total_in:>9} in {total_out:>8} out  ${sum(c.usd for c in calls):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
