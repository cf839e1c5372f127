"""Text pieces the writing prompts are assembled from (issue 9 items 1, 3 and 4): pure functions over strings
and models, no project reads, so each rule is tested on its own.

Rules:
- **Previous ending** (`chapter_ending`): the last `ENDING_MAX_CHARS` characters of a chapter's body (heading
  and comments dropped, one paragraph a line, `studio.checks.paragraphs` numbering), verbatim. The cut moves
  forward to the first paragraph start, else the first sentence end, that still leaves at least
  `ENDING_MIN_CHARS`, so the writer never starts mid-sentence. A body shorter than the maximum is given whole.
- **Transition tail** (`chapter_tail`): the same rule with `TAIL_MIN_CHARS`..`TAIL_MAX_CHARS`; it is only the
  last beat of a chapter on another storyline, for the hand-over, labelled as such by the caller.
- **Style anchors** (`style_anchors`): passages of the author's own prose kept in `style-profile.json` under
  `anchor_passages` (written by the StyleAnalyzer) or the reference plugin's `style_exemplars`: plain strings or
  objects with `text` / `passage` / `content` / `excerpt`. The first one or two, together at most
  `ANCHOR_MAX_TOKENS` (estimated); a single longer passage is cut at a sentence end.
- **Contract checklist** (`contract_checklist`): an L3 contract as a Chinese checklist (preconditions, the
  objectives with their ids, postconditions, acceptance criteria), character keys shown by display name.
- **Numbered paragraphs** (`numbered_paragraphs`): `【N】` before each body paragraph, N from
  `studio.checks.paragraphs` (the numbering the checks and the studio show), so a finding can point at a place.
- **Findings with their places** (`with_paragraphs`): a judge's fix or issue that names paragraphs (`第 3 段`,
  `第3-5段`, `第 3、4 段`) gets the text of those paragraphs (each cut to `PLACE_MAX_CHARS`, at most
  `PLACE_MAX_PARAGRAPHS` of them) so the reviser and the polish pass know exactly where; other findings are kept
  as they are. `is_local` tells a finding tied to paragraphs from a structural one (no paragraph, or `全章`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pipeline.tokens import estimate_tokens
from studio.checks.paragraphs import Paragraphs
from studio.checks.quotes import normalise
from studio.models.contract import ChapterContract

__all__ = [
    "ANCHOR_MAX_TOKENS",
    "ENDING_MAX_CHARS",
    "ENDING_MIN_CHARS",
    "TAIL_MAX_CHARS",
    "TAIL_MIN_CHARS",
    "body_text",
    "chapter_ending",
    "chapter_tail",
    "contract_checklist",
    "first_sentences",
    "is_local",
    "numbered_paragraphs",
    "paragraph_number_prefix",
    "paragraph_refs",
    "style_anchors",
    "with_paragraphs",
]

ENDING_MIN_CHARS = 600
ENDING_MAX_CHARS = 1000
TAIL_MIN_CHARS = 120
TAIL_MAX_CHARS = 240
ANCHOR_MAX_TOKENS = 2000
MIN_QUOTE_CHARS = 4  # a shorter quote is no evidence (`pipeline.agents.judge_calibration`)
MAX_ANCHORS = 2
ANCHOR_FIELDS = ("anchor_passages", "style_exemplars")
_ANCHOR_TEXT_KEYS = ("text", "passage", "content", "excerpt")
_SENTENCE_END = re.compile(r"[。！？!?…]+[”」』\"]*")
# How a judge may echo the numbering in a quote: 【3】, [3], 第3段：
paragraph_number_prefix = re.compile(r"^\s*(?:【\s*\d+\s*】|\[\s*\d+\s*\]|第\s*\d+\s*段[：:，,]?)\s*")


def body_text(chapter_text: str) -> str:
    """The chapter's body paragraphs, one a line (heading, blank lines and comments left out)."""
    return "\n".join(p.text for p in Paragraphs(chapter_text))


