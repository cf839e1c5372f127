"""Shared data for the widget snapshot apps: the sample novel, created once per process in a temp folder.

Everything shown comes from the sample's files (fixed text, fixed scores), so the screenshots are stable.
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path

from studio.init_project import init_project
from studio.project import Project


@lru_cache(maxsize=1)
def sample_project() -> Project:
    root = Path(tempfile.mkdtemp(prefix="novel-snap-")) / "sample"
    init_project(root, sample=True)
    return Project.open(root)
