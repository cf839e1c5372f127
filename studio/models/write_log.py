"""The project's write log, `.novel-studio/writes.jsonl` (and its previous part `writes.1.jsonl`).

One JSON object per line, appended by every novel-studio process just before each write of a project file
lands (`studio.write_log` has the rules):

    {"path": "chapters/chapter-003.md", "op": "write", "sha256": "9f2c...", "pid": 4242, "time": 1790000000.5}

- `path`: the file, relative to the project root, with `/` separators;
- `op`: `write` (the whole file replaced: `sha256` of its new bytes), `append` (`sha256` of the `added`
  bytes appended, `size` the file's length right after) or `delete` (no hash);
- `pid`: the writing process; `time`: `time.time()` of the write (for people reading the file: nothing
  trusts it).

Unknown fields are kept (FileModel), so a newer version may add some.
"""

from __future__ import annotations

from typing import Literal

from studio.models.base import FileModel

WriteOp = Literal["write", "append", "delete"]


class WriteRecord(FileModel):
    """One line of the write log."""

    path: str
    op: WriteOp
    sha256: str | None = None
    size: int | None = None
    added: int | None = None
    pid: int
    time: float


__all__ = ["WriteOp", "WriteRecord"]
