"""Append to and read the spend ledger (`logs/spend.jsonl`, line format `studio.models.spend.SpendEntry`).

Appends go through `studio.fileio.append_line` (fsynced, recorded for the watcher). Reading never fails the
caller over one bad line: a torn last line (a kill mid-append) or a line that is not a ledger entry is
counted in `SpendTotals.unreadable_lines` (the first `UNREADABLE_KEPT` of their 1-based line numbers in the
file, blank lines counted, in `unreadable_at`) and left in the file, never dropped or rewritten: the totals
then lack those calls, and whoever shows them says the figure may be incomplete.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.fileio import append_line

if TYPE_CHECKING:
    # built where a line is written or read whole, not for the totals (`status`)
    from studio.models.spend import SpendEntry

UNREADABLE_KEPT = 20  # line numbers of unreadable lines kept (all are counted)


@dataclass(frozen=True)
class SpendTotals:
    """What (part of) the ledger adds up to. Token totals count every call, failed ones included."""

    cost_usd: float = 0.0
    input_tokens: int = 0  # uncached input
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    calls: int = 0
    failed_calls: int = 0
    unpriced_calls: int = 0  # real (not offline) calls whose model has no price
    unreadable_lines: int = 0
    unreadable_at: tuple[int, ...] = ()  # their line numbers (the first UNREADABLE_KEPT)
    # Calls whose vendor reported prompt-cache counts (offline and cache-blind vendors do not) and all their
    # input tokens: the cache share is measured over these calls only, so they never dilute it.
    cache_calls: int = 0
    cache_input_tokens: int = 0

    @property
    def cache_read_share(self) -> float | None:
        """The share of input served from the prompt cache over the calls that reported cache use, 0..1
        rounded to 3 decimals; None when no call did."""
        if not self.cache_input_tokens:
            return None
        return round(self.cache_read_tokens / self.cache_input_tokens, 3)

    @property
    def tokens_in(self) -> int:
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    @property
    def tokens_out(self) -> int:
        return self.output_tokens


def append_spend(path: Path, entry: SpendEntry) -> None:
    append_line(path, json.dumps(entry.to_data(), ensure_ascii=False, separators=(",", ":")))


def _numbered(path: Path) -> list[tuple[int, bytes]]:
    """The non-blank lines with their 1-based line numbers in the file."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    return [(number, line) for number, line in enumerate(raw.split(b"\n"), start=1) if line.strip()]


def _lines(path: Path) -> list[bytes]:
    return [line for _, line in _numbered(path)]


def read_spend(path: Path) -> tuple[list[SpendEntry], int]:
    """The readable entries in order and how many lines could not be read (a missing ledger is empty)."""
    from pydantic import ValidationError

    from studio.models.spend import SpendEntry

    entries: list[SpendEntry] = []
    bad = 0
    for line in _lines(path):
        try:
            entries.append(SpendEntry.model_validate(json.loads(line.decode("utf-8"))))
        except (UnicodeDecodeError, ValueError, ValidationError):
            bad += 1
    return entries, bad


def ledger_length(path: Path) -> int:
    """How many lines the ledger holds now (a mark for `spend_totals(path, start=...)`)."""
    return len(_lines(path))


_TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")


class _Sums:
    """Running sums over ledger lines (mutable; frozen into SpendTotals)."""

    __slots__ = ("cost", "tokens", "calls", "failed", "unpriced", "bad", "bad_at", "line", "cache_calls", "cache_in")

    def __init__(self) -> None:
        self.cost = 0.0
        self.tokens = [0, 0, 0, 0]
        self.calls = self.failed = self.unpriced = self.bad = 0
        self.bad_at: list[int] = []
        self.line = 0  # the line number of the line being summed
        self.cache_calls = self.cache_in = 0

    def copy(self) -> _Sums:
        other = _Sums()
        other.cost, other.tokens = self.cost, list(self.tokens)
        other.calls, other.failed, other.unpriced, other.bad = self.calls, self.failed, self.unpriced, self.bad
        other.cache_calls, other.cache_in = self.cache_calls, self.cache_in
        other.bad_at, other.line = list(self.bad_at), self.line
        return other

    def unreadable(self) -> None:
        self.bad += 1
        if len(self.bad_at) < UNREADABLE_KEPT:
            self.bad_at.append(self.line)

    def add(self, line: bytes) -> None:
        """Sum one line, checked the way `SpendEntry` checks it (a line it would refuse counts as unreadable)."""
        try:
            data = json.loads(line)
        except ValueError:  # UnicodeDecodeError included
            self.unreadable()
            return
        if not isinstance(data, dict) or not isinstance(data.get("at"), str):
            self.unreadable()
            return
        found: list[Any] = [data.get(name) or 0 for name in _TOKEN_FIELDS]
        price = data.get("cost_usd")
        ok = data.get("ok", True)
        if (
            any(type(v) is not int or v < 0 for v in found)
            or not isinstance(ok, bool)
            or (price is not None and (type(price) not in (int, float) or price < 0))
        ):
            self.unreadable()
            return
        self.calls += 1
        for i, value in enumerate(found):
            self.tokens[i] += value
        if price is None:
            self.unpriced += 0 if data.get("offline") is True else 1
        else:
            self.cost += float(price)
        self.failed += 0 if ok else 1
        if data.get("cache_read_tokens") is not None or data.get("cache_write_tokens") is not None:
            self.cache_calls += 1
            self.cache_in += found[0] + found[2] + found[3]

    def totals(self) -> SpendTotals:
        t = self.tokens
        return SpendTotals(round(self.cost, 6), t[0], t[1], t[2], t[3], self.calls, self.failed, self.unpriced,
                           self.bad, tuple(self.bad_at), cache_calls=self.cache_calls,
                           cache_input_tokens=self.cache_in)


# Append-only, so a ledger read before only needs its new lines: path -> (bytes summed, sums). Only whole
# lines are consumed (a torn tail is read again once it is complete); a file that shrank is read afresh.
_READ: dict[Path, tuple[int, _Sums]] = {}


def spend_totals(path: Path, *, start: int = 0) -> SpendTotals:
    """The spend of the ledger's lines from line `start` on (0: the whole book, read incrementally)."""
    path = Path(path)
    if start:
        sums = _Sums()
        for number, line in _numbered(path)[start:]:
            sums.line = number
            sums.add(line)
        return sums.totals()
    key = path.resolve()
    offset, sums = _READ.get(key, (0, _Sums()))
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, 2)
            if size < offset:
                offset, sums = 0, _Sums()
            fh.seek(offset)
            tail = fh.read()
    except FileNotFoundError:
        _READ.pop(key, None)
        return SpendTotals()
    sums = sums.copy()
    end = tail.rfind(b"\n") + 1  # whole lines only
    for line in tail[:end].split(b"\n")[:-1]:
        sums.line += 1
        if line.strip():
            sums.add(line)
    _READ[key] = (offset + end, sums)
    final = sums
    rest = tail[end:]
    if rest.strip():  # a torn last line: counted as unreadable now, summed once it is complete
        final = sums.copy()
        final.line += 1
        final.add(rest)
    return final.totals()
