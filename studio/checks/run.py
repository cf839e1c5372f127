"""Run the checks over a range of chapters: load the texts, run each check, drop waived findings, report.

- Read-only: nothing in the project is written by `run_checks`; `write_chapter_reports` saves each chapter's
  part to `logs/chapter-NNN/checks.json`, and `check_after_commit` (the entry point for the commit step: cheap
  checks of one chapter, report saved, never raises) uses it.
- A chapter that is not UTF-8 is an `unreadable` finding (high; it says when the bytes read as GB18030, the
  usual other encoding of Chinese text files) and is skipped; a missing chapter in the range is skipped
  silently; a check that crashes on some text becomes a `check_failed` finding instead of a crash.
- Findings are sorted by chapter, paragraph, offset; `stats` holds chapters, 字数, findings per kind, waived
  count, the registry's skipped one-character names and its problems.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from studio.checks.matcher import blacklist_matcher
from studio.checks.names import NameRegistry
from studio.checks.registry import ChapterText, Check, CheckContext, default_checks, is_expensive
from studio.checks.story import StoryFacts
from studio.checks.style_drift import drift_at, write_style_drift
from studio.errors import FormatError
from studio.fileio import decode_text
from studio.i18n import DEFAULT_LANG, Catalog, Lang, tr
from studio.ids import chapter_id
from studio.models.check_allow import CheckAllowList
from studio.models.evaluation import Evaluation
from studio.models.findings import ChecksReport, Finding
from studio.models.names import NamesFile
from studio.paths import ProjectPaths
from studio.project import Project
from studio.wordcount import word_count

MESSAGES: Catalog = {
    "unreadable": ("无法读取：文件不是 UTF-8 编码", "cannot read: the file is not UTF-8"),
    "unreadable_gbk": (
        "无法读取：文件不是 UTF-8 编码（看起来是 GBK/GB18030，请另存为 UTF-8）",
        "cannot read: the file is not UTF-8 (it reads as GBK/GB18030: save it as UTF-8)",
    ),
    "check_failed": ("检查「{kind}」出错，已跳过：{error}", "check '{kind}' failed and was skipped: {error}"),
}


def load_chapter(path: Path, number: int, lang: Lang) -> ChapterText | Finding:
    """The chapter read now, with its file signature (taken before the read: a change after it only costs a
    recomputation), so caches can answer for it later without reading it again."""
    stat = path.stat()
    data = path.read_bytes()
    try:
        chapter = ChapterText(number, decode_text(data, path))
    except FormatError:
        try:
            data.decode("gb18030")
            key = "unreadable_gbk"
        except UnicodeDecodeError:
            key = "unreadable"
        return Finding(kind="unreadable", chapter=number, severity="high", message=tr(MESSAGES, key, lang))
    chapter.folder, chapter.name, chapter.signature = path.parent, path.name, (stat.st_size, stat.st_mtime_ns)
    return chapter


def run_checks(
    ctx: CheckContext,
    *,
    checks: Sequence[Check] | None = None,
    allow: CheckAllowList | None = None,
    extra: Sequence[Finding] = (),
) -> ChecksReport:
    findings: list[Finding] = list(extra)
    for check in checks if checks is not None else default_checks():
        try:
            findings.extend(check.run(ctx))
        except Exception as exc:  # noqa: BLE001 - one broken check must not hide the others' findings
            message = tr(
                MESSAGES, "check_failed", ctx.lang, kind=check.kind, error=f"{type(exc).__name__}: {exc}"
            )
            findings.append(Finding(kind="check_failed", severity="medium", text=check.kind, message=message))
    waived = 0
    if allow is not None and allow.entries:
        kept = [f for f in findings if not allow.waives(f)]
        waived = len(findings) - len(kept)
        findings = kept
    findings.sort(key=lambda f: (f.chapter or 0, f.paragraph or 0, f.offset or 0, f.kind))
    stats = {
        "chapters": len(ctx.chapters),
        "chars": sum(
            ctx.metrics(c).chars if c.number in ctx.measured else word_count(c.text) for c in ctx.chapters
        ),
        "findings": len(findings),
        "by_kind": dict(sorted(Counter(f.kind for f in findings).items())),
        "waived": waived,
        "skipped_short_names": list(ctx.registry.skipped),
        "registry_problems": list(ctx.registry.problems),
    }
    return ChecksReport(findings=findings, stats=stats)


def project_context(
    project: Project,
    first: int | None = None,
    last: int | None = None,
    *,
    min_chars: int | None = None,
    max_chars: int | None = None,
    lang: Lang = DEFAULT_LANG,
    reference: bool = True,
) -> tuple[CheckContext, list[Finding]]:
    """The check context of committed chapters `first..last` (inclusive; None: open end) and the findings of
    chapters that could not be read. With `reference`, the other chapters are read too, for book-wide counts
    (how common a name is) but never reported on, each only when a check needs its text (`ChapterText.on_disk`);
    an unreadable one of them reads as empty."""
    chapters: list[ChapterText] = []
    others: list[ChapterText] = []
    unreadable: list[Finding] = []
    folder = project.paths.chapter(1).parent
    for n in project.committed_chapters():
        outside = (first is not None and n < first) or (last is not None and n > last)
        if outside:
            if reference:
                try:
                    others.append(ChapterText.in_folder(n, folder, f"{chapter_id(n)}.md"))
                except OSError:
                    pass  # gone since the listing
            continue
        loaded = load_chapter(project.paths.chapter(n), n, lang)
        if isinstance(loaded, Finding):
            unreadable.append(loaded)
        else:
            chapters.append(loaded)
    registry = NameRegistry.from_sources(project.characters, NamesFile.load_or_default(project.paths.names))
    ctx = CheckContext(
        chapters=chapters,
        registry=registry,
        blacklist=blacklist_matcher(project.ai_blacklist),
        min_chars=min_chars,
        max_chars=max_chars,
        lang=lang,
        reference=others,
        evaluations=_evaluations(project, [c.number for c in chapters]),
        story=StoryFacts(
            project.paths,
            storylines=project.storylines,
            ledger=project.foreshadowing,
            style_profile=project.style_profile,
            committed=project.committed_chapters(),
        ),
    )
    return ctx, unreadable


def _evaluations(project: Project, chapters: Sequence[int]) -> dict[int, Evaluation]:
    """The judge's evaluations of `chapters`; a broken one is left out (`status` and the studio report it)."""
    out: dict[int, Evaluation] = {}
    for n in chapters:
        try:
            evaluation = project.evaluation(n)
        except (FormatError, OSError):
            continue
        if evaluation is not None:
            out[n] = evaluation
    return out


