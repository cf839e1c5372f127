"""The deterministic import of a big TXT: read + split + write + names (the 5-second budget of issue 10), then the
metrics and checks that run after it.

    python bench/bench_import.py [--chars 3000000] [--chapter-chars 3000] [--encoding utf-8|gb18030] [--keep DIR]

Builds a TXT of `--chars` characters (chapters of bench/synth.py's prose, a volume heading every 250 chapters, in
`--encoding`), then imports it into a new project the way `novel-studio import --yes --skip-checks` does and
prints each step's wall time and CPU time (the machine may be shared: CPU time is the steadier figure):

1. read_source (decode), 2. split_manuscript, 3. write_project (the chapters, outlines, checkpoint, record;
fsync once for the whole batch), 4. overview (字数 and candidate names: jieba on a sample, counted everywhere);
the sum of 1-4 is the budgeted part (goal <= 5 s for 3M 字);
5. check_book (prose metrics and the cheap checks over every chapter, written to logs/): after the import.
Figures only, no asserts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from _common import run_in_workdir  # noqa: E402
from synth import chapter_text  # noqa: E402

from studio.importing.build import write_project  # noqa: E402
from studio.importing.deterministic import check_book, overview  # noqa: E402
from studio.importing.source import read_source  # noqa: E402
from studio.importing.split import split_manuscript  # noqa: E402

T = TypeVar("T")
CHAPTERS_PER_VOLUME = 250
BUDGET_S = 5.0


def build_txt(path: Path, chars: int, chapter_chars: int, encoding: str, seed: int = 0) -> tuple[int, int]:
    """Write the book; (chapters, characters)."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    n = 0
    while total < chars:
        n += 1
        if n % CHAPTERS_PER_VOLUME == 1:
            lines.append(f"第{n // CHAPTERS_PER_VOLUME + 1}卷 第{n}章起")
        body = chapter_text(rng, n, chapter_chars).split("\n", 2)[2]  # without synth's own `# 第N章` heading
        lines += [f"第{n}章 风起第{n}回", body]
        total += len(body)
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return n, total


def timed(label: str, fn: Callable[[], T], rows: list[tuple[str, float, float]]) -> T:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    rows.append((label, time.perf_counter() - wall, time.process_time() - cpu))
    print(f"  {label:<34} {rows[-1][1]:6.2f} s wall  {rows[-1][2]:6.2f} s cpu", flush=True)
    return result


def bench(work: Path, chars: int, chapter_chars: int, encoding: str) -> None:
    src = work / "book.txt"
    chapters, total = build_txt(src, chars, chapter_chars, encoding)
    size = src.stat().st_size / 1e6
    print(f"book: {chapters} chapters, {total:,} characters, {size:.1f} MB {encoding}")
    root = work / "project"
    rows: list[tuple[str, float, float]] = []
    source = timed("1. read_source", lambda: read_source(src), rows)
    manuscript = timed("2. split_manuscript", lambda: split_manuscript(source), rows)
    record = timed("3. write_project", lambda: write_project(manuscript, src, root), rows)
    report, names = timed("4. overview (字数 + names)", lambda: overview(root, 1, record.last_chapter), rows)
    wall = sum(r[1] for r in rows)
    cpu = sum(r[2] for r in rows)
    verdict = "within" if wall <= BUDGET_S else "OVER"
    print(f"  {'import (1-4)':<34} {wall:6.2f} s wall  {cpu:6.2f} s cpu   {verdict} the {BUDGET_S:.0f} s budget")
    print(f"  names: {len(names)} candidates, top: {'、'.join(n.name for n in names[:8])}")
    after: list[tuple[str, float, float]] = []
    checked = timed("5. check_book (metrics + checks)", lambda: check_book(root, report), after)
    findings = sum(checked.findings.values())
    print(f"  checks: {findings} findings {dict(checked.findings)}; deferred to `check`: {checked.deferred}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=3_000_000)
    parser.add_argument("--chapter-chars", type=int, default=3000)
    parser.add_argument("--encoding", choices=["utf-8", "gb18030"], default="utf-8")
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    args = parser.parse_args(argv)
    run_in_workdir(args.keep, "bench-import-",
                   lambda work: bench(work, args.chars, args.chapter_chars, args.encoding))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
