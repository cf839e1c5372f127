"""The offline Summarizer's reply shape, shared by the writing loop's offline provider and the import's
offline extraction (one definition of how the storyline memory is rolled: the chapter's line appended, the
oldest lines dropped, a leading `#` heading kept, at most `MEMORY_CHARS` characters)."""

from __future__ import annotations

from typing import Any

MEMORY_CHARS = 500


def cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the last one an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rolled_summary(ctx: dict[str, Any], chapter: int, summary: str, ops: list[dict[str, Any]],
                     default_storyline: str) -> dict[str, Any]:
    """A SummarizerReply-shaped dict for `chapter`, with the storyline memory of `ctx` rolled on."""
    lines = [line for line in str(ctx.get("storyline_memory") or "").splitlines() if line.strip()]
    lines.append(f"- 第{chapter}章：{cut(summary, 80)}")
    while len("\n".join(lines)) > MEMORY_CHARS and len(lines) > 1:
        lines.pop(1 if lines[0].startswith("#") and len(lines) > 2 else 0)
    return {
        "chapter": chapter,
        "storyline_id": ctx.get("storyline_id") or default_storyline,
        "summary": summary,
        "ops": ops,
        "storyline_memory": cut("\n".join(lines), MEMORY_CHARS),
        "cross_references": [],
        "leak_risk": "low",
    }
