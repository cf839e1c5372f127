"""Tokens and cost of an import's full depth per 100 chapters (issue 10, Performance): offline estimates at the
default prices, with the prompt cache.

`python bench/bench_import_cost.py [--chapters 100] [--chars 3000] [--run] [--keep DIR]` writes a synthetic TXT
(`bench/synth.py`'s prose, `第N章 标题` headings), imports it with the real import (read, split, write), then
prints `pipeline.importing.extract.estimate_extraction` at `pipeline.providers.cost.DEFAULT_PRICES` (the
settings' default models): the per-chapter Summarizer (its stable prefix written to the prompt cache once and
read after that), the once-per-book cast and style passes, the total, and the same scaled to 100 chapters; and,
for comparison, the Summarizer's cost if nothing were cached.

With `--run`, the whole extraction also runs offline and the spend ledger's token counts (estimated from the
offline replies: the offline provider counts every input token as uncached) are printed next to the estimate.
Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import run_in_workdir  # noqa: E402
from synth import chapter_text, chapter_title  # noqa: E402

from pipeline.decisions import take_recommended  # noqa: E402
from pipeline.importing.extract import SUMMARY_STAGE, estimate_extraction, run_extraction  # noqa: E402
from pipeline.providers.cost import price_for, settings_prices  # noqa: E402
from pipeline.providers.ledger import LedgerProvider  # noqa: E402
from pipeline.providers.offline import OfflineProvider  # noqa: E402
from studio.config import load_settings  # noqa: E402
from studio.importing.build import write_project  # noqa: E402
from studio.importing.source import read_source  # noqa: E402
from studio.importing.split import split_manuscript  # noqa: E402
from studio.paths import ProjectPaths  # noqa: E402
from studio.spend_ledger import read_spend  # noqa: E402


def write_book(path: Path, chapters: int, chars: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    parts = []
    for n in range(1, chapters + 1):
        body = chapter_text(rng, n, chars)
        body = "\n".join(line for line in body.splitlines() if not line.startswith("#")).strip()
        parts.append(f"第{n}章 {chapter_title(n)}\n\n{body}")
    path.write_text("\n\n".join(parts) + "\n", encoding="utf-8")


def bench(work: Path, chapters: int, chars: int, run: bool) -> None:
    source = work / "book.txt"
    write_book(source, chapters, chars)
    root = work / "book"
    started = time.perf_counter()
    write_project(split_manuscript(read_source(source)), source, root)
    print(f"imported {chapters} chapters of about {chars} 字 in {time.perf_counter() - started:.1f} s")
    settings = load_settings(root)
    e = estimate_extraction(root, settings)
    scale = 100 / e.chapters
    summaries = e.cost_usd - e.survey_usd - e.style_usd
    price = price_for(settings.model_for("summarizer"), settings_prices(settings))
    uncached = summaries + (e.cached_input_tokens * ((price.input - price.cache_read) if price else 0)) / 1e6
    print(f"models: summarizer {settings.model_for('summarizer')}, cast pass {settings.model_for('character_weaver')},"
          f" style {settings.model_for('style_analyzer')} (default prices)")
    print(f"{'':28}{'input tok':>12}{'cached':>12}{'output tok':>12}{'USD':>10}")
    print(f"{'whole book':28}{e.input_tokens:>12,}{e.cached_input_tokens:>12,}{e.output_tokens:>12,}"
          f"{e.cost_usd:>10.2f}")
    print(f"{'per 100 chapters':28}{round(e.input_tokens * scale):>12,}{round(e.cached_input_tokens * scale):>12,}"
          f"{round(e.output_tokens * scale):>12,}{e.cost_usd * scale:>10.2f}")
    print(f"  summarizer per chapter: ${e.per_chapter_usd:.4f}  (x{e.chapters} = ${summaries:.2f}; "
          f"without the prompt cache ${uncached:.2f})")
    print(f"  once per book: cast pass ${e.survey_usd:.4f}, style pass ${e.style_usd:.4f}")
    if not run:
        return
    provider = LedgerProvider(OfflineProvider(delay_s=0), ProjectPaths(root).spend_ledger, settings_prices(settings))
    started = time.perf_counter()
    result = asyncio.run(run_extraction(root, settings, provider, take_recommended, offline=True, confirmed=True))
    took = time.perf_counter() - started
    entries, _ = read_spend(ProjectPaths(root).spend_ledger)
    tokens_in = sum(x.input_tokens or 0 for x in entries)
    tokens_out = sum(x.output_tokens or 0 for x in entries)
    per = [x for x in entries if x.stage == SUMMARY_STAGE]
    print(f"offline run: {result.status} through chapter {result.extracted_through} in {took:.1f} s, {len(entries)} calls;"
          f" ledger {tokens_in:,} input / {tokens_out:,} output tokens (offline replies, all input uncached);"
          f" summarizer {len(per)} calls")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chapters", type=int, default=100)
    parser.add_argument("--chars", type=int, default=3000)
    parser.add_argument("--run", action="store_true", help="also run the extraction offline")
    parser.add_argument("--keep", type=Path, default=None, help="work in DIR and keep it")
    args = parser.parse_args(argv)
    run_in_workdir(args.keep, "bench-import-cost-", lambda work: bench(work, args.chapters, args.chars, args.run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
