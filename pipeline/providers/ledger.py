"""`LedgerProvider`: the one seam where every model call is booked in the spend ledger.

It wraps any `Provider`; each `run` appends one `SpendEntry` to `logs/spend.jsonl` as the call ends: a reply
with its usage and cost, a failed call (any exception, cancellation included) with `ok=false`, the error's
kind and whatever usage the error carries (a truncated reply was paid for in full). Every agent, repair
round, stage retry, planning, review or rebuild call passes through `Provider.run`, so nothing is missed
and no call site books anything itself. Stage and chapter come from `ModelRequest.stage` / `.chapter`.

A ledger that cannot be written (disk full) is never a silent gap: after a successful call the append's
OSError reaches the caller (the run stops with the disk-full message, the chapter resumable); after a failed
call the call's own error wins and the failed append is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from pipeline.providers.base import ModelRequest, ModelResult, Provider, TextCallback, Usage
from pipeline.providers.cost import Price, cost_usd, price_for
from studio.models.checkpoint import now_iso
from studio.models.spend import SpendEntry
from studio.spend_ledger import append_spend


def spend_entry(
    request: ModelRequest,
    *,
    model: str,
    usage: Usage | None,
    cost: float | None,
    ok: bool,
    error: str | None,
    offline: bool,
    provider: str,
) -> SpendEntry:
    return SpendEntry(
        at=now_iso(),
        stage=request.stage,
        agent=request.agent,
        prompt_id=request.prompt_id,
        prompt_version=request.prompt_version,
        chapter=request.chapter,
        model=model,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
        cache_write_tokens=usage.cache_creation_input_tokens if usage else None,
        cache_read_tokens=usage.cache_read_input_tokens if usage else None,
        cost_usd=cost,
        ok=ok,
        error=error,
        offline=offline,
        provider=provider,
    )


class LedgerProvider:
    """A Provider that books each call of `inner` in the ledger at `ledger_path`."""

    def __init__(self, inner: Provider, ledger_path: Path, prices: Mapping[str, Price]) -> None:
        self.inner = inner
        self.ledger_path = Path(ledger_path)
        self.prices = dict(prices)
        self.name = inner.name
        self.offline = inner.offline

    def _book(self, request: ModelRequest, model: str, usage: Usage | None, *, ok: bool, error: str | None) -> None:
        price = None if self.offline else price_for(model, self.prices)
        # A failed call that reported no usage is booked at 0 tokens: unknown, but never invented.
        cost = 0.0 if self.offline else cost_usd(usage or Usage(), price)
        append_spend(
            self.ledger_path,
            spend_entry(request, model=model, usage=usage, cost=cost, ok=ok, error=error, offline=self.offline,
                        provider=self.name),
        )

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        try:
            result = await self.inner.run(request, on_text)
        except asyncio.CancelledError:
            self._book_failure(request, "cancelled", None)
            raise
        except Exception as exc:
            usage = getattr(exc, "usage", None)
            self._book_failure(request, str(getattr(exc, "kind", type(exc).__name__)),
                               usage if isinstance(usage, Usage) else None)
            raise
        self._book(request, result.model or request.model, result.usage, ok=True, error=None)
        return result

    def _book_failure(self, request: ModelRequest, kind: str, usage: Usage | None) -> None:
        try:
            self._book(request, request.model, usage, ok=False, error=kind)
        except OSError:
            pass  # the call's own error is what the author must see; the append failure is secondary

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


def _conforms(provider: LedgerProvider) -> Provider:
    """Static check (mypy): LedgerProvider is a Provider."""
    return provider
