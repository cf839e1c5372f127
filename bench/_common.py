"""Shared by the benchmark scripts (imported as `_common`: each script puts bench/ on sys.path)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def run_in_workdir(keep: Path | None, prefix: str, run: Callable[[Path], object]) -> None:
    """Call `run(work)` in `keep` (created if needed, kept), or else in a fresh temporary folder removed after."""
    tmp = None if keep else tempfile.mkdtemp(prefix=prefix)
    work = keep or Path(tmp or ".")
    work.mkdir(parents=True, exist_ok=True)
    try:
        run(work)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
