"""Foreshadowing threads that are late or forgotten (issue 8 item 6; seed 001 §9.2), from the ledger
`foreshadowing/global.json`, as it stood at the last chapter checked (each thread's history replayed up to it).

Kinds (one finding per thread, `text` = the thread id, no paragraph). A finding sits on the chapter where its
condition began (the first chapter past the range, the `STALL_CHAPTERS`th after planting, one or two volumes
after the last activity) and is reported when that chapter is checked, the thread's status taken as of the last
chapter checked: once after that commit and once in a whole-book run, not in every later chapter's report.
- `foreshadowing_overdue` (medium): a short thread, unresolved, past the end of its target range. A thread
  planted while writing carries its scope and range from the Summarizer's op; one that has neither (older
  ledgers: scope unset) is read as short, due in chapters n+3..n+10 (`DEFAULT_SHORT_RANGE`).
- `foreshadowing_never_advanced` (low): a short or medium thread, never advanced nor resolved,
  `STALL_CHAPTERS` or more chapters after it was planted, and not already overdue.
- `foreshadowing_long_idle` (info after one volume without activity, low after two): a long thread that was
  neither advanced nor resolved for a volume's length of chapters (the volume's outline; `DEFAULT_VOLUME`
  chapters without one; past the last outline, the last one's length). Long threads are never "overdue".
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.checks.registry import CheckContext
from studio.foreshadow_ledger import DEFAULT_SHORT_RANGE
from studio.i18n import Catalog, tr
from studio.models.findings import Finding, Severity
from studio.models.foreshadowing import ForeshadowingItem

STALL_CHAPTERS = 20
DEFAULT_VOLUME = 30

MESSAGES: Catalog = {
    "overdue": (
        "伏笔「{id}」（{desc}）计划在第 {a}-{b} 章回收，已超期 {late} 章",
        "foreshadowing '{id}' ({desc}) was due in chapters {a}-{b}; {late} chapters late",
    ),
    "never": (
        "伏笔「{id}」（{desc}）第 {planted} 章埋下后 {since} 章没有推进过",
        "foreshadowing '{id}' ({desc}), planted in chapter {planted}, not advanced for {since} chapters",
    ),
    "idle": (
        "长线伏笔「{id}」（{desc}）已 {since} 章没有推进（约 {volumes} 卷），不算超期，但别让读者忘了它",
        "long thread '{id}' ({desc}) not advanced for {since} chapters (about {volumes} volumes): not overdue, "
        "but keep it alive",
    ),
}


def _as_of(item: ForeshadowingItem, chapter: int) -> tuple[str, int | None, bool] | None:
    """(status, last activity chapter, ever advanced) of `item` at `chapter`; None when not planted yet."""
    planted = item.planted_chapter
    history = [h for h in item.history if h.chapter <= chapter]
    if planted is None:
        planted = min((h.chapter for h in history), default=None)
    if planted is None or planted > chapter:
        return None
    if not item.history:  # a hand-written ledger: its fields are all there is
        return item.status, item.last_updated_chapter or planted, item.status != "planted"
    status = "planted"
    for h in history:
        if h.action != "planted":
            status = h.action
    advanced = any(h.action != "planted" for h in history)
    return status, max((h.chapter for h in history), default=planted), advanced


class ForeshadowingCheck:
    kind = "foreshadowing"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        if ctx.story is None or not ctx.chapters:
            return []
        last = max(ctx.chapters, key=lambda c: c.number)
        now = last.number
        volume = ctx.story.volume_of(now)
        if volume is None and ctx.story.volumes:
            volume = ctx.story.volumes[-1]  # past the last outline: the last planned volume's length
        volume_length = len(ctx.story.volume_chapters(volume)) if volume is not None else 0
        volume_length = volume_length or DEFAULT_VOLUME
        checked = {c.number for c in ctx.chapters}
        out: list[Finding] = []
        for item in ctx.story.ledger.foreshadowing:
            state = _as_of(item, now)
            if state is None:
                continue
            status, activity, advanced = state
            if status == "resolved":
                continue
            planted = item.planted_chapter if item.planted_chapter is not None else activity or now
            desc = item.description[:30] or "—"
            scope = item.scope or "short"
            target = item.target_resolve_range
            if target is None and item.scope is None:
                target = (planted + DEFAULT_SHORT_RANGE[0], planted + DEFAULT_SHORT_RANGE[1])
            # each finding sits on the chapter where its condition began, reported when that chapter is checked:
            # once after that commit, once in a whole-book run, never again in every later chapter's report
            if scope == "short" and target is not None and now > target[1]:
                onset = target[1] + 1
                found = self._finding(ctx, onset, item, "foreshadowing_overdue", "medium", "overdue",
                                      desc=desc, a=target[0], b=target[1], late=now - target[1])
            elif scope in ("short", "medium") and not advanced and now - planted >= STALL_CHAPTERS:
                onset = planted + STALL_CHAPTERS
                found = self._finding(ctx, onset, item, "foreshadowing_never_advanced", "low", "never",
                                      desc=desc, planted=planted, since=now - planted)
            elif scope == "long" and activity is not None and now - activity >= volume_length:
                volumes = (now - activity) // volume_length
                onset = activity + min(volumes, 2) * volume_length
                found = self._finding(ctx, onset, item, "foreshadowing_long_idle",
                                      "low" if volumes >= 2 else "info", "idle",
                                      desc=desc, since=now - activity, volumes=volumes)
            else:
                continue
            if onset in checked:
                out.append(found)
        return out

    def _finding(
        self, ctx: CheckContext, chapter: int, item: ForeshadowingItem, kind: str, severity: Severity, key: str,
        **values: object,
    ) -> Finding:
        return Finding(kind=kind, chapter=chapter, text=item.id, severity=severity,
                       message=tr(MESSAGES, key, ctx.lang, id=item.id, **values))
