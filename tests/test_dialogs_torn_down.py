"""A dialog mounted while the app tears down (a quit as it opens; seen in CI under load: `ConfirmDialog.on_mount`
raised NoMatches for `#yes`) finds its children gone: its mount must do nothing rather than raise."""

from __future__ import annotations

import pytest
from textual.screen import Screen

from screens.prompt_dialogs import ConfirmDialog, GotoDialog, NumberDialog, TextDialog


@pytest.mark.parametrize("dialog", [
    ConfirmDialog("确定？"),
    NumberDialog(5),
    TextDialog("备注"),
    GotoDialog([1, 2, 3]),
], ids=["confirm", "number", "text", "goto"])
def test_a_dialog_without_its_children_mounts_quietly(dialog: Screen[object]) -> None:
    assert not dialog.children  # never composed: as after the app's teardown removed them
    dialog.on_mount()  # type: ignore[attr-defined]
