"""Export from the studio (command palette: 导出 / Export): `studio.export.export_chapters` behind a dialog.

``ExportDialog(root, title, lang, *, chapters)`` -> ``ModalScreen[ExportResult | None]``. Fields: the output
path (default ``<project>/export/<title>.txt``), the first and last chapter (default: every committed one) and
the format (txt / md; switching it changes the default path's suffix). enter in any field or ctrl+s exports;
a problem (bad range, a folder as the path, nothing committed) is shown in the dialog, which stays open;
success closes with the ``ExportResult`` and the caller notifies it (``result_message``). escape -> None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from screens.dialog_css import dialog_css
from studio.errors import StudioError
from studio.export import ExportResult, Format, export_chapters
from studio.i18n import Catalog, Lang, chars_text, tr, tr_count
from widgets.radio_button import MarkedRadioButton

__all__ = ["MESSAGES", "ExportDialog", "default_export_path", "result_message"]

MESSAGES: Catalog = {
    "title": ("导出章节", "Export chapters"),
    "path": ("导出到（文件路径）", "Export to (file path)"),
    "range": ("章节范围（留空为全部）", "Chapters (blank: all)"),
    "from": ("从", "from"),
    "to": ("到", "to"),
    "format": ("格式", "Format"),
    "txt": ("TXT（发布平台）", "TXT (publishing platforms)"),
    "md": ("Markdown", "Markdown"),
    "export": ("导出 (Ctrl+S)", "Export (Ctrl+S)"),
    "cancel": ("取消 (Esc)", "Cancel (Esc)"),
    "hint": ("Enter / Ctrl+S 导出 · Tab 切换 · Esc 取消", "Enter / Ctrl+S export · Tab move · Esc cancel"),
    "bad_number": ("章号必须是整数：{value}", "A chapter number must be a whole number: {value}"),
    "no_path": ("请填写导出路径", "Enter a path to export to"),
    "failed": ("导出失败：{error}", "Export failed: {error}"),
    "done": (
        "已导出 {n} 章，共 {chars} → {path}",
        "Exported {n} chapters, {chars} -> {path}",
    ),
    "done_one": (
        "已导出 {n} 章，共 {chars} → {path}",
        "Exported {n} chapter, {chars} -> {path}",
    ),
}

_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')


def default_export_path(root: Path, title: str, fmt: Format = "txt") -> Path:
    """`<project>/export/<title>.<fmt>` (characters a file name cannot hold become `_`)."""
    name = _UNSAFE.sub("_", title).strip(" .") or "novel"
    return Path(root) / "export" / f"{name}.{fmt}"


def result_message(result: ExportResult, lang: Lang = "zh") -> str:
    return tr_count(MESSAGES, "done", lang, len(result.chapters), n=len(result.chapters),
                    chars=chars_text(result.total_chars, lang), path=result.out)


class ExportDialog(ModalScreen[ExportResult | None]):
    """Ask where and what to export, then export."""

    DEFAULT_CSS = dialog_css("ExportDialog", "#export-box", 76) + """
    ExportDialog .field-label {
        width: 100%;
        color: $text-muted;
    }
    ExportDialog #export-range {
        height: auto;
    }
    ExportDialog #export-range Label {
        padding: 1 1 0 0;
    }
    ExportDialog #export-range Input {
        width: 14;
    }
    ExportDialog RadioSet {
        layout: horizontal;
        width: 100%;
    }
    ExportDialog #export-error {
        color: $error;
        text-style: bold;
        width: 100%;
        height: auto;
    }
    ExportDialog #export-buttons {
        height: auto;
        align-horizontal: right;
    }
    ExportDialog Button {
        margin: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", show=False),
        Binding("ctrl+s", "export", show=False),
    ]

    def __init__(
        self,
        root: Path,
        title: str,
        lang: Lang = "zh",
        *,
        chapters: Sequence[int] = (),
    ) -> None:
        super().__init__()
        self.root = Path(root)
        self.novel_title = title
        self.lang: Lang = lang
        self.chapters = sorted(chapters)
        self.fmt: Format = "txt"

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="export-box"):
            yield Label(tr(MESSAGES, "title", lang), classes="dialog-title", markup=False)
            yield Label(tr(MESSAGES, "path", lang), classes="field-label", markup=False)
            yield Input(str(default_export_path(self.root, self.novel_title, self.fmt)), id="export-path")
            yield Label(tr(MESSAGES, "range", lang), classes="field-label", markup=False)
            with Horizontal(id="export-range"):
                yield Label(tr(MESSAGES, "from", lang), markup=False)
                yield Input(str(self.chapters[0]) if self.chapters else "", type="integer", id="export-from")
                yield Label(tr(MESSAGES, "to", lang), markup=False)
                yield Input(str(self.chapters[-1]) if self.chapters else "", type="integer", id="export-to")
            yield Label(tr(MESSAGES, "format", lang), classes="field-label", markup=False)
            with RadioSet(id="export-format"):
                yield MarkedRadioButton(tr(MESSAGES, "txt", lang), value=True, id="fmt-txt")
                yield MarkedRadioButton(tr(MESSAGES, "md", lang), id="fmt-md")
            yield Label("", id="export-error", markup=False)
            with Horizontal(id="export-buttons"):
                yield Button(tr(MESSAGES, "export", lang), variant="primary", id="export-ok")
                yield Button(tr(MESSAGES, "cancel", lang), id="export-cancel")
            yield Label(tr(MESSAGES, "hint", lang), classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    # -- fields ----------------------------------------------------------------------------------------------

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        new: Format = "md" if event.pressed.id == "fmt-md" else "txt"
        self.set_format(new)

    def set_format(self, fmt: Format) -> None:
        if fmt == self.fmt:
            return
        path_input = self.query_one("#export-path", Input)
        old_default = str(default_export_path(self.root, self.novel_title, self.fmt))
        path = Path(path_input.value.strip())
        if path_input.value.strip() == old_default or path.suffix.lower() == f".{self.fmt}":
            path_input.value = str(path.with_suffix(f".{fmt}"))
        self.fmt = fmt
        button = self.query_one("#fmt-md" if fmt == "md" else "#fmt-txt", RadioButton)
        if not button.value:
            button.value = True

    def _number(self, widget_id: str) -> int | None:
        value = self.query_one(widget_id, Input).value.strip()
        if not value:
            return None
        try:
            return int(value)
        except ValueError:
            raise ValueError(tr(MESSAGES, "bad_number", self.lang, value=value)) from None

    def _error(self, message: str) -> None:
        self.query_one("#export-error", Label).update(message)

    # -- actions ---------------------------------------------------------------------------------------------

    def run_export(self) -> ExportResult | None:
        """Export with the fields as they are; a problem is shown in the dialog (None)."""
        raw_path = self.query_one("#export-path", Input).value.strip()
        if not raw_path:
            self._error(tr(MESSAGES, "no_path", self.lang))
            return None
        out = Path(raw_path).expanduser()
        if not out.is_absolute():
            out = self.root / out
        try:
            start = self._number("#export-from")
            end = self._number("#export-to")
        except ValueError as exc:
            self._error(str(exc))
            return None
        try:
            return export_chapters(self.root, out, start=start, end=end, fmt=self.fmt, lang=self.lang)
        except (StudioError, OSError) as exc:
            self._error(tr(MESSAGES, "failed", self.lang, error=exc))
            return None

    def action_export(self) -> None:
        result = self.run_export()
        if result is not None:
            self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_export()

    @on(Button.Pressed, "#export-ok")
    def _ok(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_export()

    @on(Button.Pressed, "#export-cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()
