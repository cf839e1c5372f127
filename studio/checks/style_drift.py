"""Style drift every `DRIFT_EVERY` chapters against the style profile (issue 8 item 9; seed 000 Layer 3 风格校准).

The window is the last `DRIFT_EVERY` chapters up to a chapter that is a multiple of `DRIFT_EVERY`; its metrics are
the one definitions of `studio.checks.metrics` (pooled: sentence length over all the window's sentences, dialogue
ratio and densities over all its 字数). A metric drifts when:

- `avg_sentence_length`: more than `SENTENCE_TOLERANCE` (relative) from the profile's;
- `dialogue_ratio`: more than `DIALOGUE_TOLERANCE` (absolute share) from the profile's;
- `forbidden_words`: any of the profile's forbidden words used in the window;
- `blacklist_hits_per_1k`: AI-blacklist hits above `BLACKLIST_CEILING` per 千字 (the profile has no baseline for
  it; the ceiling is the blacklist check's own density limit).

A metric the profile leaves unset is not compared. Each drift carries a concrete correction in Chinese (it is
injected into the writer's prompt). `check_after_commit` writes the result to `style-drift.json`
(`studio.models.style_drift`) on every `DRIFT_EVERY`th chapter: active with the drifts, or, when the window is back
on the baseline, `active: false` with no drifts (the author's own `directives` and unknown fields are kept).
`StyleDriftCheck` reports the same drifts as `style_drift` findings (low) and writes nothing: `novel-studio check`
stays read-only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from studio.checks.registry import ChapterText, CheckContext
from studio.i18n import Catalog, tr
from studio.models.findings import Finding
from studio.models.style_drift import Drift, StyleDrift
from studio.models.style_profile import StyleProfile
from studio.paths import ProjectPaths

DRIFT_EVERY = 5
SENTENCE_TOLERANCE = 0.25
DIALOGUE_TOLERANCE = 0.12
BLACKLIST_CEILING = 3.0

MESSAGES: Catalog = {
    "finding": ("风格偏移（第 {a}-{b} 章）：{directive}", "style drift (chapters {a}-{b}): {directive}"),
}


def window_of(chapter: int) -> tuple[int, int] | None:
    """The drift window ending at `chapter`, or None when `chapter` is not a multiple of `DRIFT_EVERY`."""
    if chapter < DRIFT_EVERY or chapter % DRIFT_EVERY:
        return None
    return chapter - DRIFT_EVERY + 1, chapter


def _forbidden(profile: StyleProfile, texts: Sequence[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for word in (w.strip() for w in profile.forbidden_words):
        if word:
            n = sum(t.count(word) for t in texts)
            if n:
                counts[word] = n
    return counts


def detect_drift(ctx: CheckContext, profile: StyleProfile, chapters: Sequence[ChapterText]) -> list[Drift]:
    """The drifts of `chapters` (one window) from `profile`; empty when on the baseline."""
    metrics = [ctx.metrics(c) for c in chapters if c.text]
    chars = sum(m.chars for m in metrics)
    if not chars:
        return []
    drifts: list[Drift] = []
    sentences = sum(m.sentence_count for m in metrics)
    base = profile.avg_sentence_length
    if base and sentences:
        current = round(sum(m.sentence_mean * m.sentence_count for m in metrics) / sentences, 1)
        if abs(current - base) > base * SENTENCE_TOLERANCE:
            longer = current > base
            drifts.append(Drift(
                metric="avg_sentence_length", baseline=base, current=current,
                directive=(
                    f"句子明显变长（近 {len(metrics)} 章平均 {current:g} 字，风格基线 {base:g} 字）：拆开长句，"
                    f"多用短句和动作句，回到 {base:g} 字左右的节奏"
                    if longer else
                    f"句子明显变短（近 {len(metrics)} 章平均 {current:g} 字，风格基线 {base:g} 字）：合并零碎短句，"
                    f"补足动作与环境的衔接，回到 {base:g} 字左右的节奏"
                ),
            ))
    ratio = profile.dialogue_ratio
    if ratio is not None:
        current_ratio = round(sum(m.dialogue_ratio * m.chars for m in metrics) / chars, 2)
        if abs(current_ratio - ratio) > DIALOGUE_TOLERANCE:
            more = current_ratio > ratio
            drifts.append(Drift(
                metric="dialogue_ratio", baseline=ratio, current=current_ratio,
                directive=(
                    f"对话占比偏高（近期 {current_ratio:.0%}，基线 {ratio:.0%}）：把部分对白改成动作、神态和叙述，"
                    "少用一问一答推进情节"
                    if more else
                    f"对话占比偏低（近期 {current_ratio:.0%}，基线 {ratio:.0%}）：让人物多开口，用对白交代信息和冲突，"
                    "减少大段叙述"
                ),
            ))
    forbidden = _forbidden(profile, [c.text for c in chapters])
    if forbidden:
        listed = "、".join(f"「{w}」（{n} 次）" for w, n in forbidden.most_common(5))
        drifts.append(Drift(
            metric="forbidden_words", baseline=0, current=sum(forbidden.values()),
            directive=f"用了风格档案禁用的词：{listed}；换成具体的动作、感官细节或人物自己的说法",
        ))
    per_1k = round(sum(m.blacklist.total for m in metrics) * 1000 / chars, 2)
    if per_1k > BLACKLIST_CEILING:
        top = Counter[str]()
        for m in metrics:
            top.update(m.blacklist.hits)
        words = "、".join(f"「{w}」" for w, _ in top.most_common(5))
        drifts.append(Drift(
            metric="blacklist_hits_per_1k", baseline=BLACKLIST_CEILING, current=per_1k,
            directive=f"AI 腔用词偏多（每千字 {per_1k:g} 次，上限 {BLACKLIST_CEILING:g}）：尤其是{words}，"
                      "换成具体描写，不要用套话概括情绪",
        ))
    return drifts


def _window_chapters(ctx: CheckContext, window: tuple[int, int]) -> list[ChapterText]:
    known = {c.number: c for c in (*ctx.reference, *ctx.chapters)}
    return [known[n] for n in range(window[0], window[1] + 1) if n in known]


def drift_at(ctx: CheckContext, chapter: int) -> tuple[tuple[int, int], list[Drift]] | None:
    """The window ending at `chapter` and its drifts; None when no window ends there or nothing to compare."""
    window = window_of(chapter)
    if window is None or ctx.story is None:
        return None
    chapters = _window_chapters(ctx, window)
    if not chapters:
        return None
    return window, detect_drift(ctx, ctx.story.style_profile, chapters)


def write_style_drift(paths: ProjectPaths, current: StyleDrift, chapter: int, window: tuple[int, int],
                      drifts: list[Drift]) -> StyleDrift | None:
    """Save the window's result to `style-drift.json` (see the module rules); None when nothing was written
    (on the baseline, and no active file to clear)."""
    if not drifts and not (paths.style_drift.is_file() and current.active):
        return None
    updated = current.model_copy(update={
        "generated_at_chapter": chapter, "window": window, "drifts": drifts, "active": bool(drifts),
    })
    updated = StyleDrift.model_validate(updated.to_data())
    updated.save(paths.style_drift)
    return updated


class StyleDriftCheck:
    kind = "style_drift"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        out: list[Finding] = []
        for chapter in ctx.chapters:
            found = drift_at(ctx, chapter.number)
            if found is None:
                continue
            (a, b), drifts = found
            for drift in drifts:
                out.append(Finding(
                    kind="style_drift", chapter=chapter.number, text=drift.metric, severity="low",
                    message=tr(MESSAGES, "finding", ctx.lang, a=a, b=b, directive=drift.directive),
                ))
        return out
