"""The staged plan as the author sees it at the approval (issue 7 item 4): the lines the CLI prints and the
plan-approval question carries as facts (`plan_lines`), the JSON-ready data of the question and of `plan --json`
(`plan_data`), and the outline diff of a re-plan (`outline_diff`).

Pure: the plan and its staging meta in, text or data out. Only the planned chapters are listed (a re-planned
volume's written chapters are named once as unchanged); the threads are the ones planted in the plan's range.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from studio.i18n import Catalog, Lang, tr
from studio.models.volume_plan import VolumePlan, hook, payoff
from studio.outline import OutlineChapter
from studio.planning.staged import StagedPlanMeta

__all__ = ["MESSAGES", "chapter_span", "outline_diff", "plan_data", "plan_lines"]

MESSAGES: Catalog = {
    "header": ("第 {volume} 卷计划（第 {first}-{last} 章，共 {n} 章）", "Plan of volume {volume} (chapters {first}-{last}, {n} chapters)"),
    "fixed": ("已写、不变：第 {fixed} 章", "written, unchanged: chapters {fixed}"),
    "chapter": ("第{n}章 {title}", "Ch {n} {title}"),
    "f_line": ("故事线", "storyline"),
    "f_pov": ("视角", "POV"),
    "f_place": ("地点", "location"),
    "f_conflict": ("冲突", "conflict"),
    "f_payoff": ("爽点", "payoff"),
    "f_hook": ("章末钩子", "hook"),
    "f_threads": ("伏笔", "foreshadowing"),
    "threads": ("本卷新伏笔：{items}", "new threads: {items}"),
    "new_characters": ("本卷新角色：{items}", "new characters: {items}"),
    "warnings": ("提醒（不阻止批准）：", "warnings (approval is still possible):"),
    "no_warnings": ("检查通过，没有提醒", "checks passed, no warnings"),
    "write_cost": ("写完本卷预计 ${total:.2f}（每章约 ${per:.2f}）", "writing the volume: about ${total:.2f} (${per:.2f} a chapter)"),
    "diff": ("与现有大纲的差异：", "changes to the volume's outline:"),
    "overwrites": (
        "注意：以下文件被手动修改过，批准会覆盖它们（原文件会备份）：",
        "note: these files were edited by hand and approval replaces them (the originals are backed up):",
    ),
}


def chapter_span(numbers: list[int]) -> str:
    """`3-7` for a run of chapters, `3` for one, "" for none."""
    if not numbers:
        return ""
    return f"{numbers[0]}-{numbers[-1]}" if len(numbers) > 1 else str(numbers[0])


def _planned_chapters(plan: VolumePlan) -> list[OutlineChapter]:
    return [ch for ch in plan.outline.chapters if plan.first_chapter <= ch.number <= plan.last_chapter]


def plan_lines(plan: VolumePlan, meta: StagedPlanMeta, lang: Lang, names: dict[str, str], *,
               storylines: Mapping[str, str] | None = None) -> list[str]:
    """The staged plan as the author reads it: one block per chapter, the new threads, the warnings. `names`:
    character id -> name; `storylines`: storyline id -> name (`Storylines.names`): ids the files do not name
    are shown as they are."""
    storylines = storylines or {}
    chapters = _planned_chapters(plan)
    lines = [tr(MESSAGES, "header", lang, volume=plan.volume, first=plan.first_chapter, last=plan.last_chapter,
                n=len(chapters))]
    fixed = [ch.number for ch in plan.outline.chapters if ch.number < plan.first_chapter]
    if fixed:
        lines.append(tr(MESSAGES, "fixed", lang, fixed=chapter_span(fixed)))
    if plan.outline.synopsis.strip():
        lines.append(plan.outline.synopsis.strip())
    sep = "：" if lang == "zh" else ": "
    for ch in chapters:
        lines.append("")
        lines.append(tr(MESSAGES, "chapter", lang, n=ch.number, title=ch.title).rstrip())
        fields = [
            ("f_line", storylines.get(ch.storyline or "", ch.storyline)),
            ("f_pov", names.get(ch.pov or "", ch.pov)),
            ("f_place", ch.location),
            ("f_conflict", ch.conflict),
            ("f_payoff", payoff(ch)),
            ("f_hook", hook(ch)),
            ("f_threads", ch.foreshadowing),
        ]
        lines += [f"  {tr(MESSAGES, key, lang)}{sep}{value}" for key, value in fields if value]
    threads = [t for t in plan.foreshadowing if t.planted_chapter is None or t.planted_chapter >= plan.first_chapter]
    if threads:
        items = "、".join(f"{t.id}（{t.description}）" for t in threads)
        lines += ["", tr(MESSAGES, "threads", lang, items=items)]
    if meta.new_characters:
        items = "、".join(f"{c.get('display_name', '')}（{c.get('id', '')}）" for c in meta.new_characters)
        lines += ["", tr(MESSAGES, "new_characters", lang, items=items)]
    warnings = meta.warnings if lang == "zh" else (meta.warnings_en or meta.warnings)
    lines.append("")
    if warnings:
        lines.append(tr(MESSAGES, "warnings", lang))
        lines += [f"  - {w}" for w in warnings]
    else:
        lines.append(tr(MESSAGES, "no_warnings", lang))
    per = (meta.estimated_cost_usd or 0.0) / max(1, len(chapters))
    lines.append(tr(MESSAGES, "write_cost", lang, total=meta.estimated_cost_usd or 0.0, per=per))
    return lines


def plan_data(plan: VolumePlan, meta: StagedPlanMeta) -> dict[str, Any]:
    """The staged plan as JSON-ready data (the CLI's `--json` and the approval question's `data["plan"]`)."""
    return {
        "volume": plan.volume,
        "first_chapter": plan.first_chapter,
        "last_chapter": plan.last_chapter,
        "fixed_chapters": [ch.number for ch in plan.outline.chapters if ch.number < plan.first_chapter],
        "chapters": [
            {
                "chapter": ch.number,
                "heading": ch.heading,
                "storyline": ch.storyline,
                "pov": ch.pov,
                "location": ch.location,
                "conflict": ch.conflict,
                "payoff": payoff(ch),
                "hook": hook(ch),
                "foreshadowing": ch.foreshadowing,
            }
            for ch in _planned_chapters(plan)
        ],
        "threads": [t.id for t in plan.foreshadowing if t.planted_chapter is None or t.planted_chapter >= plan.first_chapter],
        "new_characters": list(meta.new_characters),
        "warnings": meta.warnings,
        "warnings_en": meta.warnings_en,
        "estimated_write_cost_usd": meta.estimated_cost_usd,
    }


def outline_diff(before: str, after: str, name: str) -> str:
    """A unified diff of two outline texts, labelled now / planned."""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), fromfile=f"{name}（现在）", tofile=f"{name}（计划）", lineterm=""
    )
    return "\n".join(lines)
