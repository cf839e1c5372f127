"""Offline replies of the planning agents (WorldBuilder, CharacterWeaver, PlotArchitect, StyleAnalyzer).

Deterministic (a function of the request's `context`, no randomness beyond seeded choices), well-formed
(the JSON each prompt's Format section asks for) and plausible (Chinese names, places and conflicts built from
the brief when it has them), so that the demo and the tests can run planning without a model.

The PlotArchitect reply passes `studio.planning.checks.validate_plan` with no error and no pacing warning:
chapters first..last without a gap, every chapter on an active line, the primary line at most 3 chapters in a
row with the secondary line every 4th chapter, seasoning lines once mid-volume, a convergence event over the last
two chapters when there are two lines, two new threads planted inside the volume (a short one resolved in it).
Its contracts come from `contracts_reply` (the `plot-contracts` request, one batch of outline entries, told by
`context["task"] == "contracts"`, which survives a repair round): derived from the entries, preconditions left
for the code to chain. `planning_reply()` is what
`pipeline.providers.offline.OfflineProvider` dispatches to; None means "not a planning agent".
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from pipeline.providers.base import ModelRequest
from studio.ids import is_slug, slugify

__all__ = [
    "PLANNING_AGENTS",
    "character_reply",
    "contracts_reply",
    "planning_reply",
    "plot_reply",
    "review_reply",
    "style_reply",
    "world_reply",
]

PLANNING_AGENTS = frozenset({"world_builder", "character_weaver", "plot_architect", "style_analyzer", "volume_review"})
PRIMARY_RUN = 3  # primary chapters between two secondary ones
_NAME = re.compile(r"[\u4e00-\u9fff]{2,3}")
_PLACES = ("老城码头", "城隍庙后街", "旧书市", "江边仓库", "山门石阶", "夜市口", "藏书阁", "废弃车站")
_CONFLICTS = (
    "{pov}被逼着当众证明自己，对手早已设好了局",
    "一条旧线索把{pov}引向不该去的地方",
    "{pov}必须在两个人之间选一个相信",
    "欠下的人情到了要还的时候，{pov}拿不出对方要的东西",
    "{pov}发现帮过自己的人另有打算",
    "规矩与人情撞在一起，{pov}只能破一个",
)
_PAYOFFS = ("{pov}用对方想不到的办法翻盘", "藏了很久的底牌亮出来", "{pov}当众拆穿对手的把戏", "一直轻视{pov}的人第一次低头")
_HOOKS = ("门外有人叫了{pov}的名字", "线索指向一个已经死去的人", "{pov}收到一条没有署名的消息", "灯灭了，屋里多了一个人")


def _brief(ctx: dict[str, Any]) -> dict[str, str]:
    brief = ctx.get("brief")
    return {str(k): str(v) for k, v in brief.items()} if isinstance(brief, dict) else {}


def _section(brief: dict[str, str], *keys: str) -> str:
    for heading, body in brief.items():
        if any(key in heading for key in keys):
            return body
    return ""


def _protagonist(brief: dict[str, str]) -> str:
    match = _NAME.search(_section(brief, "主角"))
    return match.group(0) if match else "林照"


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


# ------------------------------------------------------------------------------------------ world


def _next_ids(existing: list[str], prefix: str, count: int) -> list[str]:
    numbers = [int(m.group(1)) for i in existing if (m := re.fullmatch(rf"{prefix}-(\d+)", i))]
    start = max(numbers, default=0) + 1
    return [f"{prefix}-{n:03d}" for n in range(start, start + count)]


def world_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    brief = _brief(ctx)
    initial = ctx.get("mode") == "初始化"
    one_line = _section(brief, "世界") or "这座城的夜里有另一套规矩，守规矩的人活得久，破规矩的人付代价。"
    genre = _section(brief, "题材", "类型") or "都市奇幻"
    texts = [
        ("power", "超凡能力必须付出代价：每次动用都要消耗使用者的血、寿数或记忆之一，代价事先可知", "hard"),
        ("society", "规矩由一个民间旧衙门执掌，衙门内部并不统一，外人只能通过担保人接触", "soft"),
        ("geography", "异象只在固定时辰、固定区域出现，离开该区域的人不受影响", "hard"),
    ]
    ids = _next_ids([str(i) for i in ctx.get("rule_ids", [])], "W", 3 if initial else 1)
    rules = [
        {"id": rid, "category": cat, "rule": rule, "constraint_type": kind, "exceptions": []}
        for rid, (cat, rule, kind) in zip(ids, texts, strict=False)
    ]
    content = (
        f"# 世界设定\n\n{one_line}\n\n## 题材\n{genre}\n\n## 规则要点\n"
        + "\n".join(f"- {r['id']}：{r['rule']}" for r in rules)
        + "\n"
    )
    storylines = []
    if initial and "main-arc" not in ctx.get("storyline_ids", []):
        storylines.append(
            {
                "id": "main-arc",
                "name": f"{_protagonist(brief)}的成长之路",
                "type": "main_arc",
                "scope": "novel",
                "pov_characters": [],
                "affiliated_factions": [],
                "timeline": "present",
                "status": "active",
                "description": "主角从被卷入到主动破局的主线",
            }
        )
    names = [
        {"id": "jiu-ya-men", "name": "旧衙门", "kind": "faction", "aliases": ["衙门"]},
        {"name": _PLACES[0], "kind": "location", "aliases": []},
    ] if initial else []
    return {
        "files": [{"path": "world/setting.md" if initial else "world/update.md", "content": content}],
        "rules": rules,
        "storylines": storylines,
        "names": names,
        "changelog": "初始化世界观：核心设定与三条 L1 规则" if initial else "增量更新：新增一条规则",
    }


# ------------------------------------------------------------------------------------------ characters


def _tool_character_reply(tool: dict[str, Any], existing: list[str]) -> dict[str, Any]:
    """Tool mode (`character add|update`, pipeline.planning.character_tool): the one character asked for."""
    name = str(tool.get("name") or "林照")
    if tool.get("mode") == "update":
        slug = str(tool.get("id"))
        ids = [str(i) for i in tool.get("contract_ids", [])]
        prefix = ids[0].rsplit("-", 1)[0] if ids else f"C-{slug.upper()}"
        number = max([int(i.rsplit("-", 1)[1]) for i in ids if i.rsplit("-", 1)[-1].isdigit()], default=0) + 1
        note = str(tool.get("note") or "按作者要求调整")
        contracts: list[dict[str, Any]] = [{"id": f"{prefix}-{number:03d}", "type": "personality", "rule": f"{name}：{note}",
                      "valid_from_chapter": None, "valid_until": None, "exceptions": []}]
        return {"characters": [{"id": slug, "display_name": name, "aliases": list(tool.get("aliases", [])),
                                "contracts": contracts}], "relationships": [], "retire": [],
                "changelog": f"更新角色：{name}"}
    slug = slugify(name) if is_slug(slugify(name)) else "new-character"
    role = str(tool.get("role") or "重要角色")
    brief = str(tool.get("brief") or "")
    upper = slug.upper()
    profile = f"# {name}\n\n- 身份：{role}\n- 目标：在主角的故事里拿到自己想要的东西\n- 内在矛盾：想要的和守的规矩相冲\n"
    if brief:
        profile += f"- 设定：{brief}\n"
    return {
        "characters": [{
            "id": slug,
            "display_name": name,
            "role": role,
            "profile_md": profile + "- 说话风格：话少，句句带刺\n- 示例台词：“这事没那么简单。”\n",
            "speech_pattern": "话少，句句带刺，口头禅“没那么简单”",
            "aliases": [name[1:]] if len(name) == 3 else [],
            "contracts": [
                {"id": f"C-{upper}-001", "type": "capability", "rule": f"{name}不借外力时只能对付一个对手",
                 "valid_from_chapter": None, "valid_until": None, "exceptions": []},
                {"id": f"C-{upper}-002", "type": "personality", "rule": f"{name}从不先出手，先看清对方要什么",
                 "valid_from_chapter": None, "valid_until": None, "exceptions": ["被当众羞辱时可以打破"]},
            ],
        }],
        "relationships": [{"from": slug, "to": other, "value": 0, "note": "初识"} for other in existing[:1]],
        "retire": [],
        "changelog": f"新增角色：{name}",
    }


def _updated_character(ctx: dict[str, Any]) -> dict[str, Any]:
    """An update of one existing character (`update_id`, `update_name`, `note` in the context)."""
    slug, name, note = str(ctx["update_id"]), str(ctx.get("update_name") or ctx["update_id"]), str(ctx.get("note") or "")
    upper = slug.upper()
    return {
        "characters": [{
            "id": slug,
            "display_name": name,
            "profile_md": f"# {name}\n\n- 调整：{note or '按作者意见调整'}\n",
            "speech_pattern": "话更少，句句带刺" if note else "",
            "aliases": [name[1:]] if len(name) == 3 else [],
            "contracts": [{"id": f"C-{upper}-001", "type": "personality", "rule": f"{name}{note or '性格保持一致'}",
                           "valid_from_chapter": 1, "valid_until": None, "exceptions": []}],
        }],
        "relationships": [],
        "retire": [],
        "changelog": f"调整角色：{name}（{note or '作者意见'}）",
    }


def character_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    tool = ctx.get("tool")
    if isinstance(tool, dict):
        return _tool_character_reply(tool, [str(i) for i in ctx.get("character_ids", [])])
    if ctx.get("update_id"):
        return _updated_character(ctx)
    brief = _brief(ctx)
    existing = {str(i) for i in ctx.get("character_ids", [])}
    cast = [
        (_protagonist(brief), "protagonist", "嘴硬心软，凡事先算账", "口头禅“行吧”", "行吧，这单我接了。"),
        ("苏晚晴", "ally", "按规矩办事，话少，关键时刻说实话", "口头禅“按规矩”", "按规矩，这事不在门口说。"),
        ("韩老七", "mentor", "笑眯眯的老江湖，从不正面回答", "口头禅“不急，不急”", "不急，不急，茶还没凉。"),
    ]
    # a volume plan asks for the characters it needs, by id and name (pipeline.planning.plan_characters)
    wanted = {str(w["id"]): str(w.get("display_name") or w["id"])
              for w in ctx.get("wanted", []) if isinstance(w, dict) and w.get("id")}
    if wanted:
        cast = [(name, "supporting", "心里有账，嘴上不说", "口头禅“再说”", "再说吧，今晚先把账对上。")
                for name in wanted.values()]
    ids = {name: slug for slug, name in wanted.items()}
    characters: list[dict[str, Any]] = []
    slugs: list[str] = []
    for name, role, personality, speech, line in cast:
        slug = ids.get(name) or slugify(name)
        if slug in existing or not is_slug(slug):
            continue
        slugs.append(slug)
        upper = slug.upper()
        characters.append(
            {
                "id": slug,
                "display_name": name,
                "role": role,
                "profile_md": (
                    f"# {name}\n\n- 身份：{'主角' if role == 'protagonist' else '重要角色'}\n- 性格：{personality}\n"
                    f"- 说话风格：{speech}\n- 示例台词：“{line}”\n"
                ),
                "speech_pattern": speech,
                "aliases": [name[1:]] if len(name) == 3 else [],
                "contracts": [
                    {
                        "id": f"C-{upper}-001",
                        "type": "capability",
                        "rule": f"{name}的能力有明确上限：不借外力时无法同时对付两个以上的对手",
                        "valid_from_chapter": 1,
                        "valid_until": None,
                        "exceptions": [],
                    },
                    {
                        "id": f"C-{upper}-002",
                        "type": "personality",
                        "rule": f"{name}{personality}",
                        "valid_from_chapter": 1,
                        "valid_until": None,
                        "exceptions": ["亲近的人遇险时可以打破"],
                    },
                ],
            }
        )
    relationships = [
        {"from": slugs[0], "to": other, "value": 20 + 10 * i, "note": "初识" if i == 0 else "旧识"}
        for i, other in enumerate(slugs[1:])
    ] if slugs else []
    return {
        "characters": characters,
        "relationships": relationships,
        "retire": [],
        "changelog": f"新增角色：{'、'.join(name for name, *_ in cast if (ids.get(name) or slugify(name)) in slugs) or '无'}",
    }


# ------------------------------------------------------------------------------------------ plot


def _layout(first: int, last: int, lines: list[str]) -> dict[int, str]:
    """chapter -> storyline: primary runs of PRIMARY_RUN, the secondary line every (PRIMARY_RUN+1)th chapter,
    each seasoning line once in the middle (on a primary slot that keeps the runs short)."""
    primary = lines[0]
    secondary = lines[1] if len(lines) > 1 else None
    layout = {}
    for i, n in enumerate(range(first, last + 1)):
        layout[n] = secondary if secondary and i % (PRIMARY_RUN + 1) == PRIMARY_RUN else primary
    primary_slots = [n for n in layout if layout[n] == primary and (n - first) % (PRIMARY_RUN + 1) == 1]
    middle = len(primary_slots) // 2
    for offset, line in enumerate(lines[2:4]):
        if middle + offset < len(primary_slots):
            layout[primary_slots[middle + offset]] = line
    return layout


def plot_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    volume = int(ctx.get("volume") or 1)
    first = int(ctx.get("chapter_start") or 1)
    last = max(first, int(ctx.get("chapter_end") or first))
    lines = [str(s) for s in ctx.get("storyline_ids", []) if is_slug(str(s))][:4] or ["main-arc"]
    characters = [str(c) for c in ctx.get("character_ids", [])]
    povs = ctx.get("storyline_povs") or {}
    names = ctx.get("character_names") if isinstance(ctx.get("character_names"), dict) else {}
    assert isinstance(names, dict)
    rng = random.Random(f"plot:{volume}:{first}:{last}")
    layout = _layout(first, last, lines)

    def pov_of(line: str) -> str | None:
        pov = povs.get(line) if isinstance(povs, dict) else None
        return str(pov) if pov else (characters[0] if characters else None)

    convergence = []
    if len(lines) > 1 and last - first >= 3:
        convergence.append(
            {
                "chapter_range": [last - 1, last],
                "involved_storylines": lines[:2],
                "trigger": "两条线追查的是同一件事，卷末在同一个地方撞上",
                "aftermath": "主线承受副线的余波，下卷的对手浮出水面",
            }
        )
    short_id, medium_id = f"vol{volume}-token", f"vol{volume}-old-debt"
    taken = {str(i) for i in ctx.get("thread_ids", [])}
    if short_id in taken or medium_id in taken:  # the rest of a volume re-planned: its first threads exist
        short_id, medium_id = f"{short_id}-{first}", f"{medium_id}-{first}"
    short_end = min(first + 6, last)
    threads = [
        {
            "id": short_id,
            "description": "一枚来历不明的旧铜牌",
            "scope": "short",
            "status": "planted",
            "planted_chapter": first,
            "planted_storyline": layout[first],
            "target_resolve_range": [min(first + 3, short_end), short_end],
        },
        {
            "id": medium_id,
            "description": "上一辈留下的一笔旧账",
            "scope": "medium",
            "status": "planted",
            "planted_chapter": min(first + 1, last),
            "planted_storyline": layout[min(first + 1, last)],
            "target_resolve_range": [last + 5, last + 20],
        },
    ]
    fs_by_chapter: dict[int, list[tuple[str, str]]] = {}
    fs_by_chapter.setdefault(first, []).append(("埋", short_id))
    fs_by_chapter.setdefault(min(first + 1, last), []).append(("埋", medium_id))
    if short_end > first:
        fs_by_chapter.setdefault(short_end, []).append(("回收", short_id))
    outline = [f"# 第{volume}卷", "", "本卷梗概：主角被一桩旧事卷入，从被动应对到主动破局，卷末两线交汇。", ""]
    for n in range(first, last + 1):
        line = layout[n]
        pov = pov_of(line)
        name = str(names.get(pov, pov)) if pov else "主角"
        place = _PLACES[(n + volume) % len(_PLACES)]
        conflict = rng.choice(_CONFLICTS).format(pov=name)
        fs = fs_by_chapter.get(n, [])
        outline += [
            f"## 第{n}章 {place}",
            f"- Storyline: {line}",
            *([f"- POV: {pov}"] if pov else []),
            f"- Location: {place}",
            f"- Conflict: {conflict}",
            f"- Arc: {name}多看清一层局面",
            f"- Payoff: {rng.choice(_PAYOFFS).format(pov=name)}",
            f"- Hook: {rng.choice(_HOOKS).format(pov=name)}",
            *([f"- Foreshadowing: {'；'.join(f'{verb} {fid}' for verb, fid in fs)}"] if fs else []),
            f"- StateChanges: {name}到{place}",
            "",
        ]
    roles = ["primary", "secondary", "seasoning", "seasoning"]
    counts = {line: sum(1 for v in layout.values() if v == line) for line in lines}
    # a line the volume is too short to visit is not active in it
    lines, idle = [line for line in lines if counts[line]], [line for line in lines if not counts[line]]
    schedule = {
        "volume": volume,
        "volume_theme": "旧账",
        "active_storylines": [
            {"storyline_id": line, "volume_role": roles[i], "target_chapters": counts[line], "arc_goal": "本卷推进一步"}
            for i, line in enumerate(lines)
        ],
        "interleaving_pattern": {
            "strategy": "primary_dominant",
            "primary_max_consecutive": PRIMARY_RUN,
            "secondary_min_appearance": f"every_{PRIMARY_RUN + 1}_chapters",
            "seasoning_placement": "mid_volume",
        },
        "convergence_events": convergence,
        "dormant_storylines": idle,
        "newly_activated": [],
    }
    return {
        "outline_md": "\n".join(outline).rstrip() + "\n",
        "storyline_schedule": schedule,
        "foreshadowing": threads,
        "new_characters": [],
    }


_THREAD_ACTION = re.compile(r"(埋|推进|回收)\s*([a-z0-9]+(?:-[a-z0-9]+)*)")


def contracts_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    """One batch of L3 contracts derived from the outline entries in `ctx["chapters"]` (the `plot-contracts`
    request): objectives from the conflict and the foreshadowing actions, the POV's location as the
    postcondition, preconditions left empty for the code to chain."""
    rules = [str(r) for r in ctx.get("rule_ids", [])]
    chapters = [c for c in ctx.get("chapters", []) if isinstance(c, dict)]
    contracts = []
    for entry in chapters:
        n = int(entry.get("number") or 0)
        line = str(entry.get("storyline") or "main-arc")
        pov = str(entry["pov"]) if entry.get("pov") else None
        place = str(entry.get("location") or "")
        conflict = str(entry.get("conflict") or "推进本章冲突")
        fs = [(m.group(1), m.group(2)) for m in _THREAD_ACTION.finditer(str(entry.get("foreshadowing") or ""))]
        verbs = {"埋": "plant", "推进": "advance", "回收": "resolve"}
        states = {"埋": "planted", "推进": "advanced", "回收": "resolved"}
        next_line = entry.get("next_storyline")
        contracts.append(
            {
                "chapter": n,
                "storyline_id": line,
                "preconditions": {"character_states": {}, "required_world_rules": rules[:1]},
                "objectives": [
                    {"id": f"OBJ-{n:03d}-1", "type": "plot", "required": True, "description": conflict},
                    *(
                        {
                            "id": f"OBJ-{n:03d}-{k + 2}",
                            "type": "foreshadowing",
                            "required": True,
                            "action": verbs[verb],
                            "target": fid,
                            "description": f"{verb}伏笔 {fid}",
                        }
                        for k, (verb, fid) in enumerate(fs)
                    ),
                ],
                "postconditions": {
                    "state_changes": {pov: {"location": place}} if pov and place else {},
                    "foreshadowing_updates": {fid: states[verb] for verb, fid in fs},
                },
                "acceptance_criteria": [f"OBJ-{n:03d}-1 在正文中明确体现", *(f"不违反 {r}" for r in rules[:1])],
                "transition_hint": {"next_storyline": next_line, "bridge": "章末留一个悬念，自然过渡"}
                if next_line
                else None,
            }
        )
    return {"chapter_contracts": contracts}


# ------------------------------------------------------------------------------------------ style


_PRESET_PASSAGES = (
    "雨下到后半夜才停。他把最后一箱货搬上车，回头看了一眼黑着灯的铺子，心里那笔账又多了一行。"
    "“行吧，”他对自己说，“明天再算。”巷口的狗叫了两声，又不叫了。",
    "“你欠我的，不止一顿饭。”对面的人把茶推过来。他没接，只盯着杯沿那道豁口——"
    "那是他亲手磕的，三年前，在同一张桌子上。",
)


def style_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    metrics = ctx.get("metrics") if isinstance(ctx.get("metrics"), dict) else {}
    assert isinstance(metrics, dict)
    source = str(ctx.get("source_type") or "original")
    measured = source in ("original", "write_then_extract")
    return {
        "source_type": source,
        "reference_author": ctx.get("reference_author") if source == "reference" else None,
        "avg_sentence_length": round(float(metrics.get("avg_sentence_length") or 18)) if measured else None,
        "dialogue_ratio": round(float(metrics.get("dialogue_ratio") or 0.35), 2) if measured else None,
        "anchor_passages": list(_PRESET_PASSAGES) if source == "template" else [],
        "rhetoric_preferences": ["短句切换", "动作推进代替心理独白"],
        "forbidden_words": ["不禁", "莫名的", "嘴角微微上扬"],
        "writing_directives": ["偏短句、动作推进", "对话里带一句生活化的吐槽", "场景描写不超过两句"],
        "notes": "离线分析：数值由代码从样本中计算，指令为通用网文写法",
    }


def review_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    """The volume review's suggestions (`prompts/volume-review.v1.md`), from the report's numbers."""
    volume = int(ctx.get("volume") or 1)
    weakest = ctx.get("weakest")
    overdue = [str(i) for i in ctx.get("overdue") or []]
    open_threads = [str(i) for i in ctx.get("open_threads") or []]
    lines = [str(i) for i in ctx.get("storyline_ids") or []] or ["main-arc"]
    problems = [f"第{weakest}章评分最低，冲突推进偏慢，爽点不够集中"] if weakest else []
    if overdue:
        problems.append(f"短伏笔 {'、'.join(overdue)} 已过回收区间仍未回收")
    if ctx.get("violations"):
        problems.append(f"本卷有 {ctx.get('violations')} 处契约违规没有解决，下一卷开头需要交代")
    pay_off = (overdue + [t for t in open_threads if t not in overdue])[:3]
    return {
        "summary": f"第{volume}卷完成了开局的主要铺垫，{lines[0]} 线站稳了脚跟，卷末留下了追更钩子。",
        "strengths": ["开篇钩子抓人，主角处境交代得清楚", "章末钩子衔接紧，节奏没有断档"],
        "problems": problems or ["配角的动机交代偏少，后续要补"],
        "next_volume": [
            f"下一卷开头三章内承接第{volume}卷卷末钩子，不要另起炉灶",
            f"{lines[0]} 线继续作为主推进，每三到四章安排一次小高潮",
            "给主要配角一条自己的小目标，让对手的压力逐步升级",
        ],
        "threads_to_pay_off": [f"{t}：在下一卷前半段推进或回收" for t in pay_off],
    }


def planning_reply(request: ModelRequest) -> str | None:
    """The offline reply of a planning agent, or None for any other agent."""
    ctx = request.context
    replies = {
        "world_builder": world_reply,
        "character_weaver": character_reply,
        "plot_architect": plot_reply,
        "style_analyzer": style_reply,
        "volume_review": review_reply,
    }
    if request.agent == "plot_architect" and ctx.get("task") == "contracts":
        return _dumps(contracts_reply(ctx))
    build = replies.get(request.agent)
    return None if build is None else _dumps(build(ctx))
