"""The blacklist's cost: what it adds to every prompt, and how fast it is matched.

    python bench/bench_blacklist.py [--entries 500] [--repeat 200]

Prints figures only (no asserts):
(a) estimated tokens (`pipeline.tokens`) of the list as the writer, refiner, judge and fixer read it
    (`pipeline.blacklist_prompt.blacklist_rules` at the default chapter length, in each agent's cached stable
    prefix) for the default list, the sample novel's and the reference plugin's fixture;
(b) building the matcher (`studio.checks.matcher.blacklist_matcher`) and matching one chapter of the sample
    (about 2,700 characters, placement flags included through `prose_metrics`' blacklist step), for the default
    list and for a list grown to `--entries` entries (a third of them shapes), median of `--repeat` runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.blacklist_prompt import blacklist_rules  # noqa: E402
from pipeline.tokens import estimate_tokens  # noqa: E402
from studio.checks.matcher import blacklist_matcher  # noqa: E402
from studio.checks.metrics import Paragraphs, blacklist_stats, dialogue_spans  # noqa: E402
from studio.models.blacklist import AiBlacklist, default_blacklist  # noqa: E402
from studio.models.settings import Settings  # noqa: E402


def _median_ms(func: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _grown(base: AiBlacklist, entries: int) -> AiBlacklist:
    grown = base.model_copy(deep=True)
    n = 0
    while len(grown.words) < entries:
        word = f"测{n}试{n % 7}…词{n % 11}" if n % 3 == 0 else f"套话{n}号"
        grown.add(word, "bench")
        n += 1
    return grown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    lists = {
        "default": default_blacklist(),
        "sample novel": AiBlacklist.load(ROOT / "templates" / "sample" / "ai-blacklist.json"),
        "plugin fixture": AiBlacklist.parse_data(
            json.loads((ROOT / "tests" / "fixtures" / "plugin-project" / "ai-blacklist.json").read_text("utf-8"))
        ),
    }
    print("(a) the list in every prompt's stable prefix")
    for name, bl in lists.items():
        text = blacklist_rules(bl, Settings().writing.chapter_min_chars)
        print(f"    {name:<15} {len(bl.enforced()):>4} entries, {len(text):>5} characters, {estimate_tokens(text):>5} tokens")

    chapter = (ROOT / "templates" / "sample" / "chapters" / "chapter-001.md").read_text(encoding="utf-8")
    paras = Paragraphs(chapter)
    spans = dialogue_spans(paras)
    body = [(p.start, p.end) for p in paras]
    print(f"\n(b) matching one sample chapter ({len(chapter):,} characters), median of {args.repeat} runs")
    for name, bl in (("default", lists["default"]), (f"{args.entries} entries", _grown(lists["default"], args.entries))):
        build = _median_ms(lambda bl=bl: blacklist_matcher(bl), max(10, args.repeat // 10))
        matcher = blacklist_matcher(bl)
        match = _median_ms(lambda m=matcher: blacklist_stats(chapter, m, spans, body), args.repeat)
        print(f"    {name:<15} build {build:6.2f} ms, match {match:6.3f} ms per chapter")


if __name__ == "__main__":
    main()
