"""Replies kept for a paused tool command (`studio.models.tool_journal.PendingReply`), keyed by the request.

A tool command that calls the model and then pauses for the author (exit 3) keeps the checked reply under
`.novel-studio/tool-replies/<key>.json`; run again with `--yes`, the same request finds it and applies exactly
the change the author saw, with no second call. `key` is the sha256 of the request's sent parts (model,
system, messages), so any change in the project's context is a new request. Removed after apply or cancel.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from studio import own_writes
from studio.errors import FormatError
from studio.models.checkpoint import now_iso
from studio.models.tool_journal import PendingReply
from studio.paths import ProjectPaths

__all__ = ["drop_reply", "load_reply", "reply_key", "reply_path", "save_reply"]


def reply_key(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:32]


def reply_path(paths: ProjectPaths, key: str) -> Path:
    return paths.root / ".novel-studio" / "tool-replies" / f"{key}.json"


def load_reply(paths: ProjectPaths, key: str) -> PendingReply | None:
    path = reply_path(paths, key)
    if not path.is_file():
        return None
    try:
        return PendingReply.load(path)
    except FormatError:
        return None  # a damaged cache is only a lost saving: the call is made again


def save_reply(paths: ProjectPaths, key: str, command: str, text: str, cost_usd: float) -> None:
    PendingReply(command=command, text=text, cost_usd=cost_usd, created_at=now_iso()).save(reply_path(paths, key))


def drop_reply(paths: ProjectPaths, key: str) -> None:
    path = reply_path(paths, key)
    if path.exists():
        own_writes.record_deleted(path)
        path.unlink()
