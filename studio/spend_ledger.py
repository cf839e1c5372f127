"""Append to and read the spend ledger (`logs/spend.jsonl`, line format `studio.models.spend.SpendEntry`).

Appends go through `studio.fileio.append_line` (fsynced, recorded for the watcher). Reading never fails the
caller over one bad line: a torn last line (a kill mid-append) or a line that is not a ledger entry is
counted in `SpendTotals.unreadable_lines` and left in the file, never dropped or rewritten.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from studio.fileio import append_line
from studio.models.spend import SpendEntry


@dataclass(frozen=True)
class SpendTotals:
    """What the ledger adds up to. Token totals count every call, failed ones included."""

    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0
    failed_calls: int = 0
    unpriced_calls: int = 0  # real (not offline) calls whose model has no price
    unreadable_lines: int = 0


def append_spend(path: Path, entry: SpendEntry) -> None:
    append_line(path, json.dumps(entry.to_data(), ensure_ascii=False, separators=(",", ":")))


def read_spend(path: Path) -> tuple[list[SpendEntry], int]:
    """The readable entries in order and how many lines could not be read (a missing ledger is empty)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return [], 0
    entries: list[SpendEntry] = []
    bad = 0
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            entries.append(SpendEntry.model_validate(json.loads(line.decode("utf-8"))))
        except (UnicodeDecodeError, ValueError, ValidationError):
            bad += 1
    return entries, bad


def totals_of(entries: list[SpendEntry], unreadable: int = 0) -> SpendTotals:
    cost = 0.0
    tokens_in = tokens_out = failed = unpriced = 0
    for entry in entries:
        cost += entry.cost_usd or 0.0
        tokens_in += entry.tokens_in()
        tokens_out += entry.output_tokens or 0
        failed += 0 if entry.ok else 1
        unpriced += 1 if entry.cost_usd is None and not entry.offline else 0
    return SpendTotals(round(cost, 6), tokens_in, tokens_out, len(entries), failed, unpriced, unreadable)


def spend_totals(path: Path) -> SpendTotals:
    """The whole book's spend: everything the ledger at `path` records."""
    entries, bad = read_spend(path)
    return totals_of(entries, bad)
