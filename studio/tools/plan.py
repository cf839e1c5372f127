"""`ToolPlan`: one tool-mode change before it is applied (what `studio.tools.characters` and
`studio.tools.world` build, and the CLI shows, asks about and applies): the change set, its changelog entry's
lines, what it affects, and the extra fields of its JSON report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.tools.affects import Impact
from studio.tools.txn import ChangeSet

__all__ = ["ToolPlan"]


@dataclass
class ToolPlan:
    command: str  # "character rename", "world rule add", ...
    title: str  # the changelog section's title
    changes: ChangeSet
    impact: Impact = field(default_factory=Impact)
    lines: list[str] = field(default_factory=list)  # the changelog entry's lines (also the report)
    data: dict[str, Any] = field(default_factory=dict)

    def report(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "title": self.title,
            "lines": self.lines,
            "files": [{"path": c.path, "change": c.kind} for c in self.changes.changes()],
            "affects": self.impact.to_data(),
            **self.data,
        }
