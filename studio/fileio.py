"""The one atomic writer, and strict readers that report problems instead of guessing.

Every write of the app goes through `atomic_write_bytes`: temp file in the same folder, flush + fsync,
rename over the target, fsync of the folder. A crash leaves either the old file or the new one, never half.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from studio import own_writes
from studio.errors import FormatError, Problem


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # platforms without directory fds: rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            try:
                os.chmod(tmp, path.stat().st_mode & 0o777)
            except OSError:
                pass
        else:
            os.chmod(tmp, 0o644)
        own_writes.record(path, data)  # before the rename: a watcher must never see unrecorded content
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def dumps_json(data: Any) -> str:
    """The project's JSON style: UTF-8 (Chinese unescaped), 2-space indent, trailing newline."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, dumps_json(data))


def append_line(path: Path, line: str) -> None:
    """Append one line (to a .jsonl log) and fsync. A torn last line is detected by the reader."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = line.rstrip("\n").encode("utf-8") + b"\n"
    with open(path, "ab") as fh:
        own_writes.record_append(path, data, fh.seek(0, os.SEEK_END) + len(data))
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def decode_text(data: bytes, path: Path | str) -> str:
    """UTF-8 text of `data` (a BOM dropped); not UTF-8 is a FormatError naming the line, never a guess."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError([Problem(path, f"not UTF-8 (byte {exc.start})", line=line)]) from None
    return text.removeprefix("\ufeff")


def read_text(path: Path) -> str:
    """Read a UTF-8 text file; a file that is not UTF-8 is reported, never guessed."""
    path = Path(path)
    return decode_text(path.read_bytes(), path)


def parse_json(text: str, path: Path | str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError([Problem(path, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno)]) from None


def read_json(path: Path) -> Any:
    return parse_json(read_text(path), path)
