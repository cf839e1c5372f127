"""A consistent synthetic novel project of N chapters, for benchmarks and tests.

    python bench/synth.py DIR --chapters 500 [--chars 3000] [--seed 0] [--planned]

Every file is in the seed formats (001 section 9.2): 5 characters with slug ids, 3 storylines, volumes of
50 chapters with a parseable outline.md and storyline-schedule.json, chapter text (~3,000 Chinese characters
from a fixed pool of sentences, seeded), summaries, evaluations (8 dimensions, overall = weighted mean),
pipeline logs with tokens and costs, the state built through the real state engine one patch per chapter (so
replaying the changelog gives the state), the foreshadowing ledger and a checkpoint at the last chapter.

Bulk files are written plainly (no fsync): this is test data, and 500 chapters must take seconds, not minutes.

`planned=True` (`--planned`) makes it a planned book as a real one stands: 12 world rules (`world/rules.json`,
hard and soft, some with exceptions), three L2 contracts per character, an L3 chapter contract for every
written chapter and the next one (each requiring the world rules its chapter touches), and summaries of
realistic length (about 200 characters) that differ from chapter to chapter. Without it (the default, which the
other benches use) the project is exactly as before: the planned parts draw from their own random stream,
so the chapters, evaluations and logs stay byte-identical.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from studio.ids import chapter_id, volume_id  # noqa: E402

CHAPTERS_PER_VOLUME = 50

CHARACTERS: list[tuple[str, str, str]] = [
    ("lin-feng", "林枫", "主角，出身寒门的少年剑修，沉默而执拗"),
    ("chen-lao", "陈老", "隐居山中的老剑客，林枫的引路人"),
    ("zhao-ming", "赵明", "宗门大长老之孙，林枫的宿敌"),
    ("su-wan", "苏婉", "药王谷传人，心思缜密，外冷内热"),
    ("li-yun", "李云", "散修出身的商人，消息灵通，立场摇摆"),
]

STORYLINES: list[dict[str, Any]] = [
    {
        "id": "main-arc",
        "name": "林枫证道之路",
        "type": "main_arc",
        "scope": "novel",
        "pov_characters": ["lin-feng"],
        "affiliated_factions": ["青云宗"],
        "timeline": "present",
        "status": "active",
        "description": "主角从外门弟子一路成长的核心成长线",
    },
    {
        "id": "sect-conspiracy",
        "name": "宗门暗流",
        "type": "conspiracy",
        "scope": "multi_volume",
        "pov_characters": ["zhao-ming", "li-yun"],
        "affiliated_factions": ["青云宗", "天魔殿"],
        "timeline": "present",
        "status": "active",
        "introduced_volume": 1,
        "description": "大长老勾结天魔殿的阴谋暗线",
    },
    {
        "id": "su-wan-arc",
        "name": "药王谷旧事",
        "type": "character_arc",
        "scope": "multi_volume",
        "pov_characters": ["su-wan"],
        "affiliated_factions": ["药王谷"],
        "timeline": "present",
        "status": "active",
        "description": "苏婉追查师门覆灭真相的配角成长线",
    },
]

VOLUME_TITLES = ["初入青云", "风起宗门", "药谷迷踪", "天魔现世", "剑指苍穹", "群雄逐鹿", "万古长夜", "破晓", "归墟", "终章"]
LOCATIONS = ["青云宗外门", "落霞峰", "药王谷", "黑石镇", "天魔殿废墟", "藏经阁", "北境雪原", "东海之滨", "断魂崖", "皇城"]
EMOTIONS = ["决意", "警觉", "迷茫", "愤怒", "平静", "悲痛", "欣喜", "疑虑"]
TIME_MARKERS = ["第一年春", "第一年夏", "第一年秋", "第一年冬", "第二年春", "第二年夏", "第二年秋", "第二年冬"]
ITEMS = ["破碎玉佩", "密信", "青锋剑", "回春丹", "天魔令", "残卷", "灵石", "古铜镜"]
TITLE_WORDS = ["夜雨", "剑鸣", "暗潮", "初雪", "归途", "惊变", "对峙", "密谋", "残阳", "破局", "余烬", "风起", "试炼", "旧约", "月下"]
CONFLICTS = ["林枫与赵明在试炼中正面冲突", "苏婉发现药方被人调换", "李云的情报前后矛盾", "陈老的旧伤复发", "宗门大比临近各方角力"]

SENTENCES = [
    "夜色压得很低，山风从崖下卷上来，带着潮湿的草木气息。",
    "林枫握紧剑柄，指节因为用力而微微发白。",
    "远处传来钟声，一声接一声，像是在催促什么。",
    "他没有回头，只是把那句话在心里又过了一遍。",
    "陈老坐在石阶上，慢慢擦拭着那柄旧剑，一言不发。",
    "赵明冷笑一声，袖中的符箓已经悄然亮起。",
    "苏婉把药碗推到他面前，说：“喝了，别逞强。”",
    "李云眯起眼睛，像是在掂量这笔买卖究竟值不值得。",
    "雨下了一整夜，檐角的水珠落在青石上，碎成一片。",
    "山门前的石狮子缺了一只耳朵，据说是百年前那场大战留下的。",
    "他忽然想起母亲临终前的叮嘱，心口像被什么攥住了。",
    "灵气在经脉里奔涌，像一条刚刚解冻的河。",
    "众人屏住呼吸，谁也不敢先开口。",
    "那枚玉佩在掌心微微发烫，仿佛有了自己的心跳。",
    "“你以为这样就能赢？”赵明的声音压得极低。",
    "林枫没有答话，只是往前踏了一步。",
    "风从破窗里灌进来，烛火晃了晃，终究没有熄灭。",
    "藏经阁里静得出奇，只有翻书的沙沙声。",
    "她的手很稳，银针落下的位置分毫不差。",
    "黑石镇的集市一早就热闹起来，吆喝声此起彼伏。",
    "天边的云层裂开一道缝，漏下几缕惨白的光。",
    "他知道，从今夜起，有些事再也回不去了。",
    "陈老叹了口气：“剑是死的，人是活的。”",
    "脚下的积雪咯吱作响，每一步都留下很深的印子。",
    "李云把一封密信塞进他手里，转身便消失在人群中。",
    "赵明的师父站在高台上，目光越过人群落在林枫身上。",
    "苏婉低头翻着那本泛黄的医书，眉头越皱越紧。",
    "剑光一闪，石桌应声裂成两半。",
    "他擦去嘴角的血，笑了笑，重新站直了身子。",
    "远山如黛，近水无声，一切都安静得不像话。",
]

MODELS = {"draft": "claude-sonnet-5-5", "summarize": "claude-sonnet-5-5", "refine": "claude-opus-5-5", "judge": "claude-sonnet-5-5"}
PRICES = {"claude-sonnet-5-5": (2.0, 10.0), "claude-opus-5-5": (4.0, 20.0)}  # USD per million tokens


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _write_json(path: Path, data: Any) -> None:
    _write(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def volume_of(chapter: int) -> int:
    return (chapter - 1) // CHAPTERS_PER_VOLUME + 1


def storyline_of(chapter: int) -> str:
    """Main arc most of the time, the conspiracy every 4th chapter, Su Wan's arc every 7th."""
    if chapter % 7 == 0:
        return "su-wan-arc"
    if chapter % 4 == 0:
        return "sect-conspiracy"
    return "main-arc"


