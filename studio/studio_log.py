"""The studio's own log: `.novel-studio/logs/studio.log` in the project, one timestamped line (or block) per entry.

Rules: what the author should not read on the screen (tracebacks, the watchdog's thread stacks, start-up
decisions) goes here; writing it never raises (a log that cannot be written must not break a run or an exit).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from studio.fileio import append_line

LOG_FILE = Path(".novel-studio") / "logs" / "studio.log"


def log_line(root: Path, message: str) -> None:
    """Append a timestamped line (or block) to the project's studio log; never raises."""
    try:
        stamp = datetime.now().isoformat(timespec="seconds")
        append_line(Path(root) / LOG_FILE, f"{stamp} {message}")
    except OSError:
        pass
