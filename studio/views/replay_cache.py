"""A replayed state kept between starts, so the first screen's state diff needs no replay of the whole log.

The studio opens on the last chapter, whose 状态变更 pane needs the state *before* that chapter: a replay of
`state/changelog.jsonl` from its start (on 500 chapters about 110 ms of CPU before the first paint). This
module keeps the latest state replayed for a project in the user's cache folder
(`studio.status_memo.cache_folder(root) / REPLAY_CACHE`, format `studio.models.replay_cache.ReplayedState`), never
in the author's folder.

Rules:
- A kept state is used only for a changelog that still begins with the very bytes it was replayed from
  (length and BLAKE2b digest of that prefix of whole lines) and only by the same replay code (`code_digest`:
  the source of the state engine and of the state, patch and changelog models). Lines appended since
  (chapters committed, rebuilds) are replayed on from it; any other change (an undo, a repair, an edit by
  hand) or a new version of the code makes it stale, and the next replay from the start replaces it.
- Only "plain" logs use it (the caller's rule: no other tool's lines, no `init` after the first line), where
  the state at a version depends on the lines up to that version's line alone.
- A missing, unreadable, corrupt or stale cache is no cache; a cache that cannot be written is skipped.
  Written without fsync (`durable=False`): a cache lost in a crash is rebuilt.
- Thread-safe (the selection may replay in a worker thread).
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from studio.errors import StudioError
from studio.fileio import atomic_write_text, dumps_json
from studio.models.changelog import ChangelogEntry
from studio.models.replay_cache import REPLAY_CACHE_FORMAT, ReplayedState
from studio.models.state import CurrentState
from studio.status_memo import cache_file

REPLAY_CACHE = "replayed-state.json"

_CODE_MODULES: tuple[str, ...] = (
    "studio.state_engine",
    "studio.models.state",
    "studio.models.patch",
    "studio.models.changelog",
)


@functools.cache
def code_digest() -> str:
    """A digest of the replay's source (`_CODE_MODULES`); "" when a source cannot be read (then nothing is
    cached: a state replayed by other code could differ)."""
    import importlib

    digest = hashlib.blake2b(digest_size=16)
    for name in _CODE_MODULES:
        origin = getattr(importlib.import_module(name), "__file__", None)
        try:
            digest.update(Path(origin).read_bytes() if origin else b"")
        except OSError:
            return ""
        if not origin:
            return ""
    return digest.hexdigest()


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def line_ends(raw: bytes) -> list[int]:
    """The offset just after each non-blank line of `raw` (its newline included), in order: entry `i` of
    `state_engine.parse_changelog(raw)` ends at `line_ends(raw)[i]` (blank lines are skipped there too)."""
    ends: list[int] = []
    start = 0
    size = len(raw)
    while start < size:
        newline = raw.find(b"\n", start)
        end = size if newline < 0 else newline + 1
        if raw[start:end].strip():
            ends.append(end)
        start = end
    return ends


@dataclass(frozen=True)
class _Kept:
    log_bytes: int
    log_digest: str
    state: CurrentState


_kept: dict[Path, _Kept | None] = {}  # per cache file: what it holds (None: nothing usable), read once
_lock = threading.Lock()


def _read(path: Path, code: str) -> _Kept | None:
    try:
        cached = ReplayedState.load(path)
    except (OSError, StudioError):  # missing, not UTF-8, not JSON, not the model: no cache
        return None
    if cached.format != REPLAY_CACHE_FORMAT or not code or cached.code != code or not cached.log_digest:
        return None
    return _Kept(cached.log_bytes, cached.log_digest, cached.state)


def _held(root: Path) -> tuple[Path, _Kept | None]:
    path = cache_file(root, REPLAY_CACHE)
    with _lock:
        if path in _kept:
            return path, _kept[path]
    kept = _read(path, code_digest())
    with _lock:
        _kept[path] = kept
    return path, kept


def _valid_for(kept: _Kept | None, raw: bytes) -> bool:
    return kept is not None and kept.log_bytes <= len(raw) and _digest(raw[: kept.log_bytes]) == kept.log_digest


def kept_state(root: Path, raw: bytes) -> CurrentState | None:
    """The kept state of the project at `root` if it is valid for the changelog bytes `raw` (it then equals
    the replay of `raw` up to its `state_version`), else None."""
    _, kept = _held(root)
    return kept.state if kept is not None and _valid_for(kept, raw) else None


def kept_prefix(root: Path, raw: bytes) -> tuple[int, CurrentState] | None:
    """(the length of the prefix of `raw` it was replayed from, the kept state) when the kept state of the
    project at `root` is valid for the changelog bytes `raw`, else None. That prefix is whole lines (it ends
    with a newline) that this very code parsed and replayed without a problem, from a plain log."""
    _, kept = _held(root)
    if kept is None or not _valid_for(kept, raw) or not raw[: kept.log_bytes].endswith(b"\n"):
        return None
    return kept.log_bytes, kept.state


def keep_state(
    root: Path, raw: bytes, entries: Sequence[ChangelogEntry], state: CurrentState, *, start: int = 0
) -> None:
    """Keep `state` (replayed from the plain changelog `raw`, parsed as `entries`) for the next start, unless
    the cache already holds a valid state as recent or more recent. `start`: `entries` are those of
    `raw[start:]` alone (a prefix of whole lines before them was parsed before: `kept_prefix`)."""
    version = state.state_version
    path, kept = _held(root)
    if kept is not None and kept.state.state_version >= version and _valid_for(kept, raw):
        return
    index = next((i for i, e in enumerate(entries) if e.state_version == version), None)
    code = code_digest()
    ends = [start + end for end in line_ends(raw[start:])]
    if index is None or not code or index >= len(ends):  # the empty state (nothing replayed), or no code digest
        return
    prefix = raw[: ends[index]]
    record = ReplayedState(code=code, log_bytes=len(prefix), log_digest=_digest(prefix), state=state)
    try:
        atomic_write_text(path, dumps_json(record.to_data()), durable=False)
    except OSError:
        return  # no cache folder to write in (read-only home): the next start replays
    with _lock:
        _kept[path] = _Kept(record.log_bytes, record.log_digest, state)


def forget() -> None:
    """Drop what this process read of the cache files (tests: a new start)."""
    with _lock:
        _kept.clear()
