"""Accepting the punctuation check's fixes (issue 8 item 8: "with a fix the author can accept"), for the
findings list (`f`, `a` / `A`) and `novel-studio check --fix-punctuation`. No Textual here.

Rules:

- a finding is fixable when it is a `punctuation` finding with a suggestion (half-width marks, straight quotes,
  dot ellipses); unpaired quotes have none: only the author knows where the speech ends;
- a finding stands for one mark in its chapter (first place and count); accepting it fixes that mark in the
  paragraph of its place (`fix_finding`); the next place, if any, is the finding of the next check. Accepting
  the chapter fixes every fixable mark of the chapter that the allow list does not waive (`fix_chapter`): a
  waived mark ("ignore here" or "deliberate") is never changed;
- fixes go paragraph by paragraph, the one paragraph numbering of `studio.checks.paragraphs`: headings, code
  fences and comments are never touched; `fix_punctuation` makes the replacements;
- `write_fixed` (`apply_fix`: under the project lock, then `recheck_chapter`) writes the new text through
  `studio.fileio` (atomic, recorded as an own write, so the studio's
  file watcher does not take it for a hand edit) only when the file still holds the text the fix was made
  from; punctuation changes no facts, so the chapter needs no rebuild. `recheck_chapter` then rewrites the
  chapter's `logs/chapter-NNN/checks.json`, so the findings list shows what is left.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from studio.checks.matcher import Matcher
from studio.checks.names import NameRegistry
from studio.checks.paragraphs import Paragraphs
from studio.checks.punctuation import ELLIPSIS_MARK, PunctuationCheck, fix_punctuation
from studio.checks.registry import ChapterText, CheckContext
from studio.checks.run import load_chapter
from studio.errors import StudioError
from studio.fileio import atomic_write_text, read_text
from studio.i18n import DEFAULT_LANG, Catalog, Lang, tr
from studio.models.check_allow import CheckAllowList
from studio.models.findings import Finding
from studio.paths import ProjectPaths
from studio.project import Project

MESSAGES: Catalog = {
    "changed_meanwhile": (
        "第 {n} 章在修正期间被改动了，没有写入；请重新检查后再试",
        "chapter {n} changed while it was being fixed: nothing written; check again and retry",
    ),
}


def fixable(finding: Finding) -> bool:
    return finding.kind == "punctuation" and bool(finding.suggestion) and finding.chapter is not None


def mark_of(finding: Finding) -> str:
    """The mark a punctuation finding is about, as `fix_punctuation(marks=...)` names it."""
    return ELLIPSIS_MARK if finding.suggestion == "……" else finding.text


def _fix_paragraphs(text: str, numbers: Collection[int] | None, marks: Collection[str] | None) -> str:
    paras = Paragraphs(text)
    out = text
    for para in reversed(paras.items):  # from the end: a fix may change a paragraph's length
        if numbers is not None and para.number not in numbers:
            continue
        fixed = fix_punctuation(para.text, marks)
        if fixed != para.text:
            out = out[: para.start] + fixed + out[para.end :]
    return out


def _paragraph_of(text: str, finding: Finding) -> int | None:
    """The finding's paragraph in `text`: its recorded place when the text still has the mark there, else the
    paragraph of the mark's first occurrence (the chapter changed since the check)."""
    paras = Paragraphs(text)
    if finding.paragraph is not None:
        pos = paras.position(finding.paragraph, finding.offset or 0)
        if pos is not None and text.startswith(finding.text, pos):
            return finding.paragraph
    found = text.find(finding.text) if finding.text else -1
    where = paras.locate(found) if found >= 0 else None
    return where[0] if where is not None else None


def fix_finding(text: str, finding: Finding) -> str:
    """`text` with the finding's mark fixed in the paragraph of its place (unchanged when not fixable)."""
    if not fixable(finding):
        return text
    number = _paragraph_of(text, finding)
    if number is None:
        return text
    return _fix_paragraphs(text, {number}, {mark_of(finding)})


