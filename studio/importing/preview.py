"""What the author reads before an import writes anything (issue 10 item 1).

INTERFACE STUB (integ): the imp-split branch replaces the body; the signatures are the contract.
"""

from __future__ import annotations

from typing import Any

from studio.i18n import Lang
from studio.models.manuscript import Manuscript


def preview_lines(manuscript: Manuscript, lang: Lang = "zh") -> list[str]:
    raise NotImplementedError("imp-split")


def preview_data(manuscript: Manuscript) -> dict[str, Any]:
    raise NotImplementedError("imp-split")
