"""Structural drift (issue 8 item 11): the shape of the story over chapters, from the Summarizer's tags.

The Summarizer tags each chapter (`prompts/summarizer.v1.md`; optional fields, so older replies and chapters
without tags still work) with:

- `chapter_function`: one of `FUNCTIONS` (setup, escalation, payoff, reversal, transition, breather, climax);
- `hook_type`: the chapter-end hook, one of `HOOKS` (cliffhanger, mystery, threat, reveal, promise, emotional,
  none);
- `emotional_beat`: the dominant beat, one of `BEATS` (tension, relief, triumph, loss, warmth, fear, anger,
  suspense, humor);
- `goal_progress`: whether the volume's goal moved: `advanced`, `setback` (moved, the wrong way) or `none`.

Free text outside a vocabulary is kept as written and compared as written. The tags reach the checks through the
chapter's Summarizer metadata (`studio.checks.story`). Kinds (all low: advice, never a pause):

- `structure_repeat`: the same hook type, or the same emotional beat, in `REPEAT_RUN` chapters in a row (one
  finding on the chapter that completes the run; `none` hooks are not a pattern);
- `structure_goal_stalled`: `goal_progress` is `none` for `STALL_RUN` chapters in a row;
- `structure_balance`: in the volume's schedule a storyline with `target_chapters` is far from its planned share
  of the chapters written so far (off by more than half and by `BALANCE_SLACK` chapters or more), checked once
  at least `BALANCE_MIN` chapters of the volume are written, at the last chapter checked (after a commit: on
  every `BALANCE_EVERY`th chapter).
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.checks.registry import CheckContext
from studio.checks.story import StoryFacts
from studio.checks.tags import normalise_tag
from studio.i18n import Catalog, tr
from studio.models.findings import Finding

REPEAT_RUN = 3
STALL_RUN = 5
BALANCE_MIN = 6
BALANCE_SLACK = 2
BALANCE_EVERY = 5

LABELS: dict[str, str] = {
    "cliffhanger": "悬崖式断章", "mystery": "悬念", "threat": "危机逼近", "reveal": "揭示", "promise": "预告",
    "emotional": "情感钩子", "tension": "紧张", "relief": "舒缓", "triumph": "爽点", "loss": "失落",
    "warmth": "温情", "fear": "恐惧", "anger": "愤怒", "suspense": "悬疑", "humor": "轻松",
}

MESSAGES: Catalog = {
    "hook_type": (
        "连续 {n} 章（第 {a}-{b} 章）都用同一种章末钩子「{value}」，读者会摸到套路",
        "the same chapter-end hook '{value}' {n} chapters in a row (chapters {a}-{b})",
    ),
    "emotional_beat": (
        "连续 {n} 章（第 {a}-{b} 章）的情绪基调都是「{value}」，节奏缺少起伏",
        "the same emotional beat '{value}' {n} chapters in a row (chapters {a}-{b})",
    ),
    "stalled": (
        "本卷目标已连续 {n} 章（第 {a}-{b} 章）没有推进",
        "the volume's goal has not moved for {n} chapters (chapters {a}-{b})",
    ),
    "balance": (
        "故事线「{line}」在本卷已写 {actual} 章，按计划（全卷 {target}/{planned} 章）此时应约 {expected} 章",
        "storyline '{line}' has {actual} of this volume's chapters so far; the plan ({target} of {planned}) "
        "expects about {expected}",
    ),
}


def _tag(story: StoryFacts, chapter: int, name: str) -> str | None:
    return normalise_tag(story.meta(chapter).get(name))


class StructureCheck:
    kind = "structure"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        story = ctx.story
        if story is None or not ctx.chapters:
            return []
        out: list[Finding] = []
        for chapter in ctx.chapters:
            n = chapter.number
            for name in ("hook_type", "emotional_beat"):
                run = [_tag(story, c, name) for c in range(n - REPEAT_RUN + 1, n + 1)]
                value = run[-1]
                # the run ends here and is exactly REPEAT_RUN long at its first completion
                if value and value != "none" and all(v == value for v in run) and _tag(story, n - REPEAT_RUN, name) != value:
                    out.append(Finding(
                        kind="structure_repeat", chapter=n, text=value,
                        message=tr(MESSAGES, name, ctx.lang, n=REPEAT_RUN, a=n - REPEAT_RUN + 1, b=n,
                                   value=LABELS.get(value, value) if ctx.lang == "zh" else value),
                    ))
            progress = [_tag(story, c, "goal_progress") for c in range(n - STALL_RUN + 1, n + 1)]
            if all(p == "none" for p in progress) and _tag(story, n - STALL_RUN, "goal_progress") != "none":
                out.append(Finding(
                    kind="structure_goal_stalled", chapter=n, text="goal_progress",
                    message=tr(MESSAGES, "stalled", ctx.lang, n=STALL_RUN, a=n - STALL_RUN + 1, b=n),
                ))
        now = max(c.number for c in ctx.chapters)
        if len(ctx.chapters) > 1 or now % BALANCE_EVERY == 0:  # after a commit: every few chapters is enough
            out += self._balance(ctx, story, now)
        return out

    def _balance(self, ctx: CheckContext, story: StoryFacts, now: int) -> list[Finding]:
        volume = story.volume_of(now)
        schedule = story.schedule(volume) if volume is not None else None
        if volume is None or schedule is None:
            return []
        chapters = story.volume_chapters(volume)
        committed = set(story.committed or chapters)
        written = [c for c in chapters if c <= now and c in committed]
        if len(written) < BALANCE_MIN:
            return []
        counts: dict[str, int] = {}
        for c in written:
            line = story.storyline(c)
            if line:
                counts[line] = counts.get(line, 0) + 1
        out: list[Finding] = []
        for entry in schedule.active_storylines:
            if not entry.target_chapters:
                continue
            expected = entry.target_chapters * len(written) / len(chapters)
            actual = counts.get(entry.storyline_id, 0)
            if abs(actual - expected) >= max(BALANCE_SLACK, expected / 2):
                planned = story.storylines.get(entry.storyline_id)
                out.append(Finding(
                    kind="structure_balance", chapter=now, text=entry.storyline_id,
                    message=tr(MESSAGES, "balance", ctx.lang, line=planned.name if planned else entry.storyline_id,
                               actual=actual, target=entry.target_chapters, planned=len(chapters),
                               expected=round(expected)),
                ))
        return out
