"""Writing a confirmed manuscript into a project (issue 10 item 2).

INTERFACE STUB (integ): the imp-det branch replaces the body; the signatures are the contract.
"""

from __future__ import annotations

from pathlib import Path

from studio.errors import StudioError
from studio.i18n import Lang
from studio.models.import_record import ImportRecord
from studio.models.manuscript import Manuscript


class ImportRefused(StudioError):
    """The target cannot take this import (a project without `append`, not empty, ...): `str()` says why."""


def write_project(manuscript: Manuscript, source: Path, root: Path, *, append: bool = False,
                  lang: Lang = "zh") -> ImportRecord:
    raise NotImplementedError("imp-det")
