"""The offline provider's replies for an import's full depth (`OfflineProvider` dispatches here): deterministic,
well-formed, and read from the author's text itself, so an offline import gives a usable project (the demo and
the tests) without a key.

- The cast pass (`agent == "import_survey"`): the candidate names jieba found in the opening chapters (the
  request's `context["candidates"]`, most frequent first): the `CAST_SIZE` most frequent person names that
  occur at least twice become characters (the most frequent one the protagonist, POV of `main-arc`), place
  names become registered places; no world rules (the offline provider cannot read rules out of prose).
- The Summarizer of an imported chapter (`context["import_extract"]`): the summary is the chapter's opening
  sentences and who appears; ops: a character of the cast seen for the first time gets its display name and
  `status: active`, the first character named in the chapter moves to the first registered place named in
  it; a sentence with a mystery word (`THREAD_WORDS`) plants a thread `import-chNNN`, a reveal word
  (`REVEAL_WORDS`) resolves the oldest open one. The storyline memory is the previous one plus a line.
"""

from __future__ import annotations

import re
from typing import Any

from pipeline.providers.offline_summary import cut as _cut
from pipeline.providers.offline_summary import rolled_summary
from studio.ids import is_slug, slugify

__all__ = ["import_reply", "summary_reply", "survey_reply"]

CAST_SIZE = 6
THREAD_WORDS = ("秘密", "来历", "谜", "蹊跷", "不对劲")
REVEAL_WORDS = ("真相", "原来如此", "水落石出")
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]?")


def survey_reply(ctx: dict[str, Any]) -> dict[str, Any]:
    candidates = [c for c in ctx.get("candidates", []) if isinstance(c, dict)]
    first_chapter = int((ctx.get("chapters") or [1])[0])
    taken = {str(i) for i in ctx.get("character_ids", [])}
    characters: list[dict[str, Any]] = []
    for cand in candidates:
        if cand.get("kind") != "person" or int(cand.get("count", 0)) < 2 or len(characters) >= CAST_SIZE:
            continue
        name = str(cand["name"])
        if any(name.startswith(c["display_name"]) or c["display_name"].startswith(name) for c in characters):
            continue  # 林枫数 next to 林枫: a name with the next word glued on by the segmenter
        try:
            slug = slugify(name)
        except ValueError:
            continue
        if not is_slug(slug) or slug in taken:
            continue
        taken.add(slug)
        role = "protagonist" if not characters else "supporting"
        characters.append({
            "id": slug,
            "display_name": name,
            "role": role,
            "aliases": [],
            "speech_pattern": "",
            "profile_md": f"# {name}\n\n- 开篇章节中出现 {cand.get('count')} 次\n- 由离线导入整理，请作者补充",
            "contracts": [{
                "id": f"C-{slug.upper()}-001",
                "type": "personality",
                "rule": f"{name}的言行与已写章节保持一致",
                "valid_from_chapter": first_chapter,
                "valid_until": None,
                "exceptions": [],
            }],
        })
    if not characters:
        characters.append({
            "id": "zhu-jiao", "display_name": "主角", "role": "protagonist", "aliases": [],
            "profile_md": "# 主角\n\n- 离线导入未能从开篇找出人名，请作者改名", "contracts": [{
                "id": "C-ZHU-JIAO-001", "type": "personality", "rule": "主角的言行与已写章节保持一致",
                "valid_from_chapter": first_chapter, "valid_until": None, "exceptions": []}],
        })
    protagonist = characters[0]["id"]
    places = [str(c["name"]) for c in candidates if c.get("kind") == "place"][:8]
    known = set(ctx.get("known_names", []))
    return {
        "characters": characters,
        "relationships": [
            {"from": protagonist, "to": c["id"], "type": "相识", "score": 10, "description": "开篇中同场出现"}
            for c in characters[1:3]
        ],
        "rules": [],
        "storylines": [{
            "id": "main-arc", "name": "主线", "type": "main_arc", "scope": "novel",
            "pov_characters": [protagonist], "status": "active", "introduced_volume": 1,
            "description": f"{characters[0]['display_name']}的故事（离线导入整理）",
        }],
        "names": [{"name": p, "kind": "place", "aliases": []} for p in places if p not in known],
        "notes": "离线导入：角色与地名来自分词统计",
    }


def _appearances(text: str, cast: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    found: list[tuple[int, dict[str, Any]]] = []
    for member in cast:
        names = [str(member.get("display_name") or ""), *(str(a) for a in member.get("aliases", []))]
        positions = [text.find(n) for n in names if len(n) >= 2 and n in text]
        if positions:
            found.append((min(positions), member))
    return sorted(found, key=lambda item: item[0])


def summary_reply(ctx: dict[str, Any], text: str) -> dict[str, Any]:
    chapter = int(ctx.get("chapter") or 1)
    body = "\n".join(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    sentences = [s.strip() for s in _SENTENCE.findall(body) if s.strip()]
    cast = [c for c in ctx.get("import_cast", []) if isinstance(c, dict) and is_slug(str(c.get("id", "")))]
    seen = _appearances(body, cast)
    opening = "".join(sentences[:3])
    who = "、".join(str(m["display_name"]) for _, m in seen[:4])
    summary = _cut(opening + (f"（出场：{who}）" if who else ""), 300) or f"第{chapter}章"
    ops: list[dict[str, Any]] = []
    in_state = set(ctx.get("state_character_ids", []))
    for _, member in seen:
        if member["id"] not in in_state:
            ops.append({"op": "set", "path": f"characters.{member['id']}.display_name", "value": member["display_name"]})
            ops.append({"op": "set", "path": f"characters.{member['id']}.status", "value": "active",
                        "detail": f"第{chapter}章出场"})
    places = [p for p in ctx.get("import_places", []) if isinstance(p, str) and len(p) >= 2 and p in body]
    if seen and places:
        ops.append({"op": "set", "path": f"characters.{seen[0][1]['id']}.location", "value": places[0]})
    open_threads = [str(t) for t in ctx.get("open_threads", [])]
    if open_threads and any(w in body for w in REVEAL_WORDS):
        ops.append({"op": "foreshadow", "path": open_threads[0], "value": "resolved",
                    "detail": _cut(next(s for s in sentences if any(w in s for w in REVEAL_WORDS)), 60)})
    hint = next((s for s in sentences if any(w in s for w in THREAD_WORDS)), None)
    if hint is not None:
        ops.append({"op": "foreshadow", "path": f"import-ch{chapter:03d}", "value": "planted",
                    "detail": _cut(hint, 60), "scope": "medium"})
    return rolled_summary(ctx, chapter, summary, ops, "main-arc")


def import_reply(agent: str, ctx: dict[str, Any], chapter_text: str) -> dict[str, Any] | None:
    """The offline reply of an import request, or None for any other request."""
    if agent == "import_survey":
        return survey_reply(ctx)
    if ctx.get("import_extract"):
        return summary_reply(ctx, chapter_text)
    return None
