"""The studio's header line: project, volume/chapter, orchestrator state, pipeline stage with its elapsed
time, tokens and cost (this run / the project), provider, and a clear OFFLINE marker.

`StudioHeader.info` is a plain dataclass (`HeaderInfo`); `update_info(**changes)` replaces fields and redraws.
The elapsed time ticks once a second only while a stage runs (`start_stage` / `stop_stage`); the clock is
injectable (`clock=`) so tests and snapshots can freeze it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from studio.i18n import Catalog, Lang, tr

MESSAGES: Catalog = {
    "offline": (" 离线模式 ", " OFFLINE "),
    "position": ("第{volume}卷·第{chapter}章", "Vol {volume} Ch {chapter}"),
    "stage": ("阶段：{stage}", "stage: {stage}"),
    "no_stage": ("阶段：—", "stage: -"),
    "run": ("本次 {tokens} tok ${cost:.2f}", "run {tokens} tok ${cost:.2f}"),
    "project": ("全书 {tokens} tok ${cost:.2f}", "book {tokens} tok ${cost:.2f}"),
    "provider": ("模型：{name}", "provider: {name}"),
}

STATE_LABELS: dict[str, tuple[str, str]] = {
    "INIT": ("初始化", "init"),
    "QUICK_START": ("快速起步", "quick start"),
    "VOL_PLANNING": ("卷规划", "planning"),
    "WRITING": ("写作", "writing"),
    "CHAPTER_REWRITE": ("重写", "rewrite"),
    "VOL_REVIEW": ("卷末回顾", "volume review"),
    "ERROR_RETRY": ("出错待重试", "error, retry"),
    "idle": ("空闲", "idle"),
    "running": ("运行中", "running"),
    "paused": ("等待作者", "paused"),
}

STAGE_LABELS: dict[str, tuple[str, str]] = {
    "draft": ("起草", "draft"),
    "summarize": ("摘要", "summarize"),
    "refine": ("润色", "refine"),
    "judge": ("评审", "judge"),
    "polish": ("精修", "polish"),
    "revise": ("修订", "revise"),
    "rewrite": ("重写", "rewrite"),
    "commit": ("提交", "commit"),
}


def _label(table: dict[str, tuple[str, str]], key: str, lang: Lang) -> str:
    pair = table.get(key)
    if pair is None:
        return key
    return pair[0] if lang == "zh" else pair[1]


def format_elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    minutes, sec = divmod(seconds, 60)
    return f"{minutes}:{sec:02d}"


def format_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    return str(n)


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
    provider: str = ""
    offline: bool = False


def render_header(info: HeaderInfo, lang: Lang = "zh", elapsed: float | None = None) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(f"《{info.title}》" if lang == "zh" else info.title, style="bold")
    if info.offline:
        text.append(" ")
        text.append(tr(MESSAGES, "offline", lang), style="bold reverse yellow")
    sep = " │ "
    if info.volume is not None and info.chapter is not None:
        text.append(sep)
        text.append(tr(MESSAGES, "position", lang, volume=info.volume, chapter=info.chapter))
    text.append(sep)
    text.append(_label(STATE_LABELS, info.state, lang), style="bold")
    text.append(sep)
    if info.stage:
        stage = tr(MESSAGES, "stage", lang, stage=_label(STAGE_LABELS, info.stage, lang))
        if elapsed is not None:
            stage += f" {format_elapsed(elapsed)}"
        text.append(stage, style="bold cyan")
    else:
        text.append(tr(MESSAGES, "no_stage", lang), style="dim")
    text.append(sep)
    text.append(tr(MESSAGES, "run", lang, tokens=format_tokens(info.run_tokens), cost=info.run_cost))
    text.append(" · ")
    text.append(tr(MESSAGES, "project", lang, tokens=format_tokens(info.project_tokens), cost=info.project_cost))
    text.append(sep)
    text.append(tr(MESSAGES, "provider", lang, name=info.provider or "-"), style="dim")
    return text


class StudioHeader(Static):
    """One line at the top of the main screen."""

    DEFAULT_CSS = """
    StudioHeader {
        height: 1;
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

    def start_stage(self, stage: str) -> None:
        """A stage began: show it with its elapsed time, ticking every second."""
        self._stage_started = self.clock()
        self.info = replace(self.info, stage=stage)
        if self._ticker is None and self.is_mounted:
            self._ticker = self.set_interval(1.0, self._redraw, name="header-elapsed")
        self._redraw()

    def stop_stage(self, *, keep_label: bool = False) -> None:
        """No stage runs any more: stop the timer (and clear the stage unless `keep_label`)."""
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self._stage_started = None
        if not keep_label:
            self.info = replace(self.info, stage=None)
        self._redraw()

    def plain(self) -> str:
        return render_header(self.info, self.lang, self.elapsed).plain

    def _redraw(self) -> None:
        if self.is_mounted:
            self.update(render_header(self.info, self.lang, self.elapsed))
