"""Reading a manuscript source: a TXT file or a folder of `.txt`/`.md` chapter files (issue 10 item 1).

INTERFACE STUB (integ): the imp-split branch replaces the body; the signatures are the contract.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from studio.errors import StudioError


class ImportSourceError(StudioError):
    """The source cannot be imported (not text, too big, empty, unreadable): `str()` is the author's message."""


class SourceFile(BaseModel):
    name: str
    text: str
    encoding: str = "utf-8"
    had_bom: bool = False


class SourceText(BaseModel):
    """The decoded source. `files` is one entry for a TXT file, the chapter files in order for a folder."""

    path: str
    is_folder: bool = False
    files: list[SourceFile] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)  # folder entries that are not chapter files

    @property
    def encoding(self) -> str:
        names = sorted({f.encoding for f in self.files})
        return names[0] if len(names) == 1 else "+".join(names)


def read_source(path: Path) -> SourceText:
    raise NotImplementedError("imp-split")
