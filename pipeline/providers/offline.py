"""A deterministic provider without network: valid replies for every agent from `ModelRequest.context`.

Used by the demo, the benchmarks and tests. Replies follow the same templates' formats and pass the same
validation as a model's: a chapter of the target length built from sentence templates around the outline's
POV, location, conflict and characters (ending with `===STATE_HINTS===` and hints); a Summarizer JSON with
ops on slug ids; StyleRefiner edits that replace blacklist words found in the draft; judge scores that vary by
chapter so every gate path occurs. Usage is estimated (`Usage.estimated=True`), the model is "offline".

Offline judge score (target overall before rounding to integer dimension scores), by chapter `n`:
- `n % 28 == 20` -> 1.6 (rewrite band, rare); `n % 28 == 6` -> 2.5 (pause band, rare);
- else by `n % 7`: 0-3 -> 4.1-4.4 (pass), 4 -> 3.7 (polish), 5 and 6 -> 3.2 (revise);
- plus 0.4 per revision already made (`context["revision"]`), capped at 5; the second judge of a key
  chapter scores 0.1 lower. Dimensions are integers 1..5 whose weighted mean lands near the target.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import random
import re
import time
from typing import Any

from pipeline.importing.offline_replies import import_reply
from pipeline.planning.offline_replies import planning_reply
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage
from pipeline.providers.offline_summary import cut as _cut
from pipeline.providers.offline_summary import rolled_summary
from pipeline.refine_edits import find_occurrences
from pipeline.tokens import estimate_tokens
from studio.checks.paragraphs import Paragraphs
from studio.ids import is_slug
from studio.models.evaluation import DIMENSION_WEIGHTS
from studio.models.state import is_foreshadow_id

OFFLINE_MODEL = "offline"
HINTS_DELIMITER = "===STATE_HINTS==="

_NARRATION = [
    "{pov}把手揣进兜里，在{loc}门口站定。",
    "风从巷口灌进来，带着一股潮湿的凉气。",
    "{other}没接话，只把门缝又推开一寸。",
    "{pov}数了数兜里的零钱，一共十七块五。",
    "远处有狗叫了两声，又停了。",
    "{pov}没有回头，脚下却慢了半步。",
    "灯芯噼啪响了一下，火苗矮下去，又慢慢立起来。",
    "{pov}在心里把这笔账又过了一遍。",
    "{other}的手指在桌面上敲了三下，像在等谁。",
    "墙角那只旧闹钟停在三点十分，谁也没去拨它。",
    "{pov}站了很久很久，才把那句话咽回去。",
    "他们一步一步地往{loc}深处走。",
    "{other}从柜台底下摸出一包花生，先给自己剥了一颗。",
    "雨点砸在铁皮雨棚上，一声比一声急。",
    "{pov}把{item}翻过来看了看，背面什么也没写。",
    "门轴吱呀一声，像有人在很远的地方叹气。",
    "{pov}想起{conflict_short}，手心出了一层汗。",
    "{other}把茶杯往前推了推，茶早就凉了。",
]
_DIALOGUE = [
    "“先别急，等天亮再说。”{other}说。",
    "“这事你打算怎么办？”{other}问。",
    "“我算过了，不亏。”{pov}说。",
    "“你就不能把话说全？”{pov}压着嗓子问。",
    "“有些账，不是拿钱能算清的。”{other}低声说。",
    "“行，我记下了。”{pov}点了下头。",
]
_AI_FLAVOURED = ["{pov}深吸一口气，推开了门。", "{pov}不禁停下脚步。"]
_REPLACEMENTS = {
    "深吸一口气": "吸了口气",
    "不禁": "",
    "不由得": "",
    "忍不住": "",
    "仿佛": "像",
    "宛如": "像",
    "犹如": "像",
    "缓缓开口": "开口",
    "眉头微皱": "皱了下眉",
    "心头一紧": "心里一紧",
    "莫名的": "说不清的",
}
_NEUTRAL_EDITS = [("很久很久", "很久"), ("一步一步地", "一步步")]
_ITEMS = ["一枚铜钱", "半张地图", "一把旧钥匙", "一封没拆的信", "一盒火柴", "一张收据", "一截红绳"]
_MOODS = ["若有所思", "警觉", "憋着一口气", "将信将疑", "松了口气", "心事重重"]
_DIMENSIONS = list(DIMENSION_WEIGHTS)


def judge_target(chapter: int, revision: int = 0, *, secondary: bool = False) -> float:
    """The offline judge's intended overall for a chapter (see the module docstring)."""
    if chapter % 28 == 20:
        base = 1.6
    elif chapter % 28 == 6:
        base = 2.5
    else:
        band = chapter % 7
        base = 4.1 + 0.1 * (chapter % 4) if band <= 3 else 3.7 if band == 4 else 3.2
    base += 0.4 * max(0, revision)
    if secondary:
        base -= 0.1
    return max(1.0, min(5.0, base))


