"""Errors the domain raises. Every message names the file and, where it applies, the JSON path.

Language: `str()` of an error or a problem is its English text (logs, older callers). A raiser that has the
Chinese text too (rendered from its catalog, e.g. `studio.op_reasons.PROBLEMS`) sets `zh`; what the author
reads comes from `text(lang)` / `describe(lang)`, which fall back to the English text where there is no `zh`
(and a reason built with `tr(..., lang)` is already in the author's language).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from studio.i18n import Lang


class StudioError(Exception):
    """Base class of every error novel-studio reports to the author (no traceback by default)."""

    exit_code: int = 1
    zh: str = ""  # the message in Chinese, where the raiser has it (see the module docstring)

    def text(self, lang: Lang) -> str:
        """The message in `lang` (the English `str()` where no Chinese text was given)."""
        return self.zh if lang == "zh" and self.zh else str(self)


class UsageError(StudioError):
    exit_code = 2


@dataclass(frozen=True)
class Problem:
    """One problem found in a project file: which file, where in it, and why."""

    path: Path | str
    reason: str
    json_path: str = ""
    line: int | None = None
    column: int | None = None
    zh: str = field(default="", compare=False)  # `reason` in Chinese, where the raiser has it

    def text(self, lang: Lang) -> str:
        """The reason in `lang` (`reason` where no Chinese text was given)."""
        return self.zh if lang == "zh" and self.zh else self.reason

    def where(self) -> str:
        where = str(self.path)
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        if self.json_path:
            where += f" [{self.json_path}]"
        return where

    def describe(self, lang: Lang) -> str:
        """`file:line:column [json path]: reason` with the reason in `lang`."""
        return f"{self.where()}：{self.text(lang)}" if lang == "zh" and self.zh else f"{self.where()}: {self.text(lang)}"

    def __str__(self) -> str:
        return f"{self.where()}: {self.reason}"


class FormatError(StudioError):
    """A file exists but cannot be used: not UTF-8, not JSON, or not the expected shape."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    def text(self, lang: Lang) -> str:
        return "\n".join(p.describe(lang) for p in self.problems)


class ProjectNotFoundError(StudioError):
    pass


class UnsafeIdError(StudioError, ValueError):
    """An id that could leave the project folder or is not a slug."""


class StateVersionMismatch(StudioError):
    pass


class LockHeldError(StudioError):
    exit_code = 4


class PausedForAuthor(StudioError):
    """A command needs an answer from the author but nobody is at a terminal: it stops, resumable (exit 3)."""

    exit_code = 3