def chapter_marks(number: int, text: str, allow: CheckAllowList | None, lang: Lang = DEFAULT_LANG) -> set[str]:
    """The fixable marks of a chapter the allow list does not waive."""
    ctx = CheckContext([ChapterText(number, text)], NameRegistry.from_sources({}), Matcher([]), lang=lang)
    found = [f for f in PunctuationCheck().run(ctx) if fixable(f)]
    return {mark_of(f) for f in found if allow is None or not allow.waives(f)}


def fix_chapter(number: int, text: str, allow: CheckAllowList | None = None) -> str:
    """`text` with every fixable, unwaived mark fixed in every paragraph."""
    marks = chapter_marks(number, text, allow)
    return _fix_paragraphs(text, None, marks) if marks else text


def diff_lines(path: str, old: str, new: str) -> list[str]:
    """A unified diff of one chapter's fix (only the changed lines and one line around each)."""
    return list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), fromfile=f"a/{path}", tofile=f"b/{path}", lineterm="", n=1
        )
    )


@dataclass(frozen=True)
class ChapterFix:
    """One chapter's fix: the text it was made from and the fixed text."""

    chapter: int
    path: Path
    old: str
    new: str

    @property
    def changed(self) -> bool:
        return self.old != self.new


def plan_fixes(project: Project, chapters: Iterable[int], lang: Lang = DEFAULT_LANG) -> list[ChapterFix]:
    """The fixes of `chapters` (committed, readable ones; the others are left to `check` to report)."""
    allow = CheckAllowList.load_or_default(project.paths.check_allow)
    out: list[ChapterFix] = []
    for n in chapters:
        path = project.paths.chapter(n)
        if not path.is_file():
            continue
        loaded = load_chapter(path, n, lang)
        if isinstance(loaded, Finding):
            continue
        fix = ChapterFix(n, path, loaded.text, fix_chapter(n, loaded.text, allow))
        if fix.changed:
            out.append(fix)
    return out


def write_fixed(fix: ChapterFix, lang: Lang = DEFAULT_LANG) -> None:
    """Write a fixed chapter; a StudioError (nothing written) when the file no longer holds `fix.old`."""
    if read_text(fix.path) != fix.old:
        raise StudioError(tr(MESSAGES, "changed_meanwhile", lang, n=fix.chapter))
    atomic_write_text(fix.path, fix.new)


def apply_fix(project: Project, fix: ChapterFix, lang: Lang = DEFAULT_LANG) -> list[Finding]:
    """Write `fix` and check its chapter again, under the project lock (as the studio's undo does), so a run in
    another process never sees a chapter change under it. A `StudioError` (the lock is held, the file changed)
    writes nothing. Returns the chapter's findings now."""
    from studio.lock import ProjectLock

    lock = ProjectLock(project.paths, heartbeat_interval=0)
    lock.acquire()
    try:
        write_fixed(fix, lang)
        return recheck_chapter(project, fix.chapter, lang)
    finally:
        lock.release()


def recheck_chapter(project: Project, chapter: int, lang: Lang = DEFAULT_LANG) -> list[Finding]:
    """Run the cheap checks of `chapter` again and save its report (the slow checks' findings of the last saved
    report are kept: the text they spoke about changed only in its punctuation). Returns the chapter's findings."""
    from studio.checks.registry import default_checks, is_expensive
    from studio.checks.run import project_context, run_checks, write_chapter_reports
    from studio.config import load_settings
    from studio.models.findings import ChecksReport

    settings = load_settings(project.root)
    ctx, unreadable = project_context(
        project,
        chapter,
        chapter,
        min_chars=settings.writing.chapter_min_chars,
        max_chars=settings.writing.chapter_max_chars,
        lang=lang,
    )
    checks = default_checks()
    slow = {c.kind for c in checks if is_expensive(c)}
    allow = CheckAllowList.load_or_default(project.paths.check_allow)
    kept: list[Finding] = []
    saved = ProjectPaths(project.root).checks_log(chapter)
    if saved.is_file():
        try:
            kept = [f for f in ChecksReport.load(saved).findings if f.kind in slow]
        except (OSError, StudioError):
            kept = []
    report = run_checks(ctx, checks=[c for c in checks if not is_expensive(c)], allow=allow, extra=[*unreadable, *kept])
    write_chapter_reports(project.paths, report, [chapter])
    return [f for f in report.findings if f.chapter == chapter]
