"""The text `status` prints, from the report's JSON form (`StatusReport.model_dump(mode="json")`).

One renderer for both paths: the full report (`studio.status.render_status`) and a memoised report whose word
count was refreshed (`studio.status_memo`, `studio.cli.status_cmd`), which therefore renders without pydantic.
Rules: Chinese by default, English with lang="en"; the author's project name is shown in 《》 unless it is
quoted already; at most 5 overdue foreshadowing items and 10 problems are listed, the rest counted. Imports no
pydantic model (only catalogs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studio.i18n import Catalog, Lang, chars_text, format_count, format_tokens, tr
from studio.i18n_names import stage_name, state_name, storyline_role_name

# The report's JSON form: `StatusReport.model_dump(mode="json")` (field names and nesting of that model).
ReportData = Mapping[str, Any]

MESSAGES: Catalog = {
    "title": ("《{name}》", "{name}"),
    "position": ("第{volume}卷 · 第{chapter}/{end}章", "Vol {volume}, Ch {chapter}/{end}"),
    "position_open": ("第{volume}卷 · 第{chapter}章（本卷大纲未定）", "Vol {volume}, Ch {chapter} (no outline yet)"),
    "over": ("（超出）", " (over)"),
    "range": ("本卷第{start}-{end}章", "volume covers Ch {start}-{end}"),
    "state": ("状态：{state} · 阶段：{stage}", "State: {state} · stage: {stage}"),
    "idle": ("空闲", "idle"),
    "interrupted": ("中断：第{chapter}章停在 {stage} 阶段 → {action}", "Interrupted: Ch {chapter} at stage {stage} -> {action}"),
    "words": ("字数：{total}（{chapters}章，平均每章{avg}字）", "Words: {total} ({chapters} chapters, {avg} per chapter)"),
    "words_none": ("字数：0（尚无章节）", "Words: 0 (no chapters yet)"),
    "scores": ("均分：{avg}/5.0 · 最近{n}章：{recent}", "Avg score: {avg}/5.0 · last {n}: {recent}"),
    "scores_none": ("均分：暂无评估", "Avg score: no evaluations yet"),
    "forced_note": ("（* 强制通过）", " (* force-passed)"),
    "foreshadow": ("伏笔：未回收 {open} 个，超期 {overdue} 个", "Foreshadowing: {open} unresolved, {overdue} overdue"),
    "overdue_item": ("  超期：{id}（目标第{end}章前回收）{desc}", "  overdue: {id} (target: by Ch {end}) {desc}"),
    "storylines": ("故事线：{lines}", "Storylines: {lines}"),
    "storylines_none": ("故事线：无活跃故事线", "Storylines: none active"),
    "lock_free": ("锁：空闲", "Lock: free"),
    "lock_held": ("锁：被 {holder} 持有（自 {since}）", "Lock: held by {holder} (since {since})"),
    "lock_stale": ("锁：残留（{holder}，进程已不在）", "Lock: stale ({holder}, process gone)"),
    "cost": ("成本：${cost:.2f} · 输入 {inp} tokens · 输出 {out} tokens", "Cost: ${cost:.2f} · {inp} input tokens · {out} output tokens"),
    "cost_partial": ("（可能不全，见下）", " (may be incomplete, see below)"),
    "ledger_unreadable": (
        "花费账本 {path} 有 {n} 行读不出（第 {lines} 行）：这些调用的花费没有计入，总花费可能不全。"
        "这些行原样留在文件里；被中断的写入留下的残行可以删掉，其他行请对照后修正",
        "The spend ledger {path} has unreadable lines ({n}: line {lines}): their calls are not counted, so the "
        "total may be incomplete. The lines stay in the file as they are: a line torn by an interrupted write can "
        "be deleted; fix any other by hand",
    ),
    "cost_unknown": ("（{n} 次调用的模型没有价格，未计入）", " ({n} calls of models without a price, not counted)"),
    "skipped": ("警告：{n} 章有被跳过的状态操作，建议重建状态", "Warning: {n} chapters had skipped state ops; consider a rebuild"),
    "pending": ("待作者决定：{n} 项", "Waiting for the author: {n}"),
    "proposals": (
        "黑名单建议待审核：{n} 条（novel-studio blacklist proposals 查看，approve / reject 决定）",
        "Blacklist proposals waiting for review: {n} (novel-studio blacklist proposals lists them; approve / reject)",
    ),
    "bad_files": ("无法读取的文件 {n} 个：", "Unreadable files ({n}):"),
    "notices": ("须知 {n} 条（已读取，但请留意）：", "Notices ({n}; read, but note):"),
    "blocked": ("无法继续写作（continue 会拒绝）：", "continue would refuse:"),
    "will_repair": ("下次运行会自动修复：", "the next run repairs itself:"),
    "cache_book": ("提示词缓存命中：全书 {share}（{source}，{n} 次报告了缓存的调用）",
                   "Prompt cache served: book {share} ({source}, {n} calls that reported cache use)"),
    "cache_source_ledger": ("花费账本", "spend ledger"),
    "cache_source_logs": ("章节日志", "chapter logs"),
    "cache_chapter": (" · 第{chapter}章 {share}", " · Ch {chapter} {share}"),
    "prompts_newer": ("提示词有新版本：{items}（novel-studio prompts upgrade 查看改动并升级）",
                      "Newer prompt versions: {items} (novel-studio prompts upgrade shows the changes and upgrades)"),
    "prompt_item": ("{id} v{pinned}→v{latest}", "{id} v{pinned}->v{latest}"),
    "prompt_missing": ("{id} v{pinned}（文件已不存在）", "{id} v{pinned} (file missing)"),
    "prompts_unpinned": ("提示词版本：尚未固定，下次运行时固定为正在使用的版本",
                         "Prompt versions: not pinned yet; the next run pins the versions in use"),
    "settings_invalid": ("novel-studio.toml 无效：{detail}", "novel-studio.toml is invalid: {detail}"),
}


def _age_text(seconds: float, lang: Lang) -> str:
    s = max(0, int(seconds))
    if s < 120:
        return f"{s} 秒" if lang == "zh" else f"{s} s"
    if s < 7200:
        return f"{s // 60} 分钟" if lang == "zh" else f"{s // 60} min"
    return f"{s // 3600} 小时" if lang == "zh" else f"{s // 3600} h"


def render_data(report: ReportData, lang: Lang = "zh") -> str:
    """A compact text block from the report's JSON form: Chinese by default, English with lang="en"."""
    name = report["project_name"]
    quoted = name.startswith(("《", "（", "(")) or lang == "en"
    lines: list[str] = [name if quoted else tr(MESSAGES, "title", lang, name=name)]

    if report["volume_end"] is not None:
        pos = tr(MESSAGES, "position", lang, volume=report["current_volume"], chapter=report["last_completed_chapter"],
                 end=report["volume_end"])
        if report["volume_over"]:
            pos += tr(MESSAGES, "over", lang)
        if report["volume_start"] is not None:
            pos += " · " + tr(MESSAGES, "range", lang, start=report["volume_start"], end=report["volume_end"])
    else:
        pos = tr(MESSAGES, "position_open", lang, volume=report["current_volume"], chapter=report["last_completed_chapter"])
    lines.append(pos)
    lines.append(
        tr(MESSAGES, "state", lang, state=state_name(report["orchestrator_state"], lang),
           stage=stage_name(report["pipeline_stage"], lang) if report["pipeline_stage"] else tr(MESSAGES, "idle", lang))
    )
    if report["blockers"]:
        lines.append(tr(MESSAGES, "blocked", lang))
        lines.extend(f"  - {b['text'] if lang == 'zh' else b['text_en']}" for b in report['blockers'])
    if report["self_repairs"]:
        lines.append(tr(MESSAGES, "will_repair", lang))
        lines.extend(f"  - {b['text'] if lang == 'zh' else b['text_en']}" for b in report['self_repairs'])
    if report["recovery"] is not None:
        r = report["recovery"]
        lines.append(tr(MESSAGES, "interrupted", lang, chapter=r["chapter"], stage=stage_name(r["stage"], lang),
                        action=r["description"] if lang == "zh" else r["description_en"]))
    if report["pending_actions"]:
        lines.append(tr(MESSAGES, "pending", lang, n=report["pending_actions"]))
    if report["blacklist_proposals"]:
        lines.append(tr(MESSAGES, "proposals", lang, n=report["blacklist_proposals"]))

    if report["chapters_committed"]:
        avg = report["total_chars"] // report["chapters_committed"]
        lines.append(tr(MESSAGES, "words", lang, total=chars_text(report["total_chars"], lang),
                        chapters=report["chapters_committed"], avg=format_count(avg, lang)))
        lines.extend(f"  {n['text'] if lang == 'zh' else n['text_en']}" for n in report['notes'])
    else:
        lines.append(tr(MESSAGES, "words_none", lang))

    if report["average_score"] is not None:
        parts = []
        forced = False
        for s in report["recent_scores"]:
            mark = "*" if s["force_passed"] else ""
            forced = forced or s["force_passed"]
            parts.append(f"{s['chapter']}:{s['overall']:.2f}{mark}")
        text = tr(MESSAGES, "scores", lang, avg=f"{report['average_score']:.2f}", n=len(report['recent_scores']),
                  recent=" ".join(parts))
        if forced:
            text += tr(MESSAGES, "forced_note", lang)
        lines.append(text)
    else:
        lines.append(tr(MESSAGES, "scores_none", lang))

    lines.append(tr(MESSAGES, "foreshadow", lang, open=report["foreshadowing_unresolved"],
                    overdue=len(report["foreshadowing_overdue"])))
    for item in report["foreshadowing_overdue"][:5]:
        lines.append(tr(MESSAGES, "overdue_item", lang, id=item["id"], end=item["target_end"] or "?",
                        desc=item["description"]))
    if len(report["foreshadowing_overdue"]) > 5:
        lines.append(f"  … +{len(report['foreshadowing_overdue']) - 5}")

    if report["active_storylines"]:
        names = []
        for line in report["active_storylines"]:
            label = line["name"] or line["id"]
            if line["volume_role"]:
                role = storyline_role_name(line["volume_role"], lang)
                label += f"（{role}）" if lang == "zh" else f" ({role})"
            names.append(label)
        lines.append(tr(MESSAGES, "storylines", lang, lines=("、" if lang == "zh" else ", ").join(names)))
    else:
        lines.append(tr(MESSAGES, "storylines_none", lang))

    lock = report["lock"]
    if lock["state"] == "free":
        lines.append(tr(MESSAGES, "lock_free", lang))
    else:
        holder = f"pid {lock['pid']}@{lock['host'] or '?'}" if lock['pid'] else "?"
        if lock["chapter"]:
            holder += f" (Ch {lock['chapter']})" if lang == "en" else f"（第{lock['chapter']}章）"
        key = "lock_stale" if lock["state"] == "stale" else "lock_held"
        lines.append(tr(MESSAGES, key, lang, holder=holder, since=lock["since"] or "?",
                        ago=_age_text(lock["age_seconds"], lang)))

    cost = tr(MESSAGES, "cost", lang, cost=report["cost_usd"], inp=format_tokens(report["input_tokens"], lang),
              out=format_tokens(report["output_tokens"], lang))
    if report["chapters_without_cost"]:
        cost += tr(MESSAGES, "cost_unknown", lang, n=report["chapters_without_cost"])
    if report["ledger_unreadable_lines"]:
        cost += tr(MESSAGES, "cost_partial", lang)
    lines.append(cost)
    if report["ledger_unreadable_lines"]:
        lines.append(_ledger_line(report, lang))

    lines.extend(_cache_lines(report["cache"], lang))
    lines.extend(_prompt_lines(report, lang))

    if report["skipped_ops_warnings"]:
        lines.append(tr(MESSAGES, "skipped", lang, n=report["skipped_ops_warnings"]))
    if report["problems"]:
        lines.append(tr(MESSAGES, "bad_files", lang, n=len(report["problems"])))
        lines.extend(f"  {p}" for p in report['problems'][:10])
        if len(report["problems"]) > 10:
            lines.append(f"  … +{len(report['problems']) - 10}")
    if report["notices"]:
        lines.append(tr(MESSAGES, "notices", lang, n=len(report["notices"])))
        lines.extend(f"  {p}" for p in report['notices'])
    return "\n".join(lines)