def split_by_chapter(report: ChecksReport) -> dict[int, ChecksReport]:
    by: dict[int, list[Finding]] = {}
    for f in report.findings:
        if f.chapter is not None:
            by.setdefault(f.chapter, []).append(f)
    return {
        n: ChecksReport(
            findings=fs, stats={"findings": len(fs), "by_kind": dict(Counter(f.kind for f in fs))}
        )
        for n, fs in sorted(by.items())
    }


def write_chapter_reports(paths: ProjectPaths, report: ChecksReport, chapters: Sequence[int]) -> None:
    """Save each of `chapters`' findings to `logs/chapter-NNN/checks.json` (an empty report when clean)."""
    parts = split_by_chapter(report)
    for n in chapters:
        parts.get(n, ChecksReport(stats={"findings": 0, "by_kind": {}})).save(paths.checks_log(n))


BOOK_EVERY = 10  # every 10th chapter the expensive checks run too, over the last 10 chapters (seed 000 §6 L2 2c)
PAUSE_KINDS: frozenset[str] = frozenset(
    {"continuity_status", "continuity_item", "continuity_attribute", "storyline_leak"}
)  # high-severity ones pause a multi-chapter run (003 §10.3)


def pausing_findings(report: ChecksReport) -> list[Finding]:
    """The findings that pause a multi-chapter run: high-severity continuity or leak findings only."""
    return [f for f in report.findings if f.kind in PAUSE_KINDS and f.severity == "high"]


def _update_style_drift(project: Project, ctx: CheckContext, chapter: int) -> None:
    """Every `DRIFT_EVERY`th chapter: `style-drift.json` written from the last window (metrics computed once)."""
    found = drift_at(ctx, chapter)
    if found is not None:
        window, drifts = found
        write_style_drift(project.paths, project.style_drift, chapter, window, drifts)


def check_after_commit(
    project: Project,
    chapter: int,
    *,
    min_chars: int | None = None,
    max_chars: int | None = None,
    lang: Lang = DEFAULT_LANG,
) -> ChecksReport | None:
    """The checks of a just-committed chapter, saved to `logs/chapter-NNN/checks.json`.

    The cheap checks of the chapter, the rest of the book read for name counts only (cached per chapter text, so
    the time does not grow with the book); every `BOOK_EVERY`th chapter every check (new names too) over the last
    `BOOK_EVERY` chapters, whose reports are rewritten. The report returned is the chapter's own. Every
    `DRIFT_EVERY`th chapter `style-drift.json` is written (or cleared) from the last window.

    For the commit step (003 §10.3: checks after a commit never fail that commit): everything goes wrong
    quietly, returning None. Waived findings are dropped.
    """
    try:
        book = chapter % BOOK_EVERY == 0
        first = max(1, chapter - BOOK_EVERY + 1) if book else chapter
        ctx, unreadable = project_context(
            project, first, chapter, min_chars=min_chars, max_chars=max_chars, lang=lang
        )
        checks = default_checks() if book else [c for c in default_checks() if not is_expensive(c)]
        allow = CheckAllowList.load_or_default(project.paths.check_allow)
        report = run_checks(ctx, checks=checks, allow=allow, extra=unreadable)
        chapters = [n for n in project.committed_chapters() if first <= n <= chapter]
        write_chapter_reports(project.paths, report, chapters)
        _update_style_drift(project, ctx, chapter)
        if not book:
            return report
        own = [f for f in report.findings if f.chapter == chapter]
        return ChecksReport(findings=own, stats={"findings": len(own), "by_kind": dict(Counter(f.kind for f in own))})
    except Exception:  # noqa: BLE001 - a check must never fail the commit it follows
        return None