def _last(body: str, low: int, high: int) -> str:
    if len(body) <= high:
        return body
    tail = body[-high:]
    room = len(tail) - low  # the cut may move forward at most this far
    newline = tail.find("\n")
    if 0 <= newline < room:
        return tail[newline + 1 :]
    for match in _SENTENCE_END.finditer(tail):
        if match.end() > room:
            break
        if match.end() < len(tail):
            return tail[match.end() :].lstrip()
    return tail


def chapter_ending(chapter_text: str, low: int = ENDING_MIN_CHARS, high: int = ENDING_MAX_CHARS) -> str:
    """The verbatim ending of a chapter (see the module rules)."""
    return _last(body_text(chapter_text), low, high)


def chapter_tail(chapter_text: str) -> str:
    """The last beat of a chapter, for a hand-over between storylines."""
    return _last(body_text(chapter_text), TAIL_MIN_CHARS, TAIL_MAX_CHARS)


def _anchor_text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, Mapping):
        for key in _ANCHOR_TEXT_KEYS:
            text = value.get(key)
            if isinstance(text, str) and text.strip():
                return text.strip()
    return ""


def _cut_to_tokens(text: str, budget: int) -> str:
    if estimate_tokens(text) <= budget:
        return text
    kept = ""
    for match in _SENTENCE_END.finditer(text):
        candidate = text[: match.end()]
        if estimate_tokens(candidate) > budget:
            break
        kept = candidate
    return kept.strip()


def style_anchors(profile_data: Mapping[str, Any], budget: int = ANCHOR_MAX_TOKENS) -> list[str]:
    """One or two anchor passages from a style profile's data, within `budget` estimated tokens in all."""
    passages: list[str] = []
    for field in ANCHOR_FIELDS:
        value = profile_data.get(field)
        if isinstance(value, str | Mapping):
            value = [value]
        if isinstance(value, list):
            passages += [t for t in (_anchor_text(v) for v in value) if t]
        if passages:
            break  # the analyzer's own field wins over the plugin's
    out: list[str] = []
    left = budget
    for passage in passages[:MAX_ANCHORS]:
        cut = _cut_to_tokens(passage, left)
        if not cut:
            break
        out.append(cut)
        left -= estimate_tokens(cut)
    return out


_STATE_KEYS = {
    "location": "位置",
    "emotional_state": "情绪",
    "inventory": "随身物品",
    "relationships": "关系",
    "status": "状态",
    "realm": "境界",
    "修为": "修为",
}
_OBJECTIVE_TYPES = {"plot": "情节", "foreshadowing": "伏笔", "character": "人物", "event": "事件", "emotion": "情感"}
_ACTIONS = {
    "plant": "埋设",
    "planted": "埋设",
    "advance": "推进",
    "advanced": "推进",
    "resolve": "回收",
    "resolved": "回收",
}


def _value(value: Any) -> str:
    if isinstance(value, list):
        return "、".join(str(v) for v in value)
    if isinstance(value, Mapping):
        return "；".join(f"{k}={_value(v)}" for k, v in value.items())
    return str(value)


def _state_line(who: str, fields: Any, names: Mapping[str, str], arrow: str) -> str:
    name = names.get(who, who)
    if not isinstance(fields, Mapping):
        return f"- {name}：{_value(fields)}"
    parts = [f"{_STATE_KEYS.get(str(k), str(k))}{arrow}{_value(v)}" for k, v in fields.items()]
    return f"- {name}：" + "；".join(parts)


