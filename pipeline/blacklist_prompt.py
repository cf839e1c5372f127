"""The AI blacklist as every prompt reads it: one line per tier, each saying what is allowed (the one renderer).

Every agent whose prompt holds the blacklist gets this text, rendered from the project's `ai-blacklist.json`:
the chapter writer (v2 `blacklist_rules`; v1 `ai_blacklist`), the style refiner, the quality judge and the
chapter fixer (`ai_blacklist`). The variable names differ by template; the text is the same for the same list
and chapter length (`pipeline.context` fills both names from `blacklist_rules`). `novel-studio blacklist show`
prints it too. The domain model (`studio.models.blacklist.AiBlacklist`) resolves what is enforced
(`enforced()`, `semantic_shapes()`); the wording for the models lives here, with the prompts.

A change of the wording changes the stable (cached) section of every prompt that holds the list, whatever
version a project pins: the pins fix a template's text, not the rendering of its variables. The chapter logs'
`section_hashes` show such a change, and the prompt cache is written again once.

The lines (Chinese, as the prompts are), each carrying its rule, since a template only says "follow each
line's rule" (chapter-writer v2 explains the tiers; older templates introduce the block with a heading):

- `零容忍`: the entries of a `zero_tolerance` category, whatever their tier (any use fails the chapter's gate,
  `pipeline.agents.judge_calibration`); they are left out of every other line;
- `禁用`: banned, counted everywhere; `平台敏感词` (banned, in a platform-sensitive category) gets the advice to
  say it another way;
- `叙述中禁用`: banned `narration_only` entries (dialogue may use them);
- `段首禁用` / `句首禁用`: banned entries counted only at that position;
- `限用`: limited entries grouped by rate, "每个每千字最多 N 次", followed by what that allows in a whole chapter
  at the configured length (`chapter_allowance`); narration-only and position-only limited entries say so in the
  line's label.
- `避免的句式`: the semantic categories' shapes (described to the model, never matched).

The per-chapter count is computed from the chapter's minimum length, the safe side: the checks count uses per
千字 of the text actually written (`studio.checks.prose`), so a chapter at its minimum length allows the
fewest. An allowance of 0 is said as "本章最好不用". Lines come in the order above; empty groups are left out;
an empty list renders as "" (the template's optional slot then says there is none).
"""

from __future__ import annotations

import math

from studio.models.blacklist import SENSITIVE_CATEGORIES, AiBlacklist, EnforcedEntry

__all__ = ["blacklist_rules", "chapter_allowance"]

_POSITION_LABEL = {"paragraph_start": "段首", "sentence_start": "句首"}


def chapter_allowance(rate: float, chapter_chars: int) -> int:
    """How many uses `rate` per 千字 allows in a chapter of `chapter_chars` characters (rounded down)."""
    return max(0, math.floor(rate * chapter_chars / 1000 + 1e-9))


def _scope(entry: EnforcedEntry) -> str:
    """Where an entry's uses count: "" everywhere, else a Chinese label prefix."""
    if entry.position is not None:
        return _POSITION_LABEL[entry.position]
    if entry.narration_only:
        return "叙述中"
    return ""


def _limited_lines(entries: list[EnforcedEntry], min_chars: int) -> list[str]:
    groups: dict[tuple[str, float], list[str]] = {}
    for e in entries:
        if e.tier == "limited" and e.rate is not None:
            groups.setdefault((_scope(e), e.rate), []).append(e.word)
    lines: list[str] = []
    for (scope, rate), words in sorted(groups.items(), key=lambda item: (item[0][1], item[0][0])):
        allowed = chapter_allowance(rate, min_chars)
        whole = f"按本章 {min_chars} 字算，每个全章最多 {allowed} 次" if allowed else "本章最好不用"
        note = "；对话里不计" if scope == "叙述中" else ""
        lines.append(f"{scope}限用（每个每千字最多 {rate:g} 次，{whole}{note}）：" + "、".join(words))
    return lines


def blacklist_rules(blacklist: AiBlacklist, min_chars: int) -> str:
    """The blacklist block of every prompt (see the module rules); `min_chars`: the chapter's minimum length
    (`writing.chapter_min_chars`), which the limited lines turn into a per-chapter count."""
    every = blacklist.enforced()
    entries = [e for e in every if not e.zero_tolerance]
    banned = [e for e in entries if e.tier == "banned"]
    lines: list[str] = []
    zero = [e.word for e in every if e.zero_tolerance]
    if zero:
        lines.append("零容忍（出现一次本章即判不合格，一次都不能有）：" + "、".join(zero))
    plain = [e for e in banned if _scope(e) == ""]
    general = [e.word for e in plain if e.category not in SENSITIVE_CATEGORIES]
    if general:
        lines.append("禁用（正文中一次都不要出现）：" + "、".join(general))
    sensitive = [e.word for e in plain if e.category in SENSITIVE_CATEGORIES]
    if sensitive:
        lines.append("平台敏感词（审核会拦，一次都不要出现，需要时换成含蓄说法）：" + "、".join(sensitive))
    narration = [e.word for e in banned if _scope(e) == "叙述中"]
    if narration:
        lines.append("叙述中禁用（叙述文字里一次都不要出现；人物对话里可以自然地说）：" + "、".join(narration))
    for where, label in _POSITION_LABEL.items():
        placed = [e.word for e in banned if e.position == where]
        if placed:
            lines.append(f"{label}禁用（不要放在{label}，别处可以用）：" + "、".join(placed))
    lines += _limited_lines(entries, min_chars)
    shapes = blacklist.semantic_shapes()
    if shapes:
        lines.append("避免的句式（包括换了词的同类说法）：" + "；".join(shapes))
    return "\n".join(lines)
