"""状态变更 / State diff pane: a chapter's state patch as before → after, grouped by entity.

Renders a `studio.views.state_diff.StateDiff` (built by `state_diff_for_chapter(project, n)`) as Rich Text
in a scrolling container: entity titles with display names, one line per change with Chinese field labels
(`情绪：惊魂未定 → 将信将疑`, `随身物品：+ 密信`, `关系·许青禾：0 → 10 (+10)`; ` -> ` in English), the foreshadowing ops and the
ops the state engine dropped, with the reason. Additions and removals carry `+`/`-`, so the meaning does not
depend on colour.
"""

from __future__ import annotations

from rich.text import Text

from studio.i18n import Catalog, Lang, tr
from studio.views.state_diff import KIND_LABELS, StateDiff, field_label
from studio.views.state_diff import MESSAGES as DIFF_MESSAGES
from widgets.text_pane import TextPane

MESSAGES: Catalog = {
    "none": ("本章尚无状态补丁", "No state patch for this chapter yet"),
    "empty": ("本章没有状态变更", "No state changes in this chapter"),
    "error": ("无法读取状态变更：{error}", "Cannot read the state changes: {error}"),
    "select": ("（未选择章节）", "(no chapter selected)"),
    "header": ("第{n}章", "Ch {n}"),
    # its own line: in a narrow pane a one-line header broke inside `1 → 2`
    "version": ("状态版本 {base} → {version}", "version {base} -> {version}"),
    "staged": ("（暂存，尚未提交）", " (staged, not committed yet)"),
    "new": ("新", "new"),
    "foreshadowing": ("伏笔", "Foreshadowing"),
    "dropped": ("被丢弃的操作（{n}）", "Dropped ops ({n})"),
    "colon": ("：", ": "),
}

ADD_STYLE = "green"
REMOVE_STYLE = "red"
ACTION_STYLES = {"planted": "green", "advanced": "cyan", "resolved": "magenta"}


def _kind(kind: str, lang: Lang) -> str:
    pair = KIND_LABELS.get(kind)
    return kind if pair is None else (pair[0] if lang == "zh" else pair[1])


def render_state_diff(diff: StateDiff | None, lang: Lang = "zh") -> Text:
    """The pane's content as Rich Text (also usable outside the widget, e.g. in a dialog)."""
    out = Text(end="")
    if diff is None:
        out.append(tr(MESSAGES, "none", lang), style="dim")
        return out
    if diff.chapter is not None and diff.base_state_version is not None:
        out.append(tr(MESSAGES, "header", lang, n=diff.chapter), style="bold")
        if diff.staged:
            out.append(tr(MESSAGES, "staged", lang), style="yellow")
        out.append("\n")
        out.append(tr(MESSAGES, "version", lang, base=diff.base_state_version, version=diff.state_version))
        out.append("\n")
    if diff.is_empty:
        out.append(tr(MESSAGES, "empty", lang), style="dim")
        return out
    colon = tr(MESSAGES, "colon", lang)
    for entity in diff.entities:
        out.append("\n")
        if entity.id is not None:
            out.append(f"[{_kind(entity.kind, lang)}] ", style="dim")
        out.append(entity.title(lang), style="bold")
        if entity.is_new:
            out.append(f" ({tr(MESSAGES, 'new', lang)})", style="green")
        out.append("\n")
        for change in entity.changes:
            out.append("  " + field_label(change.path, lang, diff.display_names) + colon)
            if change.op == "add":
                out.append(change.change_text(lang), style=ADD_STYLE)
            elif change.op == "remove":
                out.append(change.change_text(lang), style=REMOVE_STYLE)
            else:
                out.append(change.before_text(lang), style="dim")
                out.append(tr(DIFF_MESSAGES, "arrow", lang))
                out.append(change.after_text(lang), style="bold")
            out.append("\n")
    if diff.foreshadowing:
        out.append("\n")
        out.append(tr(MESSAGES, "foreshadowing", lang), style="bold")
        out.append("\n")
        for fs in diff.foreshadowing:
            out.append("  ")
            out.append(f"[{fs.action_label(lang)}]", style=ACTION_STYLES.get(fs.action, ""))
            out.append(f" {fs.id}\n")
            # The detail goes on its own line: a long run of Chinese has no space to wrap at, so after a
            # prefix it would jump to the next line anyway and leave a ragged gap.
            if fs.detail:
                out.append("    " + fs.detail + "\n")
            elif fs.description:
                out.append("    " + fs.description + "\n", style="dim")
    if diff.dropped:
        out.append("\n")
        out.append(tr(MESSAGES, "dropped", lang, n=len(diff.dropped)), style="bold red")
        out.append("\n")
        for dropped in diff.dropped:
            out.append("  x ", style="red")
            out.append(dropped.reason_in(lang))
            out.append("\n")
            out.append("    " + dropped.entry_text, style="dim")
            out.append("\n")
    out.rstrip()
    return out


class StateDiffView(TextPane, can_focus=True):
    """Shows one chapter's `StateDiff`: `show_diff(diff)`; `show_error(message)` for an unreadable changelog."""

    def __init__(
        self,
        diff: StateDiff | None = None,
        *,
        lang: Lang = "zh",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(lang=lang, name=name, id=id, classes=classes)
        self._diff = diff
        self._shown = diff is not None

    def initial_body(self) -> Text:
        return render_state_diff(self._diff, self.lang) if self._shown else Text(tr(MESSAGES, "select", self.lang))

    @property
    def diff(self) -> StateDiff | None:
        return self._diff

    def show_diff(self, diff: StateDiff | None) -> None:
        """Show `diff` (None: the chapter has no patch yet) from the top."""
        self._diff = diff
        self._shown = True
        self.show_body(render_state_diff(diff, self.lang))

    def prepare_diff(self, diff: StateDiff | None) -> None:
        """Wrap `diff` now without showing it (`TextPane.prepare_body`): a chapter about to be selected."""
        self.prepare_body(render_state_diff(diff, self.lang))

    def show_error(self, message: str) -> None:
        self._diff = None
        self.show_body(Text(tr(MESSAGES, "error", self.lang, error=message), style="red"))


__all__ = ["StateDiffView", "render_state_diff"]
