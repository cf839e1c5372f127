"""One line of `logs/spend.jsonl`, the spend ledger: one model call, paid or failed.

The ledger is append-only and is the one book of what the novel cost: every call any agent made (drafts,
summaries, refines, judges, repair rounds, planning, review and rebuild calls, calls of a stage that then
failed), written by the provider wrapper `pipeline.providers.ledger.LedgerProvider` as the call ends.
Undo, rebuild and discarding staged work never remove a line: money once spent stays spent.

Fields: `at` (ISO time the call ended), `stage` (draft, summarize, refine, polish, judge, repair ...; None
when the caller named none), `agent`, `prompt_id`/`prompt_version`, `chapter` (None for calls of no chapter),
`model`, token counts (`input_tokens` uncached, `output_tokens`, `cache_write_tokens`, `cache_read_tokens`;
None when the vendor did not say), `cost_usd` (None when the model has no price), `ok`, `error` (the
ProviderError kind of a failed call), `offline`, `provider`.
"""

from __future__ import annotations

from pydantic import Field

from studio.models.base import FileModel


class SpendEntry(FileModel):
    at: str
    stage: str | None = None
    agent: str = ""
    prompt_id: str | None = None
    prompt_version: str | None = None
    chapter: int | None = Field(default=None, ge=0)
    model: str = ""
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cache_write_tokens: int | None = Field(default=None, ge=0)
    cache_read_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    ok: bool = True
    error: str | None = None
    offline: bool = False
    provider: str = ""

    def tokens_in(self) -> int:
        """All input tokens: uncached + cache writes + cache reads (unknown counts as 0)."""
        return (self.input_tokens or 0) + (self.cache_write_tokens or 0) + (self.cache_read_tokens or 0)