def contract_checklist(
    contract: ChapterContract | None, names: Mapping[str, str], rules: Mapping[str, str] | None = None
) -> str:
    """The L3 contract as a Chinese checklist; "" without a contract. `names`: id -> display name;
    `rules`: world-rule id -> rule text, for the rules the preconditions require."""
    if contract is None:
        return ""
    lines: list[str] = []
    pre = contract.preconditions
    if pre.character_states or pre.required_world_rules:
        lines.append("开写时已成立（前置条件）：")
        lines += [_state_line(k, v, names, "：") for k, v in pre.character_states.items()]
        for rule_id in pre.required_world_rules:
            text = (rules or {}).get(rule_id, "")
            lines.append(f"- 本章涉及世界规则 {rule_id}" + (f"：{text}" if text else ""))
    if contract.objectives:
        lines.append("本章必须完成（目标，逐条写进正文）：")
        for o in contract.objectives:
            kind = _OBJECTIVE_TYPES.get(o.type, o.type)
            tags = ["必须" if o.required else "可选", *([kind] if kind else [])]
            if o.action:
                tags.append(f"{_ACTIONS.get(o.action, o.action)} {o.target or ''}".strip())
            lines.append(f"- [ ] {o.id}（{'，'.join(tags)}）：{o.description}")
    post = contract.postconditions
    if post.state_changes or post.foreshadowing_updates:
        lines.append("写完时必须成立（后置条件，正文里要有因果）：")
        lines += [_state_line(k, v, names, " → ") for k, v in post.state_changes.items()]
        lines += [
            f"- 伏笔 {fid} → {_ACTIONS.get(action, action)}" for fid, action in post.foreshadowing_updates.items()
        ]
    if contract.acceptance_criteria:
        lines.append("验收标准：")
        lines += [f"- [ ] {c}" for c in contract.acceptance_criteria]
    return "\n".join(lines)


def numbered_paragraphs(chapter_text: str) -> str:
    """The chapter with `【N】` before every body paragraph (heading kept, unnumbered)."""
    paras = Paragraphs(chapter_text)
    if not len(paras):
        return chapter_text.strip()
    out: list[str] = []
    pos = 0
    for p in paras:
        out.append(chapter_text[pos : p.start])
        out.append(f"【{p.number}】")
        pos = p.start
    out.append(chapter_text[pos:])
    return "".join(out).strip()


def first_sentences(chapter_text: str, limit: int = 3) -> list[str]:
    """The first sentence of each of the first body paragraphs that is long enough to be evidence
    (`MIN_QUOTE_CHARS` characters, punctuation not counted): verbatim passages the offline judge cites."""
    out = []
    for p in Paragraphs(chapter_text):
        match = _SENTENCE_END.search(p.text)
        sentence = (p.text[: match.end()] if match else p.text).strip()
        if len(normalise(sentence)[0]) >= MIN_QUOTE_CHARS:
            out.append(sentence)
        if len(out) >= limit:
            break
    return out


PLACE_MAX_CHARS = 120
PLACE_MAX_PARAGRAPHS = 3
_PLACE = re.compile(r"第\s*(\d+)\s*(?:(?:-|～|~|—|至|到)\s*(\d+)|((?:\s*[、,，和]\s*\d+)+))?\s*段")


def paragraph_refs(finding: str) -> list[int]:
    """The paragraph numbers a finding names, in order, without repeats."""
    out: list[int] = []
    for m in _PLACE.finditer(finding):
        first = int(m.group(1))
        if m.group(2):
            numbers = list(range(first, min(int(m.group(2)), first + 20) + 1))
        elif m.group(3):
            numbers = [first, *(int(n) for n in re.findall(r"\d+", m.group(3)))]
        else:
            numbers = [first]
        out += [n for n in numbers if n not in out]
    return out


def is_local(finding: str) -> bool:
    """A finding tied to named paragraphs (fixed in place) rather than to the whole chapter."""
    return bool(paragraph_refs(finding)) and "全章" not in finding and "全文" not in finding


def with_paragraphs(findings: list[str], chapter_text: str) -> list[str]:
    """Each finding followed by the text of the paragraphs it names (see the module rules)."""
    paras = Paragraphs(chapter_text)
    out = []
    for finding in findings:
        quoted = []
        for n in paragraph_refs(finding)[:PLACE_MAX_PARAGRAPHS]:
            para = paras.get(n)
            if para is not None:
                text = para.text if len(para.text) <= PLACE_MAX_CHARS else para.text[:PLACE_MAX_CHARS] + "……"
                quoted.append(f"第{n}段原文：「{text}」")
        out.append(finding + ("\n  " + "\n  ".join(quoted) if quoted else ""))
    return out
