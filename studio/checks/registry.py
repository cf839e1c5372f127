"""The check registry: what every check receives, how it reports, and the list `novel-studio check` runs.

A check is any object with a `kind` (the `Finding.kind` it reports, or a family name) and
`run(ctx: CheckContext) -> Iterable[Finding]`; `expensive = True` marks one that `--quick` skips. It sees every
chapter in scope at once (`ctx.chapters`, plus `ctx.reference` for book-wide counts), so book-wide checks (name
variants count a name over the whole book) and per-chapter ones share one shape; later checks (continuity,
leaks, foreshadowing, style drift, structure) add an entry to `default_checks()`.

Checks never raise on bad text: a chapter that cannot be read is reported once by the runner (`unreadable`)
and is not in `ctx.chapters`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Protocol

from studio.checks.matcher import Matcher
from studio.checks.metrics import ProseMetrics, prose_metrics
from studio.checks.names import NameRegistry
from studio.checks.paragraphs import Paragraphs
from studio.checks.story import StoryFacts
from studio.errors import FormatError
from studio.fileio import decode_text
from studio.i18n import DEFAULT_LANG, Lang
from studio.models.evaluation import Evaluation
from studio.models.findings import Finding, Severity

CONTEXT_CHARS = 8


class ChapterText:
    """One chapter's number and text; its paragraphs are numbered on first use.

    `ChapterText.on_disk` is a reference chapter read only when its text is needed, with the file's (size,
    mtime_ns) `signature`, so a cache can answer for an unchanged file without reading it (the after-commit
    checks stay flat in the number of chapters). Such a file that cannot be read reads as empty: reference
    chapters are never reported on."""

    def __init__(self, number: int, text: str) -> None:
        self.number = number
        self._text: str | None = text
        self.folder: Path | None = None  # on disk: the folder and the file name (no path built per chapter)
        self.name: str | None = None
        self.signature: tuple[int, int] | None = None

    @classmethod
    def on_disk(cls, number: int, path: Path) -> ChapterText:
        return cls.in_folder(number, path.parent, path.name)

    @classmethod
    def in_folder(cls, number: int, folder: Path, name: str) -> ChapterText:
        """`on_disk` for file `name` of `folder`: one stat, no Path object per chapter (flat after a commit)."""
        chapter = cls(number, "")
        stat = os.stat(os.path.join(folder, name))
        chapter._text, chapter.folder, chapter.name = None, folder, name
        chapter.signature = (stat.st_size, stat.st_mtime_ns)
        return chapter

    @property
    def path(self) -> Path | None:
        return self.folder / self.name if self.folder is not None and self.name is not None else None

    @property
    def text(self) -> str:
        if self._text is None:
            try:
                path = self.path
                self._text = decode_text(path.read_bytes(), path) if path is not None else ""
            except (OSError, FormatError):
                self._text = ""
        return self._text

    @cached_property
    def paras(self) -> Paragraphs:
        return Paragraphs(self.text)

    def finding(
        self,
        kind: str,
        pos: int | None,
        text: str,
        *,
        severity: Severity = "low",
        suggestion: str | None = None,
        count: int = 1,
        message: str = "",
    ) -> Finding:
        """A finding of this chapter pointing at chapter-text position `pos` (paragraph, offset, context)."""
        paragraph = offset = None
        context = ""
        if pos is not None:
            where = self.paras.locate(pos)
            if where is not None:
                paragraph, offset = where
                para = self.paras.items[paragraph - 1]
                # the context stays inside the paragraph, so text added around it does not change it
                lo, hi = max(para.start, pos - CONTEXT_CHARS), min(para.end, pos + len(text) + CONTEXT_CHARS)
                context = self.text[lo:hi]
        return Finding(
            kind=kind,
            chapter=self.number,
            text=text,
            suggestion=suggestion,
            count=max(1, count),
            severity=severity,
            paragraph=paragraph,
            offset=offset,
            message=message,
            context=context,
        )


@dataclass
class CheckContext:
    """What checks see. `chapters` are checked and reported; `reference` chapters (the rest of the book when
    only a range is checked) are read for book-wide counts only, never reported on."""

    chapters: Sequence[ChapterText]
    registry: NameRegistry
    blacklist: Matcher
    min_chars: int | None = None
    max_chars: int | None = None
    lang: Lang = DEFAULT_LANG
    reference: Sequence[ChapterText] = ()
    evaluations: Mapping[int, Evaluation] = field(default_factory=dict)  # the judge's, by chapter
    story: StoryFacts | None = None  # state history, plan, ledger: the story checks skip without it
    _metrics: dict[int, ProseMetrics] = field(default_factory=dict, repr=False)

    @property
    def measured(self) -> frozenset[int]:
        """Chapters whose metrics are computed already."""
        return frozenset(self._metrics)

    def metrics(self, chapter: ChapterText) -> ProseMetrics:
        """The chapter's prose metrics (blacklist, names excluded from repeats, length target), computed once."""
        found = self._metrics.get(chapter.number)
        if found is None:
            found = prose_metrics(
                chapter.text,
                self.blacklist,
                paras=chapter.paras,
                names=self.registry.names(),
                min_chars=self.min_chars,
                max_chars=self.max_chars,
            )
            self._metrics[chapter.number] = found
        return found


class Check(Protocol):
    kind: str

    def run(self, ctx: CheckContext) -> Iterable[Finding]: ...


def default_checks() -> list[Check]:
    """The checks `novel-studio check` runs, cheap ones first."""
    from studio.checks.continuity import ContinuityCheck
    from studio.checks.evidence import JudgeQuoteCheck
    from studio.checks.foreshadow import ForeshadowingCheck
    from studio.checks.leaks import StorylineLeakCheck
    from studio.checks.newnames import NewNameCheck
    from studio.checks.prose import BlacklistCheck, LengthCheck, StructuralTicCheck
    from studio.checks.punctuation import PunctuationCheck
    from studio.checks.recent import RecentRepeatCheck
    from studio.checks.structure import StructureCheck
    from studio.checks.style_drift import StyleDriftCheck
    from studio.checks.variants import NameVariantCheck

    return [
        LengthCheck(),
        PunctuationCheck(),
        BlacklistCheck(),
        StructuralTicCheck(),
        RecentRepeatCheck(),
        NameVariantCheck(),
        JudgeQuoteCheck(),
        ContinuityCheck(),
        StorylineLeakCheck(),
        ForeshadowingCheck(),
        StructureCheck(),
        StyleDriftCheck(),
        NewNameCheck(),
    ]


def is_expensive(check: Check) -> bool:
    """Checks that segment text (new names) are slow on a first whole-book run; `--quick` skips them."""
    return bool(getattr(check, "expensive", False))
