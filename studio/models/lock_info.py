"""`.novel.lock/info.json` (seed 003 section 10.7): who holds the project lock, and since when."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from studio.models.base import FileModel

TOOL_NAME = "novel-studio"


def now_local() -> datetime:
    return datetime.now().astimezone().replace(microsecond=0)


def as_aware(moment: datetime) -> datetime:
    """Naive times (the seed's own `echo` lock writes them) are read as local time."""
    return moment if moment.tzinfo is not None else moment.astimezone()


class LockInfo(FileModel):
    """The seed writes only pid/started/chapter; host, heartbeat, tool and version are ours and optional
    on read so a lock written by another tool is still understood (judged by `started` then)."""

    pid: int = Field(ge=1)
    host: str | None = None
    started: datetime
    chapter: int | None = Field(default=None, ge=1)
    heartbeat: datetime | None = None
    tool: str = TOOL_NAME
    version: str = ""

    def last_seen(self) -> datetime:
        """The newest sign of life: the heartbeat, else the start time."""
        return as_aware(self.heartbeat or self.started)
