"""What the project's write log (`studio.write_log`) costs a write, and what reading it costs a watcher.

    python bench/bench_write_log.py [--writes 2000]

Prints figures only (no asserts), CPU time of this process (time.process_time) and wall time:
- one logged record alone (`write_log.record`: find the project, build the line, append it);
- an atomic write of a chapter-sized file (durable=False: no fsync, so the log's share is not hidden behind
  the disk) with the log and with the log switched off: the difference is the log's cost per write;
- a watcher's reader: a cold `refresh` of a full log (both parts, 2 x MAX_BYTES) and one `match` after it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from studio import write_log  # noqa: E402
from studio.fileio import atomic_write_bytes  # noqa: E402
from studio.write_log import WriteLogReader  # noqa: E402


def timed(fn: Callable[[], object], n: int) -> tuple[float, float]:
    """(CPU µs, wall µs) per call of `fn`, over `n` calls."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(n):
        fn()
    return (time.process_time() - cpu) / n * 1e6, (time.perf_counter() - wall) / n * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=2000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-write-log-") as work:
        root = Path(work) / "novel"
        (root / "chapters").mkdir(parents=True)
        (root / "novel-studio.toml").write_text('title = "bench"\n', encoding="utf-8")
        chapter = root / "chapters" / "chapter-001.md"
        text = ("沈照把灯账锁进了柜子。" * 300).encode("utf-8")  # ~9 KB, a chapter
        real = os.path.realpath(chapter)
        write_log.record(real, "write", "0" * 64)  # warm: the model is imported on the first record
        counter = iter(range(10**9))

        rec_cpu, rec_wall = timed(lambda: write_log.record(real, "write", f"{next(counter):064x}"), args.writes)
        on_cpu, on_wall = timed(lambda: atomic_write_bytes(chapter, text, durable=False), args.writes)
        saved = write_log.record
        write_log.record = lambda *a, **k: None
        try:
            off_cpu, off_wall = timed(lambda: atomic_write_bytes(chapter, text, durable=False), args.writes)
        finally:
            write_log.record = saved

        while sum(p.stat().st_size for p in write_log.log_paths(root) if p.is_file()) < 2 * write_log.MAX_BYTES:
            write_log.record(real, "write", f"{next(counter):064x}")
        lines = sum(len(p.read_bytes().splitlines()) for p in write_log.log_paths(root) if p.is_file())
        cpu, wall = time.process_time(), time.perf_counter()
        reader = WriteLogReader(root)
        reader.refresh()
        refresh_cpu, refresh_wall = (time.process_time() - cpu) * 1e3, (time.perf_counter() - wall) * 1e3
        match_cpu, match_wall = timed(lambda: reader.match(chapter, text), 200)

    print(f"write log costs ({args.writes} writes; CPU = process time, wall on a possibly loaded machine)")
    print(f"  one record                     {rec_cpu:7.1f} µs CPU  {rec_wall:7.1f} µs wall")
    print(f"  atomic write, log on           {on_cpu:7.1f} µs CPU  {on_wall:7.1f} µs wall  (durable=False)")
    print(f"  atomic write, log off          {off_cpu:7.1f} µs CPU  {off_wall:7.1f} µs wall")
    print(f"  the log's share of a write     {on_cpu - off_cpu:7.1f} µs CPU  {on_wall - off_wall:7.1f} µs wall")
    print(f"  reader: cold refresh of a full log ({lines} lines) {refresh_cpu:6.1f} ms CPU  {refresh_wall:6.1f} ms wall")
    print(f"  reader: one match after it     {match_cpu:7.1f} µs CPU  {match_wall:7.1f} µs wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
