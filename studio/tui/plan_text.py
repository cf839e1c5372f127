"""A staged volume plan as text (issue 7 item 4), without a screen: what the approval screen
(`screens.plan_approval`) shows, from the plan-approval question's data alone.

- `plan_text(plan, lang, *, names, facts, diff, overwrites)`: a styled `rich.text.Text`: the facts given, the
  files the apply would replace that the author edited (each with its diff), the outline's diff, then one block
  per chapter (number, title, storyline, POV by display name, location, conflict, 爽点, hook, foreshadowing),
  the new threads and characters, the warnings, the estimated cost of writing the volume.
- `plan_summary(plan, lang, *, overwrites)`: the one line kept above it (chapters, cost, warnings).
- `fold_lines(text, width)`: the text as screen lines, broken the Chinese way (`studio.tui.hunks.fold_offsets`).
`plan` is shaped as `novel-studio plan --json` prints it (`studio.cli.plan_cmd.plan_data`); missing fields
are left out, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from studio.i18n import Catalog, Lang, tr, tr_count
from studio.tui.hunks import fold_offsets

__all__ = [
    "MESSAGES",
    "fold_lines",
    "overwrites_of",
    "plan_chapter_count",
    "plan_summary",
    "plan_text",
    "write_cost_per_chapter",
]

MESSAGES: Catalog = {
    "header": (
        "第 {volume} 卷计划：第 {first}-{last} 章，共 {n} 章",
        "Plan of volume {volume}: chapters {first}-{last}, {n} chapters",
    ),
    "chapter": ("第{n}章 {title}", "Ch {n} {title}"),
    "f_line": ("故事线", "Storyline"),
    "f_pov": ("视角", "POV"),
    "f_place": ("地点", "Location"),
    "f_conflict": ("冲突", "Conflict"),
    "f_payoff": ("爽点", "Payoff"),
    "f_hook": ("章末钩子", "Hook"),
    "f_threads": ("伏笔", "Foreshadowing"),
    "threads": ("本卷新伏笔", "New threads"),
    "new_characters": ("新角色", "New characters"),
    "diff": ("与现有大纲的差异", "Changes to the volume's outline"),
    "overwrites": (
        "注意：批准会替换这些你手动改过的文件（旧文件会备份）",
        "Careful: approving replaces these files you edited by hand (the old ones are backed up)",
    ),
    "summary_overwrites": ("会替换 {n} 个手改过的文件", "replaces {n} hand-edited files"),
    "summary_overwrites_one": ("会替换 {n} 个手改过的文件", "replaces {n} hand-edited file"),
    "warnings": ("提醒（不阻止批准）", "Warnings (approval is still possible)"),
    "no_warnings": ("检查通过，没有提醒", "Checks passed, no warnings"),
    "write_cost": ("写完本卷预计 ${total:.2f}（每章约 ${per:.2f}）", "Writing the volume: about ${total:.2f} (${per:.2f} a chapter)"),
    "write_cost_free": ("写完本卷预计不花钱（离线）", "Writing the volume costs nothing (offline)"),
    "no_cost": ("写完本卷的费用未估算", "The cost of writing the volume was not estimated"),
    "empty": ("（计划里没有章节）", "(the plan has no chapters)"),
    "summary": ("共 {n} 章 · {cost} · {warnings}", "{n} chapters · {cost} · {warnings}"),
    "summary_cost": ("写完预计 ${total:.2f}", "about ${total:.2f} to write"),
    "summary_free": ("离线不花钱", "offline: free"),
    "summary_no_cost": ("费用未估算", "cost not estimated"),
    "summary_warnings": ("{n} 条提醒（见文末）", "{n} warnings at the end"),
    "summary_warnings_one": ("{n} 条提醒（见文末）", "{n} warning at the end"),
    "summary_no_warnings": ("没有提醒", "no warnings"),
}


def _str(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _chapters(plan: Mapping[str, object]) -> list[Mapping[str, object]]:
    chapters = plan.get("chapters")
    if not isinstance(chapters, list):
        return []
    return [c for c in chapters if isinstance(c, Mapping)]


def plan_chapter_count(plan: Mapping[str, object]) -> int:
    """The number of chapters the plan holds (its range when it lists none)."""
    chapters = _chapters(plan)
    if chapters:
        return len(chapters)
    first, last = plan.get("first_chapter"), plan.get("last_chapter")
    if isinstance(first, int) and isinstance(last, int) and last >= first:
        return last - first + 1
    return 0


def write_cost_per_chapter(plan: Mapping[str, object]) -> float | None:
    """The estimated cost of writing one chapter of the volume (None: not estimated)."""
    total = plan.get("estimated_write_cost_usd")
    count = plan_chapter_count(plan)
    if not isinstance(total, int | float) or isinstance(total, bool) or count <= 0:
        return None
    return float(total) / count


def _thread_label(thread: object) -> str:
    """A new thread: an id, or a mapping with id and description."""
    if isinstance(thread, Mapping):
        ident, description = _str(thread.get("id")), _str(thread.get("description"))
        return f"{ident}（{description}）" if ident and description else ident or description
    return _str(thread)


def _warnings(plan: Mapping[str, object], lang: Lang) -> list[str]:
    chosen = plan.get("warnings_en") if lang == "en" and plan.get("warnings_en") else plan.get("warnings")
    return [str(w) for w in chosen] if isinstance(chosen, list) else []


def plan_summary(plan: Mapping[str, object], lang: Lang = "zh", *, overwrites: int = 0) -> str:
    """One line kept above the scrolling plan: chapters, the cost of writing them, how many warnings (and how
    many hand-edited files the apply would replace)."""
    total = plan.get("estimated_write_cost_usd")
    if not isinstance(total, int | float) or isinstance(total, bool):
        cost = tr(MESSAGES, "summary_no_cost", lang)
    elif total == 0:
        cost = tr(MESSAGES, "summary_free", lang)
    else:
        cost = tr(MESSAGES, "summary_cost", lang, total=float(total))
    count = len(_warnings(plan, lang))
    warnings = tr_count(MESSAGES, "summary_warnings", lang, count, n=count) if count else tr(MESSAGES, "summary_no_warnings", lang)
    line = tr(MESSAGES, "summary", lang, n=plan_chapter_count(plan), cost=cost, warnings=warnings)
    if overwrites:
        line += " · " + tr_count(MESSAGES, "summary_overwrites", lang, overwrites, n=overwrites)
    return line


def _diff_lines(out: Text, diff: str) -> None:
    for line in diff.splitlines():
        style = ""
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        out.append(f"  {line}\n", style=style)


def overwrites_of(data: Mapping[str, object]) -> list[tuple[str, str]]:
    """(path, diff) of every hand-edited file the apply would replace (`data["overwrites"]`)."""
    items = data.get("overwrites")
    if not isinstance(items, list):
        return []
    return [(_str(i.get("path")), _str(i.get("diff"))) for i in items if isinstance(i, Mapping)]


def plan_text(
    plan: Mapping[str, object],
    lang: Lang = "zh",
    *,
    names: Mapping[str, str] | None = None,
    storylines: Mapping[str, str] | None = None,
    facts: list[str] | None = None,
    diff: str = "",
    overwrites: list[tuple[str, str]] | None = None,
) -> Text:
    """The staged plan as the author reads it: the facts given, the files the apply would replace that the
    author edited, the outline's diff, then one block per chapter (number, title, storyline, POV, location,
    conflict, 爽点, hook, foreshadowing), the new threads and characters, the warnings, the cost. `names`:
    character id -> name; `storylines`: storyline id -> name (`Storylines.names`; an id not named is shown)."""
    names = names or {}
    storylines = storylines or {}
    sep = "：" if lang == "zh" else ": "
    out = Text()
    for fact in facts or []:
        out.append(f"{fact}\n", style="bold yellow")
    if facts:
        out.append("\n")
    if overwrites:
        out.append(tr(MESSAGES, "overwrites", lang) + sep + "\n", style="bold red")
        for path, file_diff in overwrites:
            out.append(f"  {path}\n", style="bold")
            _diff_lines(out, file_diff)
        out.append("\n")
    if diff.strip():
        out.append(tr(MESSAGES, "diff", lang) + sep + "\n", style="bold")
        _diff_lines(out, diff)
        out.append("\n")
    chapters = _chapters(plan)
    volume = plan.get("volume", "?")
    first = plan.get("first_chapter", chapters[0].get("chapter") if chapters else "?")
    last = plan.get("last_chapter", chapters[-1].get("chapter") if chapters else "?")
    out.append(
        tr(MESSAGES, "header", lang, volume=volume, first=first, last=last, n=plan_chapter_count(plan)) + "\n",
        style="bold",
    )
    synopsis = _str(plan.get("synopsis"))
    if synopsis:
        out.append(synopsis + "\n")
    if not chapters:
        out.append(tr(MESSAGES, "empty", lang) + "\n")
    for ch in chapters:
        heading = _str(ch.get("heading"))
        title = heading.split(" ", 1)[1] if " " in heading else ""
        out.append("\n")
        out.append(tr(MESSAGES, "chapter", lang, n=ch.get("chapter", "?"), title=title).rstrip() + "\n", style="bold")
        pov = _str(ch.get("pov"))
        line = _str(ch.get("storyline"))
        fields = [
            ("f_line", storylines.get(line, line)),
            ("f_pov", names.get(pov, pov)),
            ("f_place", _str(ch.get("location"))),
            ("f_conflict", _str(ch.get("conflict"))),
            ("f_payoff", _str(ch.get("payoff"))),
            ("f_hook", _str(ch.get("hook"))),
            ("f_threads", _str(ch.get("foreshadowing"))),
        ]
        for key, value in fields:
            if value:
                out.append(f"  {tr(MESSAGES, key, lang)}{sep}", style="dim")
                out.append(value + "\n")
    threads = plan.get("threads")
    labels = [label for label in (_thread_label(t) for t in threads) if label] if isinstance(threads, list) else []
    if labels:
        out.append("\n" + tr(MESSAGES, "threads", lang) + sep, style="bold")
        out.append(("、" if lang == "zh" else ", ").join(labels) + "\n")
    people = plan.get("new_characters")
    if isinstance(people, list) and people:
        out.append("\n" + tr(MESSAGES, "new_characters", lang) + sep + "\n", style="bold")
        for person in people:
            if isinstance(person, Mapping):
                name = _str(person.get("display_name")) or _str(person.get("id"))
                detail = "，".join(v for v in (_str(person.get("role")), _str(person.get("reason"))) if v)
                out.append(f"  - {name}" + (f"（{detail}）" if detail else "") + "\n")
    warnings = _warnings(plan, lang)
    out.append("\n")
    if warnings:
        out.append(tr(MESSAGES, "warnings", lang) + sep + "\n", style="bold yellow")
        for warning in warnings:
            out.append(f"  - {warning}\n")
    else:
        out.append(tr(MESSAGES, "no_warnings", lang) + "\n")
    total = plan.get("estimated_write_cost_usd")
    per = write_cost_per_chapter(plan)
    if per is None or not isinstance(total, int | float):
        out.append(tr(MESSAGES, "no_cost", lang), style="bold")
    elif total == 0:
        out.append(tr(MESSAGES, "write_cost_free", lang), style="bold")
    else:
        out.append(tr(MESSAGES, "write_cost", lang, total=float(total), per=per), style="bold")
    return out


def fold_lines(text: Text, width: int) -> list[Text]:
    """`text` as screen lines `width` cells wide, broken the Chinese way (`fold_offsets`), styles kept."""
    lines: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        offsets = fold_offsets(line.plain, width)
        if not offsets:
            lines.append(line)
            continue
        for part in line.divide(offsets):
            part.rstrip()  # the space a break falls on
            lines.append(part)
    return lines
