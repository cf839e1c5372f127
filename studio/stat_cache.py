"""A small JSON cache of values derived from files, valid while each file's (size, mtime_ns) is unchanged.

Format: `{"version": 1, "entries": {name: [size, mtime_ns, value]}}`, kept in the user's cache folder
(`studio.status_memo.cache_file`), never in the author's folder. A missing, corrupt or outdated cache file is
simply empty (it gets rebuilt); a cache that cannot be written (read-only folder) is skipped silently; a write
is atomic but not fsync'ed (a lost cache is rebuilt). Imports
no pydantic: `status` recounts chapter text with it on its light path (`studio.status_words`).

`write_cache` is the one writer of the status caches' files (this one, `studio.status.ReportParts`,
`studio.validated_files`, `studio.status_memo`): compact JSON, atomic but not fsync'ed (a lost cache is rebuilt),
skipped silently when it cannot be written.

`stat_files` is the one walk of a numbered set of files for such a cache (`studio.status_words`,
`studio.status_scores`): a file gone by the time it is stat'ed is left out, one that cannot be stat'ed is
reported and left out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from studio.errors import FormatError
from studio.fileio import atomic_write_text, parse_json

CACHE_VERSION = 1


def write_cache(path: Path, data: object) -> None:
    """Write the cache file at `path` (see the module rules)."""
    try:
        atomic_write_text(path, json.dumps(data, ensure_ascii=False), durable=False, sync_dir=False)
    except OSError:
        pass


def stat_files(
    files: Mapping[int, Path], on_problem: Callable[[Path, OSError], None]
) -> Iterator[tuple[int, Path, os.stat_result]]:
    """(n, path, stat) of each of `files` by number (see the module rules)."""
    for n, path in sorted(files.items()):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            on_problem(path, exc)
            continue
        yield n, path, st


class StatCache:
    """The cache file at `path`: `get` a value for a file's stat, `put` a new one, `save` what this run used."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.old = self._load(path)
        self.new: dict[str, list[Any]] = {}
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _load(path: Path) -> dict[str, list[Any]]:
        try:
            data = parse_json(path.read_text(encoding="utf-8"), path)
        except (OSError, UnicodeDecodeError, FormatError):
            return {}
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return {}
        entries = data.get("entries")
        if not isinstance(entries, dict):
            return {}
        out: dict[str, list[Any]] = {}
        for name, value in entries.items():
            if (
                isinstance(name, str)
                and isinstance(value, list)
                and len(value) == 3
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value[:2])
            ):
                out[name] = value
        return out

    def get(self, name: str, st: os.stat_result) -> Any | None:
        hit = self.old.get(name)
        if hit is not None and hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
            self.hits += 1
            self.new[name] = hit
            return hit[2]
        self.misses += 1
        return None

    def put(self, name: str, st: os.stat_result, value: Any) -> None:
        self.new[name] = [st.st_size, st.st_mtime_ns, value]

    def save(self) -> None:
        if self.new != self.old:
            write_cache(self.path, {"version": CACHE_VERSION, "entries": self.new})
