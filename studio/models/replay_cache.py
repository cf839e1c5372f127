"""`replayed-state.json` in the user's cache folder (never in the author's folder): one state replayed from a
project's changelog, kept between starts so that the studio's first screen need not replay the whole log
(`studio.views.replay_cache` reads and writes it).

    {"format": 1, "code": "3f…", "log_bytes": 296100, "log_digest": "a9…", "state": {…current-state…}}

`state` is the state after the changelog's first `log_bytes` bytes (whole lines), whose BLAKE2b digest is
`log_digest`; `code` is a digest of the replay's own source (`studio.views.replay_cache.code_digest`). The file
is valid for a changelog that still begins with those bytes, replayed by the same code: lines appended since
are replayed on from it; any other change makes it stale. A file of another `format` is no cache.
"""

from __future__ import annotations

from pydantic import Field

from studio.models.base import FileModel
from studio.models.state import CurrentState

REPLAY_CACHE_FORMAT = 1


class ReplayedState(FileModel):
    format: int = REPLAY_CACHE_FORMAT
    code: str = ""
    log_bytes: int = Field(default=0, ge=0)
    log_digest: str = ""
    state: CurrentState = Field(default_factory=CurrentState)
