"""How long reading the spend ledger takes (status, the header and `--max-cost` read it whole).

    python bench/bench_spend_ledger.py [--calls 3000 30000] [--runs 5]

Writes a ledger of N booked calls (about 6 per chapter: 3,000 is a 500-chapter novel) through
`append_spend`, then prints the append time per call and the median wall time of `spend_totals` cold (a fresh
process) and after one more append (the incremental read a running studio does). Figures only, no asserts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from studio import spend_ledger  # noqa: E402
from studio.models.spend import SpendEntry  # noqa: E402
from studio.spend_ledger import append_spend, spend_totals  # noqa: E402


def bench(calls: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as tmp:
        path = Path(tmp) / "logs" / "spend.jsonl"
        entry = SpendEntry(at="2026-11-22T10:00:00+08:00", stage="draft", agent="chapter_writer", chapter=1,
                           model="claude-sonnet-5-5", input_tokens=9800, output_tokens=4900, cache_write_tokens=2000,
                           cache_read_tokens=6000, cost_usd=0.1033, provider="anthropic")
        started = time.perf_counter()
        sample = min(calls, 200)  # appends fsync: time a sample, write the rest directly
        for _ in range(sample):
            append_spend(path, entry)
        per_append_ms = (time.perf_counter() - started) * 1000 / sample
        line = path.read_text(encoding="utf-8").splitlines()[0] + "\n"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line * (calls - sample))
        cold, warm = [], []
        for _ in range(runs):
            spend_ledger._READ.clear()  # noqa: SLF001 - a fresh process: nothing read yet
            t0 = time.perf_counter()
            totals = spend_totals(path)
            cold.append(time.perf_counter() - t0)
            append_spend(path, entry)  # one more call booked, as during a run
            t0 = time.perf_counter()
            totals = spend_totals(path)
            warm.append(time.perf_counter() - t0)
        print(f"ledger of {calls} calls ({path.stat().st_size / 1024:.0f} KiB): append {per_append_ms:.2f} ms/call "
              f"(fsync); spend_totals cold median {statistics.median(cold) * 1000:.1f} ms, after one more "
              f"append {statistics.median(warm) * 1000:.2f} ms ({runs} runs, {totals.calls} calls summed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, nargs="+", default=[3000, 30000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for calls in args.calls:
        bench(calls, args.runs)


if __name__ == "__main__":
    main()
