"""The studio's header: project, volume/chapter, orchestrator state, pipeline stage with its elapsed time,
tokens and cost (this run / the project), the prompt cache's read share of the book (when a vendor reported
it), how many pinned prompts have a newer version, provider, and a clear OFFLINE marker.

One line in a terminal of 120 columns or more (`WRAP_CELLS` text cells: 120 minus the padding); below that,
or when the one-line form could not fit (a long title), two lines: where the novel stands (title, position,
state, stage) over what it costs (run and book totals, provider), so at 80 columns nothing that matters is
cut. The choice depends only on the width and the slow-changing fields (a reserve is kept for the widest stage
label and its timer), so the panes below do not jump when a stage starts. Widths are terminal cells
(`rich.cells.cell_len`); a title that does not fit is shortened with `…`, never the totals.

`StudioHeader.info` is a plain dataclass (`HeaderInfo`); `update_info(**changes)` replaces fields and redraws.
The elapsed time ticks once a second only while a stage runs (`start_stage` / `stop_stage`); the clock is
injectable (`clock=`) so tests and snapshots can freeze it. Stages that run side by side (the summarizer and the
refiner) are all shown (`摘要+润色 0:12`, the time since the first of them started); one finishing leaves the
others on the header. `HeaderInfo.stage` holds them joined by commas; a stage `rebuild:summarize` reads
`重建·摘要` (a rebuild's own stage).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import Static

from studio.i18n import Catalog, Lang, format_tokens, tr
from studio.i18n_names import stage_name, state_name

MESSAGES: Catalog = {
    "offline": (" 离线模式 ", " OFFLINE "),
    "position": ("第{volume}卷·第{chapter}章", "Vol {volume} Ch {chapter}"),
    "stage": ("阶段：{stage}", "stage: {stage}"),
    "no_stage": ("阶段：—", "stage: -"),
    "run": ("本次 {tokens} tokens ${cost:.2f}", "run {tokens} tokens ${cost:.2f}"),
    "project": ("全书 {tokens} tokens ${cost:.2f}", "book {tokens} tokens ${cost:.2f}"),
    # the spend ledger has lines it could not count: at least this much (`status` names the lines)
    "project_partial": ("全书 {tokens} tokens ≥${cost:.2f}", "book {tokens} tokens ≥${cost:.2f}"),
    "provider": ("模型：{name}", "provider: {name}"),
    "provider_offline": ("离线", "offline"),  # the offline provider's name, `offline`, in the UI's language
    "cache": ("缓存 {share}%", "cache {share}%"),
    "prompt_updates": ("提示词可升级 {n}", "prompt updates: {n}"),
}

RUN_STAGES: tuple[str, ...] = ("draft", "summarize", "refine", "judge", "polish", "revise", "rewrite", "commit",
                              "checks", "summarize,refine", "rebuild:summarize", "rebuild:judge")
"""What the stage slot can show (the reserve keeps room for the widest of them)."""


def stages_label(stage: str, lang: Lang) -> str:
    """`summarize,refine` -> `摘要+润色`; `rebuild:judge` -> `重建·评审`."""
    parts = []
    for one in stage.split(","):
        head, _, sub = one.partition(":")
        parts.append(f"{stage_name(head, lang)}·{stage_name(sub, lang)}" if sub else stage_name(head, lang))
    return "+".join(parts)


def format_elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    minutes, sec = divmod(seconds, 60)
    return f"{minutes}:{sec:02d}"


@dataclass(frozen=True)
class HeaderInfo:
    title: str = ""
    volume: int | None = None
    chapter: int | None = None
    state: str = "idle"
    stage: str | None = None
    run_tokens: int = 0
    run_cost: float = 0.0
    project_tokens: int = 0
    project_cost: float = 0.0
    project_cost_partial: bool = False  # the ledger has unreadable lines: the book's cost may be incomplete
    provider: str = ""
    offline: bool = False
    cache_share: float | None = None  # the book's prompt-cache read share (studio.status CacheShare.book)
    prompt_updates: int = 0  # pinned prompts with a newer installed version (or a missing file)


WRAP_CELLS = 118
"""Below this many cells of text width (a 120-column terminal minus the header's padding) it takes two lines."""

SEP = " │ "
TITLE_MIN_CELLS = 6
_ELAPSED_RESERVE = " 59:59"
_SLACK_CELLS = 6  # room for the token counts to grow by a digit or two without re-wrapping


def _title_text(info: HeaderInfo, lang: Lang) -> str:
    return f"《{info.title}》" if lang == "zh" else info.title


def _fit_title(title: str, cells: int) -> str:
    """The title cut to `cells` terminal cells (ending in `…`), or unchanged when it fits."""
    if cells <= 0 or cell_len(title) <= cells:
        return title
    return set_cell_size(title, max(1, cells - 1)).rstrip() + "…"


def _stage_text(info: HeaderInfo, lang: Lang, elapsed: float | None) -> str:
    if not info.stage:
        return tr(MESSAGES, "no_stage", lang)
    stage = tr(MESSAGES, "stage", lang, stage=stages_label(info.stage, lang))
    if elapsed is not None:
        stage += f" {format_elapsed(elapsed)}"
    return stage


def _where(info: HeaderInfo, lang: Lang, elapsed: float | None, title: str) -> Text:
    """Title, OFFLINE, position, state and stage."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(title, style="bold")
    if info.offline:
        text.append(" ")
        text.append(tr(MESSAGES, "offline", lang), style="bold reverse yellow")
    if info.volume is not None and info.chapter is not None:
        text.append(SEP)
        text.append(tr(MESSAGES, "position", lang, volume=info.volume, chapter=info.chapter))
    text.append(SEP)
    text.append(state_name(info.state, lang), style="bold")
    text.append(SEP)
    text.append(_stage_text(info, lang, elapsed), style="bold cyan" if info.stage else "dim")
    return text


def _costs(info: HeaderInfo, lang: Lang) -> Text:
    """Run and book tokens and cost, provider."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(tr(MESSAGES, "run", lang, tokens=format_tokens(info.run_tokens, lang), cost=info.run_cost))
    text.append(" · ")
    key = "project_partial" if info.project_cost_partial else "project"
    text.append(tr(MESSAGES, key, lang, tokens=format_tokens(info.project_tokens, lang), cost=info.project_cost))
    if info.cache_share is not None:
        text.append(" · ")
        text.append(tr(MESSAGES, "cache", lang, share=round(info.cache_share * 100)))
    if info.prompt_updates:
        text.append(" · ")
        text.append(tr(MESSAGES, "prompt_updates", lang, n=info.prompt_updates), style="bold yellow")
    text.append(SEP)
    name = tr(MESSAGES, "provider_offline", lang) if info.provider == "offline" else info.provider or "-"
    text.append(tr(MESSAGES, "provider", lang, name=name), style="dim")
    return text


def _widest_stage(lang: Lang) -> int:
    labels = [tr(MESSAGES, "stage", lang, stage=stages_label(key, lang)) for key in RUN_STAGES]
    return max(cell_len(label) for label in labels) + len(_ELAPSED_RESERVE)


def _reserve(info: HeaderInfo, lang: Lang, elapsed: float | None) -> int:
    """Cells the stage slot may need beyond what it takes now (so a stage starting does not re-wrap)."""
    return max(0, _widest_stage(lang) - cell_len(_stage_text(info, lang, elapsed))) + _SLACK_CELLS


def header_lines(info: HeaderInfo, lang: Lang = "zh", elapsed: float | None = None, width: int | None = None) -> int:
    """How many lines the header takes at `width` cells (1 with no width given)."""
    if width is None:
        return 1
    if width < WRAP_CELLS:
        return 2
    title = _title_text(info, lang)
    one_line = cell_len(_where(info, lang, elapsed, title).plain) + len(SEP) + cell_len(_costs(info, lang).plain)
    return 1 if one_line + _reserve(info, lang, elapsed) <= width else 2


def render_header(info: HeaderInfo, lang: Lang = "zh", elapsed: float | None = None, width: int | None = None) -> Text:
    """The header for `width` cells: one line, or two below `WRAP_CELLS` (see the module docstring).
    Without a width, the one-line form at full length."""
    title = _title_text(info, lang)
    costs = _costs(info, lang)
    if header_lines(info, lang, elapsed, width) == 1:
        if width is not None:
            rest = cell_len(_where(info, lang, elapsed, "").plain) + len(SEP) + cell_len(costs.plain)
            title = _fit_title(title, max(TITLE_MIN_CELLS, width - rest))
        text = _where(info, lang, elapsed, title)
        text.append(SEP)
        text.append_text(costs)
        return text
    assert width is not None
    rest = cell_len(_where(info, lang, elapsed, "").plain)
    title = _fit_title(title, max(TITLE_MIN_CELLS, width - rest))
    text = _where(info, lang, elapsed, title)
    text.append("\n")
    text.append_text(costs)
    return text


class StudioHeader(Static):
    """The top of the main screen: one line when wide, two below 120 columns."""

    DEFAULT_CSS = """
    StudioHeader {
        height: auto;
        max-height: 2;
        width: 100%;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    def __init__(
        self,
        info: HeaderInfo | None = None,
        *,
        lang: Lang = "zh",
        clock: Callable[[], float] = time.monotonic,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__("", id=id, classes=classes, markup=False)
        self.lang: Lang = lang
        self.info = info or HeaderInfo()
        self.clock = clock
        self._stage_started: float | None = None
        self._stages_running: dict[str, float] = {}  # stage -> when it started, in start order
        self._ticker: Timer | None = None

    def on_mount(self) -> None:
        self._redraw()

    @property
    def elapsed(self) -> float | None:
        if self._stage_started is None:
            return None
        return self.clock() - self._stage_started

    @property
    def ticking(self) -> bool:
        return self._ticker is not None

    def update_info(self, **changes: Any) -> None:
        self.info = replace(self.info, **changes)
        self._redraw()

    @property
    def running_stages(self) -> list[str]:
        """The stages running now, in the order they started."""
        return list(self._stages_running)

    def start_stage(self, stage: str) -> None:
        """A stage began: show it (with any still running) and the elapsed time, ticking every second."""
        now = self.clock()
        self._stages_running.pop(stage, None)
        self._stages_running[stage] = now
        self._stage_started = min(self._stages_running.values())
        self.info = replace(self.info, stage=",".join(self._stages_running))
        if self._ticker is None and self.is_mounted:
            self._ticker = self.set_interval(1.0, self._redraw, name="header-elapsed")
        self._redraw()

    def stop_stage(self, stage: str | None = None, *, keep_label: bool = False) -> None:
        """`stage` finished (the others still running stay shown); with no stage, none runs any more: stop the
        timer (and clear the stage unless `keep_label`)."""
        if stage is not None:
            self._stages_running.pop(stage, None)
            if self._stages_running:
                self._stage_started = min(self._stages_running.values())
                self.info = replace(self.info, stage=",".join(self._stages_running))
                self._redraw()
                return
        self._stages_running.clear()
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self._stage_started = None
        if not keep_label:
            self.info = replace(self.info, stage=None)
        self._redraw()

    def plain(self) -> str:
        """The header's text as drawn now (at its current width; one line when not laid out yet)."""
        return self.render_text().plain

    @property
    def text_width(self) -> int | None:
        """Cells available to the text: the content width, or the screen's minus padding before layout."""
        if self.size.width > 0:
            return self.size.width
        if self.is_attached and self.app.size.width > 0:
            return max(1, self.app.size.width - 2)
        return None

    def render_text(self) -> Text:
        return render_header(self.info, self.lang, self.elapsed, self.text_width)

    def on_resize(self, event: Resize) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if self.is_mounted:
            text = self.render_text()
            self.update(text, layout=self._needs_layout(text))

    def _needs_layout(self, text: Text) -> bool:
        """Whether `text` needs another height than the header has now. `Static.update` lays out the whole
        screen by default: on every chapter selection and every tick of the elapsed time while a stage runs,
        although the header keeps its one or two lines."""
        width, height = self.size
        if width <= 0 or height <= 0:
            return True
        lines = text.plain.split("\n")
        return len(lines) != height or any(cell_len(line) > width for line in lines)
