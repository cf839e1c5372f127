"""Reading and splitting a whole manuscript: the first half of the deterministic import (issue 10, ≤ 5 s in all).

    python bench/bench_import_split.py [--chars 3000000] [--chapter-chars 3000] [--runs 3] [--keep DIR]

Generates one TXT book of `--chars` 字 in a temporary folder (chapters of about `--chapter-chars` 字 with
`第N章 标题` headings, a `第N卷` heading every 100 chapters, a title page and a table of contents in front; prose
from a fixed sentence pool, seeded), saved as UTF-8 and as GB18030 (and the same book in traditional characters
as Big5, which must be told apart from GB18030; and the book with bare-number headings `0001 标题` as UTF-16
without a byte-order mark), and prints figures only (no asserts):
the median over `--runs` of `read_source` (stat, read, detect and decode), `split_manuscript` (headings, 字 per
chapter, issues) and `preview_lines` + `preview_data`, their sum, and the peak memory traced during one read +
split (tracemalloc, a separate pass because tracing slows the code down). Also one UTF-8 folder of chapter files.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_in_workdir  # noqa: E402

from studio.importing.preview import preview_data, preview_lines  # noqa: E402
from studio.importing.source import read_source  # noqa: E402
from studio.importing.split import split_manuscript  # noqa: E402
from studio.models.manuscript import Manuscript  # noqa: E402
from studio.wordcount import word_count  # noqa: E402

SENTENCES = [
    "他站在雾港的码头上，望着远处的灯塔。", "海风吹过来，带着咸湿的味道。", "“你真的要走吗？”她问。",
    "沈照没有回答，只是把手里的旧书抱得更紧了一些。", "灯塔的光一圈一圈扫过海面，像是在找什么人。",
    "师父说过，灯不能灭，人也不能走。", "远处传来汽笛声，渡船慢慢靠了岸。", "他想起那年冬天的雪，和雪里的那盏灯。",
    "街角的书店还亮着，老板娘在柜台后面打盹。", "“明天还来吗？”“来。”", "雨点打在窗上，噼里啪啦地响。",
    "她把信折好，放进了抽屉最里面。", "没有人知道灯塔里住着谁。", "石阶上长满了青苔，踩上去有些滑。",
]

# The same sentences in traditional characters, for the Big5 book (Big5 has no simplified characters).
TRADITIONAL = [
    "他站在霧港的碼頭上，望著遠處的燈塔。", "海風吹過來，帶著鹹濕的味道。", "「你真的要走嗎？」她問。",
    "沈照沒有回答，只是把手裡的舊書抱得更緊了一些。", "燈塔的光一圈一圈掃過海面，像是在找什麼人。",
    "師父說過，燈不能滅，人也不能走。", "遠處傳來汽笛聲，渡船慢慢靠了岸。", "他想起那年冬天的雪，和雪裡的那盞燈。",
    "街角的書店還亮著，老闆娘在櫃檯後面打盹。", "「明天還來嗎？」「來。」", "雨點打在窗上，劈里啪啦地響。",
    "她把信摺好，放進了抽屜最裡面。", "沒有人知道燈塔裡住著誰。", "石階上長滿了青苔，踩上去有些滑。",
]


def make_book(total_chars: int, chapter_chars: int, seed: int = 0, traditional: bool = False,
              bare: bool = False) -> str:
    """`bare`: chapter headings are bare numbers (`0001 灯下1`), as many web-novel exports write them."""
    rng = random.Random(seed)
    sentences = TRADITIONAL if traditional else SENTENCES
    book, lamp, name = ("霧港守燈人", "燈下", "卷名") if traditional else ("雾港守灯人", "灯下", "卷名")
    chapters = max(1, total_chars // chapter_chars)
    parts = [f"{book}\n作者：某某\n\n目錄\n" if traditional else f"{book}\n作者：某某\n\n目录\n",
             *(_heading(n, lamp, bare) for n in range(1, 4)), "\n"]
    for n in range(1, chapters + 1):
        if n % 100 == 1:
            parts.append(f"第{n // 100 + 1}卷 {name}{n // 100 + 1}\n")
        parts.append(_heading(n, lamp, bare))
        size = 0
        while size < chapter_chars:
            paragraph = "".join(rng.choice(sentences) for _ in range(rng.randint(2, 6)))
            parts.append(f"　　{paragraph}\n\n")
            size += len(paragraph)
    return "".join(parts)


def _heading(n: int, lamp: str, bare: bool) -> str:
    return f"{n:04d} {lamp}{n}\n" if bare else f"第{n}章 {lamp}{n}\n"


def median_s(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(path: Path, label: str, runs: int) -> None:
    read_s = median_s(lambda: read_source(path), runs)
    source = read_source(path)
    split_s = median_s(lambda: split_manuscript(source), runs)
    manuscript: Manuscript = split_manuscript(source)
    preview_s = median_s(lambda: (preview_lines(manuscript), preview_data(manuscript)), runs)
    tracemalloc.start()
    split_manuscript(read_source(path))
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size
    words = sum(c.words for c in manuscript.chapters)
    print(f"{label:<22} {size / 1e6:6.1f} MB  {len(manuscript.chapters):5d} ch  {words:>9,} 字  "
          f"read {read_s:5.2f} s  split {split_s:5.2f} s  preview {preview_s * 1000:5.1f} ms  "
          f"total {read_s + split_s + preview_s:5.2f} s  peak {peak / 1e6:6.1f} MB  "
          f"[{manuscript.encoding}, {len(manuscript.volumes)} volumes, {len(manuscript.issues)} issues]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=3_000_000)
    parser.add_argument("--chapter-chars", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="write the books here and keep them")
    args = parser.parse_args(argv)

    def run(work: Path) -> None:
        text = make_book(args.chars, args.chapter_chars)
        print(f"book: {word_count(text):,} 字 by studio.wordcount, {len(text):,} characters; "
              f"median of {args.runs} runs")
        for encoding in ("utf-8", "gb18030"):
            path = work / f"book-{encoding}.txt"
            path.write_bytes(text.encode(encoding))
            measure(path, f"TXT {encoding}", args.runs)
        big5 = work / "book-big5.txt"
        big5.write_bytes(make_book(args.chars, args.chapter_chars, traditional=True).encode("cp950"))
        measure(big5, "TXT big5", args.runs)
        bare = work / "book-bare-utf16.txt"  # bare-number headings, UTF-16 without a byte-order mark
        bare.write_bytes(make_book(args.chars, args.chapter_chars, bare=True).encode("utf-16-le"))
        measure(bare, "TXT utf-16 bare", args.runs)
        folder = work / "folder"
        folder.mkdir(exist_ok=True)
        for k, chunk in enumerate(text.split("\n第")[1:], start=1):
            (folder / f"{k:04d}.txt").write_text("第" + chunk, encoding="utf-8")
        measure(folder, "folder utf-8", args.runs)

    run_in_workdir(args.keep, "bench-import-split-", run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
