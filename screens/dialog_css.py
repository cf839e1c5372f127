"""The look the studio's dialogs share, in one place: `dialog_css(name, box, width)`.

A dialog is a `ModalScreen` named `name` that centres one box (`box`: a CSS selector of its child, `#id` or
`.class`) with a thick primary border on the surface colour, `width` cells wide (or `"auto"`: as wide as its
content, at least `min_width`) but never wider than the screen nor taller (at 80x24 every dialog fits), a bold `.dialog-title` line with a blank line under it and a muted
`.dialog-hint` line (the dialog's keys). Each dialog adds its own rules after it (its lists, fields, buttons).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["dialog_css"]


def dialog_css(name: str, box: str, width: int | Literal["auto"], min_width: int | None = None) -> str:
    """The shared rules for the dialog screen `name` whose box is `box` (see the module docstring)."""
    min_rule = f"min-width: {min_width};" if min_width is not None else ""
    return f"""
    {name} {{
        align: center middle;
    }}
    {name} > {box} {{
        width: {width};
        {min_rule}
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }}
    {name} .dialog-title {{
        text-style: bold;
        width: 100%;
        margin-bottom: 1;
    }}
    {name} .dialog-hint {{
        color: $text-muted;
        width: 100%;
    }}
    """