def judge_scores(target: float, chapter: int) -> dict[str, int]:
    """Integer scores 1..5 whose weighted mean lands within about 0.1 below `target`."""
    floor = max(1, min(5, math.floor(target)))
    rest = target - floor
    scores = dict.fromkeys(_DIMENSIONS, floor)
    if floor < 5:
        order = sorted(range(len(_DIMENSIONS)), key=lambda i: (-DIMENSION_WEIGHTS[_DIMENSIONS[i]], (i + chapter) % 8))
        total = 0.0
        for i in order:
            weight = DIMENSION_WEIGHTS[_DIMENSIONS[i]]
            if total + weight <= rest + 0.02:
                scores[_DIMENSIONS[i]] = floor + 1
                total += weight
    return scores


def _chars(text: str) -> int:
    return len("".join(text.split()))


class OfflineProvider:
    """The Provider protocol without a model: see the module docstring."""

    name = "offline"
    offline = True

    def __init__(self, delay_s: float = 0.01, chunk_chars: int = 20) -> None:
        self.delay_s = delay_s
        self.chunk_chars = max(1, chunk_chars)

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        started = time.monotonic()
        text = self.reply_text(request)
        ttft_ms: int | None = None
        for start in range(0, len(text), self.chunk_chars):
            if self.delay_s > 0:
                await asyncio.sleep(self.delay_s)
            else:
                await asyncio.sleep(0)
            if ttft_ms is None:
                ttft_ms = int((time.monotonic() - started) * 1000)
            if on_text is not None:
                maybe = on_text(text[start : start + self.chunk_chars])
                if inspect.isawaitable(maybe):
                    await maybe
        prompt = "\n".join(b.text for b in request.system) + "\n" + _messages_text(request.messages)
        usage = Usage(input_tokens=estimate_tokens(prompt), output_tokens=estimate_tokens(text), estimated=True)
        return ModelResult(
            text=text,
            stop_reason="end_turn",
            usage=usage,
            model=OFFLINE_MODEL,
            duration_ms=int((time.monotonic() - started) * 1000),
            ttft_ms=ttft_ms,
            request_id=None,
        )

    # ------------------------------------------------------------------ replies

    def reply_text(self, request: ModelRequest) -> str:
        ctx = request.context
        agent = request.agent
        imported = import_reply(agent, ctx, _tagged(_messages_text(request.messages[:1]), "chapter_content"))
        if imported is not None:  # an import's full depth (pipeline.importing.offline_replies)
            return json.dumps(imported, ensure_ascii=False, indent=2)
        if request.prompt_id == "chapter-fixer":
            draft = _tagged(_messages_text(request.messages[:1]), "chapter_draft")
            return json.dumps(fixer_reply(ctx, draft), ensure_ascii=False, indent=2)
        if agent in ("chapter_writer", "revision"):
            return chapter_reply(ctx, variant=f"{request.prompt_id}-{ctx.get('stage', '')}")
        if agent == "summarizer":
            return json.dumps(summarizer_reply(ctx), ensure_ascii=False, indent=2)
        if agent == "style_refiner":
            draft = _tagged(_messages_text(request.messages[:1]), "chapter_draft")
            return json.dumps(refiner_reply(ctx, draft), ensure_ascii=False, indent=2)
        if agent in ("quality_judge", "judge_secondary"):
            return json.dumps(judge_reply(ctx, secondary=agent == "judge_secondary"), ensure_ascii=False, indent=2)
        return planning_reply(request) or "好的。"


def _messages_text(messages: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(b.get("text", "")) for b in content if isinstance(b, dict)]
    return "\n".join(parts)


def _tagged(text: str, tag: str) -> str:
    match = re.search(rf"<{tag}>\n?(.*?)\n?</{tag}>", text, re.DOTALL)
    return match.group(1) if match else ""


def _names(ctx: dict[str, Any]) -> tuple[str, str]:
    pov = ctx.get("pov") or {}
    pov_name = str(pov.get("display_name") or pov.get("id") or "他")
    others = [str(c.get("display_name") or c.get("id")) for c in ctx.get("characters", []) if c.get("id") != pov.get("id")]
    return pov_name, (others[0] if others else "老板")


