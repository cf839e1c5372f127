"""`MarkedRadioButton`: a radio button whose choice shows without colour.

Textual draws every radio button as `▐●▌` and tells the chosen one by colour alone, which NO_COLOR (and a
monochrome terminal) loses: in a `RadioSet` every option then looks chosen. This one draws the dot only in the
chosen button (`▐●▌` against `▐ ▌`), in the same three cells, so the layout does not move.
"""

from __future__ import annotations

from textual.widgets import RadioButton

__all__ = ["MarkedRadioButton"]


class MarkedRadioButton(RadioButton):
    """A `RadioButton` with an empty inside when it is not chosen (the class's `BUTTON_INNER` when it is)."""

    def __init__(self, label: str = "", value: bool = False, *, id: str | None = None) -> None:
        super().__init__(label, value, id=id)
        self._mark(value)  # the watcher does not run for the initial value

    def watch_value(self) -> None:
        self._mark(self.value)
        super().watch_value()  # the base class's own watcher: the -on class and the Changed message

    def _mark(self, value: bool) -> None:
        # An instance attribute in front of the class's `BUTTON_INNER`, which the button's rendering reads.
        self.BUTTON_INNER = RadioButton.BUTTON_INNER if value else " "
