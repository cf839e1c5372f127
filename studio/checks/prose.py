"""Prose checks on top of `studio.checks.metrics`: chapter length, blacklist use and density, structural tics.

Thresholds (seed 000 section 7 L4 for the limited tier; the rest are conservative so a normal chapter is quiet):

- `chapter_length`: 字数 outside `[writing] chapter_min_chars..chapter_max_chars`; an empty chapter is
  `empty_chapter` (medium); a chapter over `HUGE_CHARS` is reported and its other checks still run.
- `blacklist`: each banned entry used in a chapter (one finding per entry: count, first place). Its severity is
  its category's (`ai-blacklist.json`): a zero-tolerance category's hits are high, platform-sensitive (平台敏感)
  medium, others low. Hits a category's flags discount (narration-only words in dialogue, paragraph-start words
  elsewhere) are not counted (`studio.checks.matcher.placed`). Limited entries: one `blacklist_density` finding
  per entry whose uses exceed its rate per 千字 (its own, its category's or the file's `limited_rate`, default
  `LIMITED_PER_1K`), naming the rate.
- `structural_tic`: 不是X而是Y at least `NOT_BUT_MIN` times; dash pairs over `DASH_PER_1K` per 千字; triple
  parallel clauses at least `TRIPLE_MIN` times; the same sentence opening 3 times in 5 sentences at least
  `OPENING_MIN_WINDOWS` times; a 5-character phrase repeated at least `PHRASE_MIN_COUNT` times (names excluded;
  at most `PHRASE_MAX_FINDINGS` per chapter).
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.checks.matcher import Match
from studio.checks.metrics import per_1k
from studio.checks.registry import CheckContext
from studio.i18n import Catalog, chars_text, tr
from studio.models.findings import Finding, Severity

HUGE_CHARS = 200_000
LIMITED_PER_1K = 3.0
NOT_BUT_MIN = 2
DASH_PER_1K = 6.0
TRIPLE_MIN = 2
OPENING_MIN_WINDOWS = 2
PHRASE_MIN_COUNT = 4
PHRASE_MAX_FINDINGS = 3
SENSITIVE = frozenset({"platform-sensitive", "平台敏感"})

MESSAGES: Catalog = {
    "empty": ("没有正文", "no body text"),
    "short": ("本章 {chars}，少于目标下限 {min}", "{chars}, under the target minimum {min}"),
    "long": ("本章 {chars}，超过目标上限 {max}", "{chars}, over the target maximum {max}"),
    "huge": (
        "本章 {chars}，异常地长，请确认文件是否正确",
        "{chars}: unusually long, check the file",
    ),
    "banned": (
        "「{text}」在 AI 腔黑名单中（{category}，本章 {count} 次）",
        "'{text}' is on the AI-phrase blacklist ({category}, {count} in this chapter)",
    ),
    "density": (
        "限用词「{text}」本章 {count} 次，每千字 {density} 次，超过限额 {limit} 次",
        "limited phrase '{text}': {count} in this chapter, {density} per 1,000 characters, over its limit {limit}",
    ),
    "not_but": (
        "「不是……而是……」句式本章 {count} 次",
        "'不是…而是…' construction {count} times in this chapter",
    ),
    "dash": ("破折号每千字 {density} 处，偏多", "{density} dashes per 1,000 characters: too many"),
    "triple": (
        "三连排比本章 {count} 处（以「{text}」开头）",
        "{count} triple parallel clauses (opening '{text}')",
    ),
    "openings": (
        "连续五句中有三句以「{text}」开头，本章 {count} 处",
        "3 of 5 sentences open with '{text}', {count} times",
    ),
    "phrase": ("「{text}」本章重复 {count} 次", "'{text}' repeated {count} times in this chapter"),
}


class LengthCheck:
    kind = "chapter_length"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        out = []
        for ch in ctx.chapters:
            m = ctx.metrics(ch)
            if m.chars == 0:
                out.append(
                    ch.finding(
                        "empty_chapter", None, "", severity="medium", message=tr(MESSAGES, "empty", ctx.lang)
                    )
                )
            elif m.chars > HUGE_CHARS:
                out.append(
                    ch.finding(
                        self.kind,
                        None,
                        "",
                        severity="medium",
                        message=tr(MESSAGES, "huge", ctx.lang, chars=chars_text(m.chars, ctx.lang)),
                    )
                )
            elif m.length in ("short", "long"):
                lang = ctx.lang
                # only the bound that was crossed is shown, and a crossed bound is set
                bound = {k: chars_text(v, lang) for k, v in (("min", ctx.min_chars), ("max", ctx.max_chars))
                         if v is not None}
                message = tr(MESSAGES, m.length, lang, chars=chars_text(m.chars, lang), **bound)
                out.append(ch.finding(self.kind, None, "", message=message))
        return out


class BlacklistCheck:
    kind = "blacklist"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        out: list[Finding] = []
        if not ctx.blacklist:
            return out
        for ch in ctx.chapters:
            m = ctx.metrics(ch)
            first: dict[str, Match] = {}
            limited: dict[str, list[Match]] = {}
            for match in m.blacklist.matches:
                if match.entry.tier == "limited":
                    limited.setdefault(match.entry.ref, []).append(match)
                else:
                    first.setdefault(match.entry.ref, match)
            for ref, match in first.items():
                entry = match.entry
                shown = ch.text[match.start : match.end]
                count = m.blacklist.hits[ref]
                message = tr(
                    MESSAGES, "banned", ctx.lang, text=shown, category=entry.category or "-", count=count
                )
                severity: Severity = entry.severity or ("medium" if entry.category in SENSITIVE else "low")
                out.append(ch.finding(self.kind, match.start, shown, severity=severity, count=count, message=message))
            for ref, matches in limited.items():
                rate = matches[0].entry.rate or LIMITED_PER_1K
                density = per_1k(len(matches), m.chars)
                if density <= rate:
                    continue
                match = matches[0]
                message = tr(
                    MESSAGES, "density", ctx.lang, text=ref, count=len(matches), density=density, limit=f"{rate:g}"
                )
                out.append(
                    ch.finding(
                        "blacklist_density",
                        match.start,
                        ch.text[match.start : match.end],
                        severity=match.entry.severity or "low",
                        count=len(matches),
                        message=message,
                    )
                )
        return out


class StructuralTicCheck:
    kind = "structural_tic"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        out: list[Finding] = []
        for ch in ctx.chapters:
            m = ctx.metrics(ch)
            if len(m.not_but) >= NOT_BUT_MIN:
                pos = m.not_but[0]
                out.append(
                    ch.finding(
                        self.kind,
                        pos,
                        ch.text[pos : pos + 2],
                        count=len(m.not_but),
                        message=tr(MESSAGES, "not_but", ctx.lang, count=len(m.not_but)),
                    )
                )
            if m.dash_per_1k > DASH_PER_1K and m.dashes >= 3:
                pos = ch.text.find("——")
                out.append(
                    ch.finding(
                        self.kind,
                        pos,
                        "——",
                        count=m.dashes,
                        message=tr(MESSAGES, "dash", ctx.lang, density=m.dash_per_1k),
                    )
                )
            if len(m.triple_parallel) >= TRIPLE_MIN:
                pos, text = m.triple_parallel[0]
                out.append(
                    ch.finding(
                        self.kind,
                        pos,
                        text,
                        count=len(m.triple_parallel),
                        message=tr(MESSAGES, "triple", ctx.lang, count=len(m.triple_parallel), text=text),
                    )
                )
            if len(m.repeated_openings) >= OPENING_MIN_WINDOWS:
                pos, text = m.repeated_openings[0]
                out.append(
                    ch.finding(
                        self.kind,
                        pos,
                        text,
                        count=len(m.repeated_openings),
                        message=tr(MESSAGES, "openings", ctx.lang, text=text, count=len(m.repeated_openings)),
                    )
                )
            for text, count in [p for p in m.repeated_phrases if p[1] >= PHRASE_MIN_COUNT][
                :PHRASE_MAX_FINDINGS
            ]:
                out.append(
                    ch.finding(
                        "repeated_phrase",
                        ch.text.find(text),
                        text,
                        count=count,
                        message=tr(MESSAGES, "phrase", ctx.lang, text=text, count=count),
                    )
                )
        return out