def chapter_reply(ctx: dict[str, Any], *, variant: str = "") -> str:
    """A chapter of min..max characters (target 35% into the range), then the hints block."""
    chapter = int(ctx.get("chapter") or 1)
    low = int(ctx.get("min_chars") or 2500)
    high = int(ctx.get("max_chars") or max(low, 3500))
    target = low + max(0, high - low) * 35 // 100
    rng = random.Random(f"{chapter}:{variant}")
    pov, other = _names(ctx)
    loc = str(ctx.get("location") or "巷子")
    conflict = str(ctx.get("conflict") or "眼前这桩麻烦")
    values = {
        "pov": pov,
        "other": other,
        "loc": loc.split("·")[-1],
        "item": _ITEMS[chapter % len(_ITEMS)],
        "conflict_short": _cut(conflict.split("，")[0], 24),
    }
    opening = [f"{pov}到{values['loc']}的时候，天已经黑透了。", f"眼下的事明摆着：{conflict}。"]
    paragraphs: list[list[str]] = [opening]
    count = sum(_chars(s) for s in opening)
    flavoured = [s.format(**values) for s in _AI_FLAVOURED]
    while count < target:
        paragraph: list[str] = []
        for _ in range(rng.randint(2, 4)):
            pool = _DIALOGUE if rng.random() < 0.3 else _NARRATION
            sentence = rng.choice(pool).format(**values)
            if flavoured and len(paragraphs) in (3, 7):
                sentence = flavoured.pop(0)
            paragraph.append(sentence)
            count += _chars(sentence)
            if count >= target:
                break
        paragraphs.append(paragraph)
    title = str(ctx.get("title") or "夜路")
    body = "\n\n".join("".join(p) for p in paragraphs)
    hints = [f"- {pov}到了{loc}", f"- {pov}得到{values['item']}"]
    hints += [f"- 伏笔 {f['id']}：{f['action']}" for f in ctx.get("foreshadowing", []) if f.get("action") != "overdue"]
    return f"# 第{chapter}章 {title}\n\n{body}\n\n{HINTS_DELIMITER}\n" + "\n".join(hints) + "\n"


def summarizer_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    chapter = int(ctx.get("chapter") or 1)
    pov = ctx.get("pov") or {}
    pov_id = pov.get("id")
    pov_name, _ = _names(ctx)
    location = ctx.get("location")
    summary = _cut(
        f"{pov_name}在{location or '原地'}：{ctx.get('conflict') or '故事继续推进'}。{ctx.get('arc') or ''}", 300
    )
    ops: list[dict[str, Any]] = []
    if isinstance(pov_id, str) and is_slug(pov_id):
        if location:
            ops.append({"op": "set", "path": f"characters.{pov_id}.location", "value": location})
        ops.append({"op": "set", "path": f"characters.{pov_id}.emotional_state", "value": _MOODS[chapter % len(_MOODS)]})
        ops.append({"op": "add", "path": f"characters.{pov_id}.inventory", "value": _ITEMS[chapter % len(_ITEMS)]})
    for task in ctx.get("foreshadowing", []):
        if task.get("action") in ("planted", "advanced", "resolved") and is_foreshadow_id(str(task.get("id"))):
            ops.append(
                {"op": "foreshadow", "path": task["id"], "value": task["action"], "detail": f"第{chapter}章正文中的体现"}
            )
    return rolled_summary(ctx, chapter, summary, ops, "main")


def fixer_reply(ctx: dict[str, Any], draft: str) -> dict[str, Any]:
    """One edit per fix that names a paragraph: a short beat of action added after that paragraph's first
    sentence (the demo's local revision)."""
    paras = Paragraphs(draft)
    edits: list[dict[str, Any]] = []
    used: set[int] = set()
    for fix in ctx.get("fixes", []):
        match = re.search(r"第\s*(\d+)\s*段", str(fix))
        para = paras.get(int(match.group(1))) if match else None
        if para is None or para.number in used:
            continue
        used.add(para.number)
        sentence = re.split(r"(?<=[。！？])", para.text, maxsplit=1)[0]
        starts = find_occurrences(draft, sentence) if sentence else []
        if para.start not in starts:
            continue
        edit: dict[str, Any] = {"original": sentence, "refined": sentence + "他停了一下，把手里的东西放稳。", "reason": str(fix)}
        if len(starts) > 1:
            edit["occurrence"] = starts.index(para.start) + 1
        edits.append(edit)
    return {"edits": edits}


