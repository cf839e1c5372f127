"""The style choice of the new-novel path (issue 7 item 2, seed 000 §7 L1): one of the four style sources of
`studio.models.quick_start.QuickStartRequest`, with its input.

`StyleChoice(root, lang, *, volume_length=30)` is a `Screen[QuickStartRequest | None]`:

- 1 `samples`: 1-3 of the author's own chapters, picked with a path input (enter adds the file; each path is
  checked by `studio.tui.new_novel.check_sample`: it exists, is UTF-8 text, is not empty; relative paths are
  taken from the project folder, `~` works); ctrl+d removes the last one;
- 2 `reference`: a reference author's name (directives only; no third-party prose is stored);
- 3 `preset`: one of `TONE_PRESETS`;
- 4 `write_then_extract`: the style is taken from the trial chapters (nothing to fill in).

1-4 (outside a text field) or the radio buttons choose; ctrl+s (or the start button) builds the request
(`QuickStartRequest.parse_data`: a choice without its input is refused with the reason on screen), saves it to
`.novel-studio/quick-start.json` and dismisses with it; escape dismisses with None (back to the brief form).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from screens.prompt_dialogs import FoldedText
from studio.errors import FormatError, StudioError
from studio.i18n import Catalog, Lang, tr
from studio.models.quick_start import (
    DEFAULT_VOLUME_LENGTH,
    MAX_STYLE_SAMPLES,
    TONE_PRESETS,
    QuickStartRequest,
    StyleSource,
)
from studio.paths import ProjectPaths
from studio.tui.new_novel import check_sample, quick_start_path, save_quick_start
from widgets.radio_button import MarkedRadioButton

__all__ = ["MESSAGES", "SOURCES", "StyleChoice"]

SOURCES: tuple[StyleSource, ...] = ("samples", "reference", "preset", "write_then_extract")

MESSAGES: Catalog = {
    "title": ("新建小说 · 文风", "New novel · the style"),
    "s_samples": ("1 用我自己写的样章（1-3 个文件）", "1 My own sample chapters (1-3 files)"),
    "s_reference": ("2 参考一位作者的风格（只取风格指令）", "2 Like a reference author (directives only)"),
    "s_preset": ("3 选一个预设基调", "3 A tone preset"),
    "s_write_then_extract": ("4 先写试写三章，再从中提炼文风", "4 Write the trial chapters first, take the style from them"),
    "samples_label": (
        "样章文件路径（Enter 添加，最多 {n} 个；相对路径从项目文件夹算起）",
        "Sample file path (Enter adds it, at most {n}; relative to the project folder)",
    ),
    "samples_placeholder": ("例如：~/写作/旧作第一章.txt", "e.g. ~/writing/chapter-1.txt"),
    "samples_none": ("还没有添加样章", "No sample added yet"),
    "samples_list": ("已添加：\n{items}", "Added:\n{items}"),
    "samples_full": ("最多 {n} 个样章", "At most {n} samples"),
    "samples_dup": ("已经添加过：{path}", "Already added: {path}"),
    "reference_label": ("参考作者的名字（不会保存任何他人的原文）", "The reference author's name (no third-party prose is stored)"),
    "reference_placeholder": ("例如：金庸", "e.g. an author whose voice you like"),
    "preset_label": ("预设基调", "Tone preset"),
    "extract_label": (
        "不需要填写：快速开始会先写试写三章，再从中提炼文风档案。",
        "Nothing to fill in: the quick start writes the trial chapters first and takes the style profile from them.",
    ),
    "start": ("开始快速开始 (Ctrl+S)", "Start the quick start (Ctrl+S)"),
    "back": ("返回纲领 (Esc)", "Back to the brief (Esc)"),
    "hint": (
        "1-4 选择方式 · Ctrl+D 删除最后一个样章 · Ctrl+S 开始 · Esc 返回",
        "1-4 choose · Ctrl+D remove the last sample · Ctrl+S start · Esc back",
    ),
    "bad_request": ("还不能开始：{problems}", "Cannot start yet: {problems}"),
    "save_failed": ("保存选择失败：{message}", "Saving the choices failed: {message}"),
    "need_sample": ("请至少添加 1 个样章文件", "Add at least 1 sample file"),
    "need_reference": ("请填写参考作者的名字", "Enter the reference author's name"),
    "need_preset": ("请选择一个预设基调", "Choose a tone preset"),
}


class StyleChoice(Screen[QuickStartRequest | None]):
    """Choose where the style comes from (see the module docstring)."""

    DEFAULT_CSS = """
    StyleChoice {
        align: center middle;
    }
    StyleChoice > #style-box {
        width: 100%;
        max-width: 110;
        height: 100%;
        border: thick $primary;
        padding: 0 1;
    }
    StyleChoice #style-title {
        text-style: bold;
        height: auto;
    }
    StyleChoice #style-body {
        height: 1fr;
    }
    StyleChoice RadioSet {
        width: 100%;
        height: auto;
    }
    StyleChoice #style-presets {
        width: 100%;
        height: auto;
    }
    StyleChoice .field-label {
        margin-top: 1;
        color: $text-muted;
        width: 100%;
    }
    StyleChoice .style-panel {
        height: auto;
        display: none;
    }
    StyleChoice .style-panel.-shown {
        display: block;
    }
    StyleChoice #style-error {
        color: $text-error;
        text-style: bold;
        height: auto;
    }
    StyleChoice #style-buttons {
        height: auto;
        align-horizontal: center;
    }
    StyleChoice Button {
        margin: 0 1;
    }
    StyleChoice #style-hint {
        color: $text-muted;
        height: auto;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", show=False, priority=True),
        Binding("ctrl+d", "remove_sample", show=False, priority=True),
        Binding("escape", "back", show=False),
        Binding("1", "choose(0)", show=False),
        Binding("2", "choose(1)", show=False),
        Binding("3", "choose(2)", show=False),
        Binding("4", "choose(3)", show=False),
    ]

    def __init__(
        self,
        root: Path,
        lang: Lang = "zh",
        *,
        volume_length: int = DEFAULT_VOLUME_LENGTH,
        initial: QuickStartRequest | None = None,
    ) -> None:
        super().__init__()
        self.root = Path(root)
        self.lang: Lang = lang
        self.volume_length = volume_length
        initial = initial or QuickStartRequest(volume_length=volume_length)
        self.source: StyleSource = initial.style_source
        self.samples: list[Path] = [Path(p) for p in initial.sample_paths]
        self.initial = initial

    # -- layout -----------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="style-box"):
            yield FoldedText(tr(MESSAGES, "title", lang), id="style-title")
            with VerticalScroll(id="style-body"):
                with RadioSet(id="style-sources"):
                    for source in SOURCES:
                        yield MarkedRadioButton(
                            tr(MESSAGES, f"s_{source}", lang), value=source == self.source, id=f"source-{source}"
                        )
                with Vertical(id="panel-samples", classes="style-panel"):
                    yield Label(
                        tr(MESSAGES, "samples_label", lang, n=MAX_STYLE_SAMPLES), classes="field-label", markup=False
                    )
                    yield Input(id="sample-path", placeholder=tr(MESSAGES, "samples_placeholder", lang))
                    yield FoldedText(self._samples_text(), id="sample-list")
                with Vertical(id="panel-reference", classes="style-panel"):
                    yield Label(tr(MESSAGES, "reference_label", lang), classes="field-label", markup=False)
                    yield Input(
                        self.initial.reference_author,
                        id="reference-author",
                        placeholder=tr(MESSAGES, "reference_placeholder", lang),
                    )
                with Vertical(id="panel-preset", classes="style-panel"):
                    yield Label(tr(MESSAGES, "preset_label", lang), classes="field-label", markup=False)
                    with RadioSet(id="style-presets"):
                        for index, preset in enumerate(TONE_PRESETS):
                            yield MarkedRadioButton(preset, value=preset == self.initial.preset, id=f"preset-{index}")
                with Vertical(id="panel-write_then_extract", classes="style-panel"):
                    yield FoldedText(tr(MESSAGES, "extract_label", lang), classes="field-label")
            yield FoldedText("", id="style-error")
            with Horizontal(id="style-buttons"):
                yield Button(tr(MESSAGES, "start", lang), id="start", variant="primary", compact=True)
                yield Button(tr(MESSAGES, "back", lang), id="back", compact=True)
            yield FoldedText(tr(MESSAGES, "hint", lang), keys=True, id="style-hint")

    def on_mount(self) -> None:
        self._show_panel()
        self.query_one("#style-sources", RadioSet).focus()

    def _samples_text(self) -> str:
        if not self.samples:
            return tr(MESSAGES, "samples_none", self.lang)
        items = "\n".join(f"  {i}. {p}" for i, p in enumerate(self.samples, 1))
        return tr(MESSAGES, "samples_list", self.lang, items=items)

    def _show_panel(self) -> None:
        for source in SOURCES:
            self.query_one(f"#panel-{source}").set_class(source == self.source, "-shown")

    def show_problem(self, problem: str | None) -> None:
        self.query_one("#style-error", FoldedText).update(problem or "")

    # -- choosing ---------------------------------------------------------------------------------------------

    def action_choose(self, index: int) -> None:
        if isinstance(self.focused, Input):
            return  # the digit was typed into a field (priority is off, so this is only a fallback)
        self.query_one(f"#source-{SOURCES[index]}", RadioButton).value = True

    @on(RadioSet.Changed, "#style-sources")
    def _source_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        button_id = event.pressed.id or ""
        source = button_id.removeprefix("source-")
        if source in SOURCES:
            self.source = source
            self._show_panel()
            self.show_problem(None)

    @on(RadioSet.Changed, "#style-presets")
    def _preset_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.show_problem(None)

    @on(Input.Submitted, "#sample-path")
    def _add_sample(self, event: Input.Submitted) -> None:
        event.stop()
        if len(self.samples) >= MAX_STYLE_SAMPLES:
            self.show_problem(tr(MESSAGES, "samples_full", self.lang, n=MAX_STYLE_SAMPLES))
            return
        checked = check_sample(event.value, self.root, self.lang)
        if isinstance(checked, str):
            self.app.bell()
            self.show_problem(checked)
            return
        if checked in self.samples:
            self.show_problem(tr(MESSAGES, "samples_dup", self.lang, path=checked))
            return
        self.samples.append(checked)
        event.input.value = ""
        self.show_problem(None)
        self.query_one("#sample-list", FoldedText).update(self._samples_text())

    @on(Input.Submitted, "#reference-author")
    def _reference_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def action_remove_sample(self) -> None:
        if self.samples:
            self.samples.pop()
            self.query_one("#sample-list", FoldedText).update(self._samples_text())

    # -- the request ------------------------------------------------------------------------------------------

    def preset(self) -> str:
        pressed = self.query_one("#style-presets", RadioSet).pressed_button
        if pressed is None or not pressed.id:
            return ""
        return TONE_PRESETS[int(pressed.id.removeprefix("preset-"))]

    def request(self) -> QuickStartRequest | str:
        """The request for the chosen source, or why it is not complete (a readable line)."""
        source = self.source
        reference = self.query_one("#reference-author", Input).value.strip()
        data: dict[str, object] = {"style_source": source, "volume_length": self.volume_length}
        if source == "samples":
            if not self.samples:
                return tr(MESSAGES, "need_sample", self.lang)
            data["sample_paths"] = [str(p) for p in self.samples]
        elif source == "reference":
            if not reference:
                return tr(MESSAGES, "need_reference", self.lang)
            data["reference_author"] = reference
        elif source == "preset":
            preset = self.preset()
            if not preset:
                return tr(MESSAGES, "need_preset", self.lang)
            data["preset"] = preset
        try:
            return QuickStartRequest.parse_data(data, quick_start_path(ProjectPaths(self.root)))
        except FormatError as exc:
            problems = "；".join(p.describe(self.lang) for p in exc.problems) or exc.text(self.lang)
            return tr(MESSAGES, "bad_request", self.lang, problems=problems)

    def action_start(self) -> None:
        request = self.request()
        if isinstance(request, str):
            self.app.bell()
            self.show_problem(request)
            return
        try:
            save_quick_start(self.root, request)
        except (OSError, StudioError) as exc:
            self.show_problem(tr(MESSAGES, "save_failed", self.lang, message=exc))
            return
        self.dismiss(request)

    def action_back(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start()
        else:
            self.action_back()

