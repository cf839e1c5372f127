"""A ledger line torn by a kill does not take the next call down with it (issue 11, trying to break the spend
ledger): the next append starts a line of its own, so its cost is counted (it was glued onto the torn bytes and
dropped out of the book's total, where `--max-cost` could not see it). The torn bytes stay in the file."""

from __future__ import annotations

from pathlib import Path

from studio.fileio import append_line
from studio.models.spend import SpendEntry
from studio.spend_ledger import append_spend, read_spend, spend_totals


def _entry(cost: float) -> SpendEntry:
    return SpendEntry.model_validate(
        {"at": "2026-11-23T09:00:00+00:00", "stage": "draft", "agent": "chapter_writer", "chapter": 3,
         "model": "claude-x", "input_tokens": 100, "output_tokens": 50, "cost_usd": cost, "ok": True}
    )


def test_a_call_after_a_torn_line_is_still_counted(tmp_path: Path) -> None:
    ledger = tmp_path / "logs" / "spend.jsonl"
    append_spend(ledger, _entry(0.25))
    with open(ledger, "ab") as fh:  # a kill in the middle of the next append
        fh.write(b'{"at":"2026-11-23T09:01:00+00:00","stage":"judge","cost_usd":0.')
    torn = ledger.read_bytes()
    append_spend(ledger, _entry(0.5))

    entries, bad = read_spend(ledger)
    assert [e.cost_usd for e in entries] == [0.25, 0.5]
    assert bad == 1  # the torn line is counted as unreadable, not dropped
    assert ledger.read_bytes().startswith(torn)
    assert spend_totals(ledger).cost_usd == 0.75


def test_a_whole_last_line_gets_no_blank_line_before_the_next(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    append_line(log, "{}")
    append_line(log, "[]")
    assert log.read_bytes() == b"{}\n[]\n"