def refiner_reply(ctx: dict[str, Any], draft: str) -> dict[str, Any]:
    """Edits replacing every blacklist hit (longest words first, exact spans), plus up to two neutral ones."""
    edits: list[dict[str, Any]] = []
    taken: list[tuple[int, int]] = []

    def add(original: str, refined: str, reason: str, limit: int | None = None) -> None:
        starts = find_occurrences(draft, original)
        for k, start in enumerate(starts[:limit], start=1):
            end = start + len(original)
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            edit: dict[str, Any] = {"original": original, "refined": refined, "reason": reason}
            if len(starts) > 1:
                edit["occurrence"] = k
            edits.append(edit)

    for word in sorted((str(w) for w in ctx.get("blacklist", []) if w), key=len, reverse=True):
        if word in draft:
            add(word, _REPLACEMENTS.get(word, ""), "黑名单")
    for original, refined in _NEUTRAL_EDITS:
        add(original, refined, "句式：去掉重复", limit=1)
    return {"edits": edits}


def _evidence(ctx: dict[str, Any], i: int) -> str:
    """A verbatim passage of the judged chapter (the context's `quotes`), so the evidence check finds it."""
    quotes = [str(q) for q in ctx.get("quotes", []) if q]
    return quotes[i % len(quotes)] if quotes else "（离线输出，无原文引用）"


def judge_reply(ctx: dict[str, Any], *, secondary: bool = False) -> dict[str, Any]:
    chapter = int(ctx.get("chapter") or 1)
    revision = int(ctx.get("revision") or 0)
    target = judge_target(chapter, revision, secondary=secondary)
    scores = judge_scores(target, chapter)
    overall = sum(scores[d] * w for d, w in DIMENSION_WEIGHTS.items())
    focus = set(ctx.get("focus_rule_ids", []))

    def check(cid: str, status: str, confidence: str, detail: str) -> dict[str, str]:
        return {"id": cid, "status": status, "confidence": confidence, "detail": detail}

    l1 = [
        check(r, "pass", "high", "正文未出现与该规则矛盾的内容")
        if r in focus
        else check(r, "not_applicable", "high", "本章不涉及")
        for r in ctx.get("rule_ids", [])
    ]
    l2 = [check(c, "pass", "medium", "角色言行在契约范围内") for c in ctx.get("character_contract_ids", [])]
    l3 = [check(o, "pass", "high", "目标在正文中有明确体现") for o in ctx.get("objective_ids", [])]
    if l3:
        l3.append(check("postconditions", "pass", "medium", "状态变化有因果支撑"))
    ls = [check(r, "pass", "medium", "未发现跨线矛盾或泄漏") for r in ctx.get("ls_rule_ids", [])]
    gates = [
        {"gate_id": str(g), "status": "pass", "detail": "离线评审：按平台硬门核对，未发现问题", "fix_suggestion": None}
        for g in ctx.get("platform_gate_ids", [])
    ]
    recommendation = "pass" if overall >= 4.0 else "polish" if overall >= 3.5 else "revise" if overall >= 2.0 else "rewrite"
    fixes = (
        [{"target": "第 3 段", "instruction": "把心理独白改成动作，推进本章核心冲突"}] if overall < 3.5 else []
    )
    return {
        "chapter": chapter,
        "contract_verification": {
            "l1_checks": l1,
            "l2_checks": l2,
            "l3_checks": l3,
            "ls_checks": ls,
            "platform_hard_gates": gates,
            "has_violations": False,
        },
        "scores": {
            d: {"evidence": _evidence(ctx, i), "reason": "离线评审：按章号确定的分数", "score": s}
            for i, (d, s) in enumerate(scores.items())
        },
        "recommendation": recommendation,
        "risk_flags": [] if overall >= 3.5 else ["pacing_slow"],
        "required_fixes": fixes,
        "issues": [] if overall >= 4.0 else ["节奏偏慢，冲突推进不够"],
        "strengths": ["场景动作推进清楚"],
        "blacklist_suggestions": _blacklist_suggestions(ctx, chapter),
    }


def _blacklist_suggestions(ctx: dict[str, Any], chapter: int) -> list[dict[str, Any]]:
    """Now and then (every other chapter) the phrase the chapter repeats most, proposed as a limited entry, so
    the demo shows the author's review of the judge's proposals."""
    if chapter % 2:
        return []
    repeated = {str(k): int(v) for k, v in dict(ctx.get("repeated_phrases") or {}).items() if int(v) >= 3}
    if not repeated:
        return []
    phrase = max(repeated, key=lambda p: (repeated[p], p))
    return [
        {
            "phrase": phrase,
            "count_in_chapter": repeated[phrase],
            "examples": [],
            "tier": "limited",
            "note": "离线评审：本章反复出现的短语",
        }
    ]