def pov_of(storyline: str) -> str:
    return {"main-arc": "lin-feng", "sect-conspiracy": "zhao-ming", "su-wan-arc": "su-wan"}[storyline]


def chapter_title(chapter: int) -> str:
    a = TITLE_WORDS[chapter % len(TITLE_WORDS)]
    b = TITLE_WORDS[(chapter * 7 + 3) % len(TITLE_WORDS)]
    return a if a == b else f"{a}{b}"


def chapter_text(rng: random.Random, chapter: int, chars: int) -> str:
    """`# 第N章 标题` and paragraphs of pool sentences until about `chars` characters of body."""
    lines = [f"# 第{chapter}章 {chapter_title(chapter)}", ""]
    total = 0
    while total < chars:
        paragraph = "".join(rng.choice(SENTENCES) for _ in range(rng.randint(2, 5)))
        lines.append("\u3000\u3000" + paragraph)
        lines.append("")
        total += len(paragraph)
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- foreshadowing


def foreshadow_plan(chapters: int) -> list[dict[str, Any]]:
    """One short foreshadowing planted every 6 chapters (resolved 5-8 later, except every 5th one, left
    overdue), and one long one per volume (advanced every 10 chapters, never resolved)."""
    plan: list[dict[str, Any]] = []
    for k, planted in enumerate(range(2, chapters + 1, 6)):
        resolve = planted + 5 + (k % 4)
        overdue = k % 5 == 4
        plan.append(
            {
                "id": f"hint-{k + 1:03d}",
                "description": f"第{planted}章埋下的线索：{ITEMS[k % len(ITEMS)]}的来历",
                "scope": "short",
                "planted": planted,
                "storyline": storyline_of(planted),
                "range": [planted + 3, planted + 10],
                "advance": [planted + 2],
                "resolve": None if overdue else resolve,
            }
        )
    for vol in range(1, volume_of(max(chapters, 1)) + 1):
        planted = (vol - 1) * CHAPTERS_PER_VOLUME + 3
        if planted > chapters:
            break
        plan.append(
            {
                "id": f"prophecy-vol{vol:02d}",
                "description": f"第{vol}卷的远古预言碎片",
                "scope": "long",
                "planted": planted,
                "storyline": "main-arc",
                "range": None,
                "advance": list(range(planted + 10, chapters + 1, 10)),
                "resolve": None,
            }
        )
    return plan


