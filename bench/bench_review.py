"""The volume review on a synthetic volume (issue 7 item 5): how long the deterministic part takes, and the
tokens and cost of the one model call.

`python bench/bench_review.py [--chapters 50] [--repeat 5] [--keep DIR]` prints figures only:

- (a) the deterministic part on volume 1 of a synthetic project (`bench/synth.py`, 50 chapters a volume):
  `build_review` (chapters, scores, threads, storylines, violations, findings), `render_review` (the
  Markdown) and `cleanup_proposal`, median and max wall time over `--repeat` runs;
- (b) the review call: the prompt's estimated tokens by cache tier, the output budget, the upper-bound cost at
  `pipeline.providers.cost.DEFAULT_PRICES` (what `review` prints before the call), and the offline reply's
  estimated tokens with the cost of such a reply.

Token counts are `pipeline.tokens.estimate_tokens` estimates; the offline reply stands in for the model's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import run_in_workdir  # noqa: E402
from synth import generate_project  # noqa: E402

from pipeline.agents.runner import request_text  # noqa: E402
from pipeline.planning.review import estimate_review_cost, review_bundle, review_request  # noqa: E402
from pipeline.providers.base import Usage  # noqa: E402
from pipeline.providers.cost import cost_usd, price_for  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.planning.review_cleanup import cleanup_proposal  # noqa: E402
from studio.planning.review_report import build_review, render_review  # noqa: E402
from studio.project import Project  # noqa: E402


def _timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    times: list[float] = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times)


def run(work: Path, chapters: int, repeat: int) -> None:
    root = work / "novel"
    if not (root / ".checkpoint.json").is_file():
        generate_project(root, chapters)
    project = Project.open(root)
    settings = load_settings(root)
    review = build_review(project, 1)
    print(f"(a) deterministic part, volume 1 of a synthetic project ({len(review.chapters)} chapters, "
          f"{review.words} chars), {repeat} runs")
    print(f"  {'step':<18} {'median ms':>10} {'max ms':>8}")
    for label, fn in (
        ("build_review", lambda: build_review(project, 1)),
        ("render_review", lambda: render_review(review, "zh")),
        ("cleanup_proposal", lambda: cleanup_proposal(project, 1)),
    ):
        median, worst = _timed(fn, repeat)
        print(f"  {label:<18} {median:>10.1f} {worst:>8.1f}")
    bundle = review_bundle(project, review)
    request = review_request(project, settings, review)
    prompt = estimate_tokens(request_text(request))
    upper = estimate_review_cost(request, settings, offline=False)
    reply = OfflineProvider(delay_s=0).reply_text(request)
    out = estimate_tokens(reply)
    typical = cost_usd(Usage(input_tokens=prompt, output_tokens=out), price_for(request.model)) or 0.0
    tiers = {s.tier: estimate_tokens(s.text) for s in bundle.sections}
    print()
    print(f"(b) the review call ({request.model}, default prices)")
    print(f"  prompt tokens: {prompt} (stable {tiers.get('stable', 0)}, chapter {tiers.get('chapter', 0)})")
    print(f"  output budget: {request.max_tokens} tokens -> upper bound ${upper:.4f} (printed before the call)")
    print(f"  offline reply: {out} tokens -> ${typical:.4f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--chapters", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="work folder to keep (default: a temp folder)")
    args = parser.parse_args(argv)
    run_in_workdir(args.keep, "bench-review-", lambda work: run(work, args.chapters, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
