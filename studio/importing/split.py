"""Cutting a decoded source into chapters and volumes (issue 10 item 1).

INTERFACE STUB (integ): the imp-split branch replaces the body; the signatures are the contract.
"""

from __future__ import annotations

from studio.importing.source import SourceText
from studio.models.manuscript import Manuscript, SplitMode

DEFAULT_TARGET_CHARS = 4000


def split_manuscript(source: SourceText, *, mode: SplitMode = "headings",
                     target_chars: int = DEFAULT_TARGET_CHARS) -> Manuscript:
    raise NotImplementedError("imp-split")