def foreshadow_ops_by_chapter(plan: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    ops: dict[int, list[dict[str, Any]]] = {}
    for item in plan:
        ops.setdefault(item["planted"], []).append(
            {"op": "foreshadow", "path": item["id"], "value": "planted", "detail": item["description"]}
        )
        for c in item["advance"]:
            ops.setdefault(c, []).append(
                {"op": "foreshadow", "path": item["id"], "value": "advanced", "detail": f"第{c}章推进"}
            )
        if item["resolve"] is not None:
            ops.setdefault(item["resolve"], []).append(
                {"op": "foreshadow", "path": item["id"], "value": "resolved", "detail": f"第{item['resolve']}章回收"}
            )
    return ops


def ledger_from_plan(plan: list[dict[str, Any]], chapters: int) -> dict[str, Any]:
    """foreshadowing/global.json as of `chapters` (what the commit stage would have built)."""
    items: list[dict[str, Any]] = []
    for item in plan:
        if item["planted"] > chapters:
            continue
        history = [{"chapter": item["planted"], "action": "planted", "detail": item["description"]}]
        status = "planted"
        for c in item["advance"]:
            if c <= chapters:
                history.append({"chapter": c, "action": "advanced", "detail": f"第{c}章推进"})
                status = "advanced"
        if item["resolve"] is not None and item["resolve"] <= chapters:
            history.append({"chapter": item["resolve"], "action": "resolved", "detail": f"第{item['resolve']}章回收"})
            status = "resolved"
        history.sort(key=lambda h: h["chapter"])
        entry: dict[str, Any] = {
            "id": item["id"],
            "description": item["description"],
            "scope": item["scope"],
            "status": status,
            "planted_chapter": item["planted"],
            "planted_storyline": item["storyline"],
            "last_updated_chapter": history[-1]["chapter"],
            "history": history,
        }
        if item["range"] is not None:
            entry["target_resolve_range"] = item["range"]
        items.append(entry)
    return {"foreshadowing": items}


# ------------------------------------------------------------------------------------------- per-file content


def outline_text(volume: int, first: int, last: int, plan_ops: dict[int, list[dict[str, Any]]]) -> str:
    title = VOLUME_TITLES[(volume - 1) % len(VOLUME_TITLES)]
    lines = [f"# 第{volume}卷 {title}", "", f"第{volume}卷梗概：林枫在{LOCATIONS[volume % len(LOCATIONS)]}卷入新的风波。", ""]
    for c in range(first, last + 1):
        line = storyline_of(c)
        fs = ", ".join(f"{op['path']}({op['value']})" for op in plan_ops.get(c, [])) or "无"
        lines += [
            f"## 第{c}章 {chapter_title(c)}",
            f"- Storyline: {line}",
            f"- POV: {pov_of(line)}",
            f"- Location: {LOCATIONS[c % len(LOCATIONS)]}",
            f"- Conflict: {CONFLICTS[c % len(CONFLICTS)]}",
            f"- Arc: {CHARACTERS[c % len(CHARACTERS)][1]}的心境变化",
            f"- Foreshadowing: {fs}",
            f"- StateChanges: {pov_of(line)} 移动到 {LOCATIONS[c % len(LOCATIONS)]}",
            "",
        ]
    return "\n".join(lines)


def schedule_data(volume: int, first: int, last: int) -> dict[str, Any]:
    count = {sid: sum(1 for c in range(first, last + 1) if storyline_of(c) == sid) for sid in ("main-arc", "sect-conspiracy", "su-wan-arc")}
    return {
        "volume": volume,
        "volume_theme": VOLUME_TITLES[(volume - 1) % len(VOLUME_TITLES)],
        "active_storylines": [
            {"storyline_id": "main-arc", "volume_role": "primary", "target_chapters": count["main-arc"], "arc_goal": "主角突破境界"},
            {"storyline_id": "sect-conspiracy", "volume_role": "secondary", "target_chapters": count["sect-conspiracy"], "arc_goal": "阴谋浮出水面"},
            {"storyline_id": "su-wan-arc", "volume_role": "seasoning", "target_chapters": count["su-wan-arc"], "arc_goal": "揭示一个药谷旧事碎片"},
        ],
        "interleaving_pattern": {
            "strategy": "primary_dominant",
            "primary_max_consecutive": 5,
            "secondary_min_appearance": "every_8_chapters",
            "seasoning_placement": "mid_volume_and_climax",
        },
        "convergence_events": [],
        "dormant_storylines": [],
        "newly_activated": [],
    }


def evaluation_data(rng: random.Random, chapter: int) -> dict[str, Any]:
    from studio.models.evaluation import DIMENSION_WEIGHTS, weighted_overall

    base = rng.choice([3, 4, 4, 4, 5])
    scores: dict[str, Any] = {}
    for name, weight in DIMENSION_WEIGHTS.items():
        score = max(1, min(5, base + rng.choice([-1, 0, 0, 0, 1])))
        scores[name] = {"score": score, "weight": weight, "reason": "合成评估", "evidence": "……"}
    overall = weighted_overall({name: float(v["score"]) for name, v in scores.items()})
    if overall < 3.0:  # a committed chapter passed the gate (seed 002: < 3.0 never commits)
        for v in scores.values():
            v["score"] = max(v["score"], 3)
        overall = weighted_overall({name: float(v["score"]) for name, v in scores.items()})
    force = chapter % 37 == 0
    if force:
        recommendation = "pass"
    elif overall >= 4.0:
        recommendation = "pass"
    elif overall >= 3.5:
        recommendation = "polish"
    elif overall >= 3.0:
        recommendation = "revise"
    elif overall >= 2.0:
        recommendation = "review"
    else:
        recommendation = "rewrite"
    return {
        "chapter": chapter,
        "contract_verification": {"l1_checks": [], "l2_checks": [], "l3_checks": [], "ls_checks": [], "has_violations": False},
        "scores": scores,
        "overall": overall,
        "recommendation": recommendation,
        "risk_flags": [],
        "required_fixes": [],
        "issues": [],
        "strengths": ["节奏张弛得当"],
        "force_passed": force,
    }


def log_data(rng: random.Random, chapter: int, chars: int) -> dict[str, Any]:
    stages = []
    total_ms = 0
    total_cost = 0.0
    for name, model in MODELS.items():
        inp = rng.randint(18000, 26000)
        out = chars * 2 if name in ("draft", "refine") else rng.randint(800, 2000)
        p_in, p_out = PRICES[model]
        cost = round(inp * p_in / 1e6 + out * p_out / 1e6, 6)
        ms = rng.randint(5000, 50000)
        total_ms += ms
        total_cost += cost
        stages.append(
            {"name": name, "model": model, "duration_ms": ms, "input_tokens": inp, "output_tokens": out, "cost_usd": cost}
        )
    return {
        "chapter": chapter,
        "storyline_id": storyline_of(chapter),
        "started_at": "2026-03-15T14:30:00+08:00",
        "stages": stages,
        "gate_decision": "pass",
        "revisions": 2 if chapter % 37 == 0 else 0,
        "total_duration_ms": total_ms,
        "total_cost_usd": round(total_cost, 6),
    }


def spend_lines(log: dict[str, Any]) -> list[str]:
    """The spend-ledger lines (`studio.models.spend.SpendEntry`) of a chapter log's calls."""
    return [
        json.dumps(
            {"at": log["started_at"], "stage": st["name"], "chapter": log["chapter"], "model": st["model"],
             "input_tokens": st["input_tokens"], "output_tokens": st["output_tokens"], "cost_usd": st["cost_usd"],
             "ok": True},
            ensure_ascii=False,
        ) + "\n"
        for st in log["stages"]
    ]


def state_ops(rng: random.Random, chapter: int, fs_ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    line = storyline_of(chapter)
    who = pov_of(line)
    other = CHARACTERS[(chapter + 1) % len(CHARACTERS)][0]
    if other == who:
        other = "chen-lao" if who != "chen-lao" else "lin-feng"
    ops: list[dict[str, Any]] = [
        {"op": "set", "path": f"characters.{who}.location", "value": LOCATIONS[chapter % len(LOCATIONS)]},
        {"op": "set", "path": f"characters.{who}.emotional_state", "value": rng.choice(EMOTIONS)},
        {"op": "inc", "path": f"characters.{who}.relationships.{other}", "value": rng.choice([-5, 5, 10])},
        {"op": "set", "path": "world_state.time_marker", "value": TIME_MARKERS[(chapter // 10) % len(TIME_MARKERS)]},
    ]
    if chapter % 3 == 0:
        ops.append({"op": "add", "path": f"characters.{who}.inventory", "value": ITEMS[chapter % len(ITEMS)]})
    return ops + fs_ops


def initial_state_data() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "state_version": 0,
        "last_updated_chapter": 0,
        "characters": {
            slug: {"display_name": name, "location": LOCATIONS[0], "emotional_state": "平静", "relationships": {}, "inventory": []}
            for slug, name, _ in CHARACTERS
        },
        "world_state": {"ongoing_events": ["宗门大比将近"], "time_marker": TIME_MARKERS[0]},
        "active_foreshadowing": [],
    }


# ------------------------------------------------------------------------------------------- the project


def _layout(root: Path) -> None:
    if not (root / "novel-studio.toml").exists():
        try:
            from studio.init_project import init_project
        except ImportError:  # an older checkout without init: the folders below are enough
            pass
        else:
            init_project(root)
    for folder in (
        "world", "characters/active", "characters/retired", "storylines", "volumes", "chapters", "staging",
        "summaries", "state/history", "foreshadowing", "evaluations", "logs", "research",
    ):
        (root / folder).mkdir(parents=True, exist_ok=True)


def _build_state(root: Path, chapters: int, seed: int, fs_by_chapter: dict[int, list[dict[str, Any]]]) -> None:
    """The state through the real engine: an init entry, then one merge_patch per chapter."""
    from studio.models.patch import StatePatch
    from studio.models.state import CurrentState
    from studio.paths import ProjectPaths
    from studio.state_engine import init_state, merge_patch

    paths = ProjectPaths(root)
    paths.current_state.unlink(missing_ok=True)
    paths.changelog.unlink(missing_ok=True)
    init_state(paths, CurrentState.model_validate(initial_state_data()))
    rng = random.Random(seed * 7919 + 1)
    for c in range(1, chapters + 1):
        patch = StatePatch(chapter=c, base_state_version=c - 1, storyline_id=storyline_of(c), ops=state_ops(rng, c, fs_by_chapter.get(c, [])))
        entry = merge_patch(paths, patch)
        if entry.warnings:
            raise RuntimeError(f"synthetic patch of chapter {c} was not clean: {entry.warnings}")


WORLD_RULE_TEXTS: list[str] = [
    "修炼者突破境界需要对应浓度的天地灵气，强行突破必遭反噬，三日内无法运转真元",
    "青云宗外门弟子不得擅入后山禁地，违者废去修为逐出山门",
    "剑修的本命剑与主人神识相连，剑断则主人重伤",
    "药王谷的丹药出谷须有谷主印记，无印记者一律视为赝品",
    "天魔殿弟子身上的魔纹遇月光会显形，无法以术法遮掩",
    "筑基期以下的修士无法御剑飞行，只能借助飞舟或灵兽",
    "宗门大比期间同门之间不得私斗，违者取消比试资格",
    "灵石是修真界的通用货币，一块上品灵石抵一百块下品灵石",
    "传音符只能在百里之内使用，超出距离符纸自燃",
    "阵法的阵眼一旦被毁，整座阵法在一炷香内崩解",
    "秘境每三十年开启一次，每次只容金丹期以下修士进入",
    "凡人无法看见修士布下的隐匿阵法，但能感到莫名的寒意",
]
SUMMARY_OPENINGS = ["{pov}在{place}与{rival}正面交锋", "{pov}奉命前往{place}查探异动", "{pov}在{place}意外撞见{rival}",
                    "{pov}回到{place}，发现一切都变了样", "{pov}独自留在{place}疗伤"]
SUMMARY_MIDDLES = [
    "{rival}当众揭出一桩旧事，逼得{pov}不得不表态；{ally}暗中递来消息，说宗门里有人在打听他的来历。",
    "一场意外让{pov}的修为出现异动，{ally}替他压住了伤势，却也看出了他身上不该有的气息。",
    "{pov}在旧书里找到一段残缺的剑诀，与剑鞘上的纹路隐隐相合；{rival}的人一路尾随，始终没有动手。",
    "宗门公布了新的规矩，矛头隐隐指向{pov}；{ally}劝他暂避锋芒，他却决定当面问个清楚。",
    "{pov}与{ally}联手破开一座残阵，阵中留下的血字提到了{rival}的师父。",
]
SUMMARY_ENDINGS = [
    "章末，{rival}留下一句狠话离去，{pov}握紧了剑柄，心里第一次生出退意。",
    "章末，一封没有署名的信送到{pov}手中，信里只有三个字：别回头。",
    "章末，{ally}不告而别，只留下一枚刻着“青”字的玉佩。",
    "章末，封山的钟声响起，{pov}意识到自己已经被卷进了更大的局。",
    "章末，{pov}在月光下看见剑鞘上的旧纹亮了一瞬，随即熄灭。",
]
CONTRACT_RULES: list[tuple[str, str]] = [
    ("capability", "当前修为筑基后期，无法使用金丹期以上的剑诀"),
    ("personality", "面对强敌倾向智取而非硬碰，除非保护身边人"),
    ("relationship", "不信任宗门大长老一系，任何人替大长老传话都会当面追问"),
]


def summary_text(rng: random.Random, chapter: int) -> str:
    """A summary of realistic length (about 200 characters) that differs from chapter to chapter."""
    names = [name for _, name, _ in CHARACTERS]
    pov = pov_of(storyline_of(chapter))
    pov_name = next((name for slug, name, _ in CHARACTERS if slug == pov), names[0])
    others = [n for n in names if n != pov_name]
    fill = {"pov": pov_name, "rival": others[chapter % len(others)], "ally": others[(chapter + 2) % len(others)],
            "place": LOCATIONS[chapter % len(LOCATIONS)]}
    parts = [rng.choice(SUMMARY_OPENINGS).format(**fill) + "，" + CONFLICTS[chapter % len(CONFLICTS)] + "。",
             *(m.format(**fill) for m in rng.sample(SUMMARY_MIDDLES, 4)), rng.choice(SUMMARY_ENDINGS).format(**fill)]
    return f"第{chapter}章：" + "".join(parts) + "\n"


def world_rules_data() -> dict[str, Any]:
    return {
        "rules": [
            {
                "id": f"W-{i:03d}",
                "category": "magic_system" if i % 2 else "social",
                "rule": f"第{i}条：{text}",
                "constraint_type": "hard" if i % 3 else "soft",
                "exceptions": [] if i % 3 else ["宗门禁地灵脉附近可例外，但正文须交代"],
            }
            for i, text in enumerate(WORLD_RULE_TEXTS, start=1)
        ]
    }


def chapter_contract_data(chapter: int) -> dict[str, Any]:
    """An L3 contract: where the chapter starts, what it must do, which world rules it touches."""
    names = [name for _, name, _ in CHARACTERS]
    pov = names[chapter % len(names)]
    rules = [f"W-{(chapter + k) % len(WORLD_RULE_TEXTS) + 1:03d}" for k in (0, 5)]
    return {
        "chapter": chapter,
        "storyline_id": storyline_of(chapter),
        "preconditions": {
            "character_states": {pov: {"location": LOCATIONS[chapter % len(LOCATIONS)], "emotional_state": "警觉"}},
            "required_world_rules": rules,
        },
        "objectives": [
            {"id": f"OBJ-{chapter:03d}-1", "type": "plot", "required": True,
             "description": f"{pov}{CONFLICTS[chapter % len(CONFLICTS)]}，并查明{LOCATIONS[(chapter + 1) % len(LOCATIONS)]}的异动"},
            {"id": f"OBJ-{chapter:03d}-2", "type": "character", "required": True,
             "description": f"{names[(chapter + 2) % len(names)]}第一次向{pov}示弱"},
        ],
        "postconditions": {"state_changes": {pov: {"location": LOCATIONS[(chapter + 1) % len(LOCATIONS)],
                                                   "emotional_state": "疑虑"}}},
        "acceptance_criteria": [f"OBJ-{chapter:03d}-1 在正文中明确体现", f"不违反 {', '.join(rules)}"],
    }


def plan_book(root: Path, chapters: int, seed: int) -> None:
    """World rules, character contracts, L3 contracts of chapters 1..chapters+1 and realistic summaries."""
    _write_json(root / "world" / "rules.json", world_rules_data())
    for slug, name, _ in CHARACTERS:
        contracts = [{"id": f"C-{slug.upper()}-00{k}", "type": kind, "rule": f"{name}{rule}"}
                     for k, (kind, rule) in enumerate(CONTRACT_RULES, 1)]
        _write_json(root / "characters" / "active" / f"{slug}.json",
                    {"id": slug, "display_name": name, "contracts": contracts})
    for c in range(1, chapters + 2):
        _write_json(root / "volumes" / volume_id(volume_of(c)) / "chapter-contracts" / f"{chapter_id(c)}.json",
                    chapter_contract_data(c))
    summaries = random.Random(f"summaries-{seed}")  # its own stream: the chapters stay as without planning
    for c in range(1, chapters + 1):
        _write(root / "summaries" / f"{chapter_id(c)}-summary.md", summary_text(summaries, c))


def generate_project(
    root: Path, chapters: int, *, chars_per_chapter: int = 3000, seed: int = 0, planned: bool = False
) -> None:
    """Write a consistent synthetic project of `chapters` committed chapters at `root` (`planned`: with world
    rules, contracts and realistic summaries, see the module doc)."""
    if chapters < 0:
        raise ValueError("chapters must be >= 0")
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    _layout(root)
    rng = random.Random(seed)

    _write(root / "brief.md", "# 青云剑歌\n\n类型：玄幻。寒门少年林枫入青云宗，一剑破万法。\n")
    for slug, name, blurb in CHARACTERS:
        _write_json(root / "characters" / "active" / f"{slug}.json", {"id": slug, "display_name": name, "contracts": []})
        _write(root / "characters" / "active" / f"{slug}.md", f"# {name}\n\n{blurb}\n")
    _write_json(root / "storylines" / "storylines.json", {"storylines": STORYLINES, "relationships": [], "storyline_types": ["main_arc", "faction_conflict", "conspiracy", "mystery", "character_arc", "parallel_timeline"]})
    for line in STORYLINES:
        _write(root / "storylines" / line["id"] / "memory.md", f"{line['name']}：关键事实若干。\n")

    plan = foreshadow_plan(chapters)
    fs_by_chapter = foreshadow_ops_by_chapter(plan)

    volumes = volume_of(chapters) if chapters else 1
    for vol in range(1, volumes + 1):
        first = (vol - 1) * CHAPTERS_PER_VOLUME + 1
        last = vol * CHAPTERS_PER_VOLUME
        vdir = root / "volumes" / volume_id(vol)
        _write(vdir / "outline.md", outline_text(vol, first, last, fs_by_chapter))
        _write_json(vdir / "storyline-schedule.json", schedule_data(vol, first, last))

    ledger_lines: list[str] = []
    for c in range(1, chapters + 1):
        cid = chapter_id(c)
        text = chapter_text(rng, c, chars_per_chapter)
        _write(root / "chapters" / f"{cid}.md", text)
        _write(root / "summaries" / f"{cid}-summary.md", f"第{c}章：{CONFLICTS[c % len(CONFLICTS)]}，{pov_of(storyline_of(c))}来到{LOCATIONS[c % len(LOCATIONS)]}。\n")
        _write_json(root / "evaluations" / f"{cid}-eval.json", evaluation_data(rng, c))
        log = log_data(rng, c, chars_per_chapter)
        _write_json(root / "logs" / f"{cid}-log.json", log)
        ledger_lines.extend(spend_lines(log))

    if ledger_lines:
        _write(root / "logs" / "spend.jsonl", "".join(ledger_lines))
    _build_state(root, chapters, seed, fs_by_chapter)
    _write_json(root / "foreshadowing" / "global.json", ledger_from_plan(plan, chapters))
    _write_json(
        root / ".checkpoint.json",
        {
            "last_completed_chapter": chapters,
            "current_volume": volumes,
            "orchestrator_state": "WRITING" if chapters else "VOL_PLANNING",
            "pipeline_stage": "committed" if chapters else None,
            "inflight_chapter": None,
            "revision_count": 0,
            "pending_actions": [],
            "last_checkpoint_time": "2026-03-15T15:30:00+08:00",
        },
    )
    if planned:
        plan_book(root, chapters, seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a synthetic novel-studio project.")
    parser.add_argument("dir", type=Path)
    parser.add_argument("--chapters", type=int, default=500)
    parser.add_argument("--chars", type=int, default=3000, help="characters per chapter")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--planned", action="store_true", help="world rules, contracts, realistic summaries")
    args = parser.parse_args(argv)
    generate_project(args.dir, args.chapters, chars_per_chapter=args.chars, seed=args.seed, planned=args.planned)
    print(f"{args.dir}: {args.chapters} chapters")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
