"""Errors the domain raises. Every message names the file and, where it applies, the JSON path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class StudioError(Exception):
    """Base class of every error novel-studio reports to the author (no traceback by default)."""

    exit_code: int = 1


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

    def __str__(self) -> str:
        where = str(self.path)
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        if self.json_path:
            where += f" [{self.json_path}]"
        return f"{where}: {self.reason}"


class FormatError(StudioError):
    """A file exists but cannot be used: not UTF-8, not JSON, or not the expected shape."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


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
