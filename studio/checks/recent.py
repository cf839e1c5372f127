"""Phrases repeated across recent chapters (issue 8 item 7): a habit the author sees only across chapters.

Rule: a 5-character Han phrase (the unit of `metrics.repeated_phrases`: one character repeated is not a phrase, a
phrase never spans a registered name: names are cut out first) of a checked chapter that also occurs in at least `MIN_EARLIER` of
the `WINDOW` chapters before it is a `recent_repeat` finding (low): first place in the chapter, the number of
recent chapters using it as `count`. Overlapping phrases of one longer repeated stretch are reported once, as
the whole stretch (深吸一口气 + 吸一口气， -> 深吸一口气，... as it stands), and at most `MAX_FINDINGS` per chapter, those used in the most recent chapters first.

The chapters before come from the checked ones or the reference ones (the rest of the book), so only the
`WINDOW` chapters before each checked one are read: the cost does not grow with the book.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from studio.checks.matcher import Matcher
from studio.checks.metrics import PHRASE_LEN, phrases
from studio.checks.registry import ChapterText, CheckContext
from studio.i18n import Catalog, tr
from studio.models.findings import Finding

WINDOW = 5
MIN_EARLIER = 3
MAX_FINDINGS = 3
MEMO_ENTRIES = 64  # phrases of recent chapters kept for the process: the next commit's window reuses them
_MEMO: dict[tuple[int, int, int], set[str]] = {}

MESSAGES: Catalog = {
    "recent": (
        "「{text}」在前 {window} 章中的 {count} 章里也出现过，注意重复用语",
        "'{text}' also appears in {count} of the {window} chapters before: a repeated phrase",
    ),
}


def _body(chapter: ChapterText, names: Matcher) -> str:
    """The chapter's paragraphs with registered names cut out, so no phrase holds part of a name (枫走了过来)."""
    body = "\n".join(p.text for p in chapter.paras)
    if not names:
        return body
    parts: list[str] = []
    last = 0
    for m in names.find(body):
        parts.append(body[last : m.start])
        last = m.end
    parts.append(body[last:])
    return "\n".join(parts)


class RecentRepeatCheck:
    kind = "recent_repeat"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        by_number = {c.number: c for c in [*ctx.reference, *ctx.chapters]}
        names = ctx.registry.matcher()
        names_key = hash(tuple(sorted(ctx.registry.names())))
        cache: dict[int, set[str]] = {}

        def grams(n: int) -> set[str]:
            found = cache.get(n)
            if found is None:
                text = by_number[n].text
                key = (names_key, len(text), hash(text))
                found = _MEMO.get(key)
                if found is None:
                    found = phrases(_body(by_number[n], names))
                    if len(_MEMO) >= MEMO_ENTRIES:
                        _MEMO.clear()
                    _MEMO[key] = found
                cache[n] = found
            return found

        out: list[Finding] = []
        for chapter in ctx.chapters:
            earlier = [n for n in range(chapter.number - WINDOW, chapter.number) if n in by_number]
            if len(earlier) < MIN_EARLIER or not chapter.text.strip():
                continue
            own = grams(chapter.number)
            counts: Counter[str] = Counter()
            for n in earlier:
                counts.update(own & grams(n))  # set intersections: the cost stays in C
            repeated = {g: k for g, k in counts.items() if k >= MIN_EARLIER}
            if not repeated:
                continue
            placed = sorted((chapter.text.find(g), g) for g in repeated)
            stretches: list[tuple[int, int, int]] = []  # (start, end, recent chapters using it)
            for pos, g in placed:
                if stretches and pos < stretches[-1][1]:  # a shifted window of the same repeated stretch
                    start, end, k = stretches[-1]
                    stretches[-1] = (start, max(end, pos + PHRASE_LEN), min(k, repeated[g]))
                else:
                    stretches.append((pos, pos + PHRASE_LEN, repeated[g]))
            stretches.sort(key=lambda item: (-item[2], item[0]))
            for start, end, k in stretches[:MAX_FINDINGS]:
                text = chapter.text[start:end]
                message = tr(MESSAGES, "recent", ctx.lang, text=text, window=WINDOW, count=k)
                out.append(chapter.finding(self.kind, start, text, count=k, message=message))
        return out