def _ledger_line(report: ReportData, lang: Lang) -> str:
    at = ("、" if lang == "zh" else ", ").join(str(n) for n in report["ledger_unreadable_at"])
    if report["ledger_unreadable_lines"] > len(report["ledger_unreadable_at"]):
        at += "…"
    return tr(MESSAGES, "ledger_unreadable", lang, path=LEDGER_PATH, n=report["ledger_unreadable_lines"], lines=at)


LEDGER_PATH = "logs/spend.jsonl"  # `ProjectPaths.spend_ledger`, as the author finds it in the project folder


def share_text(share: float) -> str:
    """0.353 -> `35.3%`."""
    return f"{share * 100:.1f}%"


def _cache_lines(cache: ReportData, lang: Lang) -> list[str]:
    if cache["book"] is None and cache["chapter_share"] is None:
        return []  # nothing measured yet (a new or offline-only project): no line rather than a zero
    text = tr(MESSAGES, "cache_book", lang, share=share_text(cache["book"]) if cache["book"] is not None else "—",
              source=tr(MESSAGES, f"cache_source_{cache['source']}", lang), n=cache['book_calls'])
    if cache["chapter"] is not None and cache["chapter_share"] is not None:
        text += tr(MESSAGES, "cache_chapter", lang, chapter=cache["chapter"], share=share_text(cache["chapter_share"]))
    return [text]


def _prompt_lines(report: ReportData, lang: Lang) -> list[str]:
    if not report["prompts_pinned"]:
        return [tr(MESSAGES, "prompts_unpinned", lang)]
    if not report["prompt_updates"]:
        return []
    items = [
        tr(MESSAGES, "prompt_missing", lang, id=n["prompt_id"], pinned=n["pinned"]) if n["missing"]
        else tr(MESSAGES, "prompt_item", lang, id=n["prompt_id"], pinned=n["pinned"], latest=n["latest"])
        for n in report["prompt_updates"]
    ]
    return [tr(MESSAGES, "prompts_newer", lang, items=("、" if lang == "zh" else ", ").join(items))]
