"""Every dialog of `tests/test_dialog_snapshots.py` at 160x48 too (that file holds them at 80x24): a dialog
that loses its keys line or overflows a wide terminal changes its SVG. Regenerate on purpose with
``.venv/bin/pytest tests/test_snapshots_dialogs_wide.py --snapshot-update`` and look at the SVGs."""

from __future__ import annotations

import pytest

from tests.snapshot_apps.dialogs_app import HostApp
from tests.test_dialog_snapshots import DIALOGS, SnapCompare, _steady


@pytest.mark.parametrize("name", list(DIALOGS))
def test_dialog_snapshot_wide(name: str, snap_compare: SnapCompare) -> None:
    assert snap_compare(HostApp(DIALOGS[name]), terminal_size=(160, 48), run_before=_steady)
