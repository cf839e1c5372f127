"""Sample data for the planning screens' Pilot and snapshot tests: a plan-approval question as the planning
session asks it (`pipeline.decisions.PlanAnswer`'s data: volume, plan as `plan --json` prints it, outline_path)."""

from __future__ import annotations

from pathlib import Path

from pipeline.decisions import Option, Question, QuestionKind

CHAPTERS = [
    (11, "雾港夜航", "main-arc", "lin-wu", "雾港码头", "守灯人失踪，林雾被迫接手灯塔", "第一次看见雾中亡者", "灯塔下的脚印"),
    (12, "旧灯油", "main-arc", "lin-wu", "灯塔", "灯油被人换成了尸油", "林雾识破调包", "老周说漏了嘴"),
    (13, "潮汐账簿", "harbor-feud", "zhou-lao", "税关", "周老与税关的旧账", "账簿里夹着林雾父亲的名字", "账簿被偷"),
    (14, "雾中来客", "main-arc", "lin-wu", "雾港码头", "亡者上岸索命", "林雾以灯驱雾", "来客叫出林雾的乳名"),
    (15, "第二盏灯", "main-arc", "lin-wu", "废灯塔", "废灯塔重新亮起", "林雾找到父亲的笔记", "笔记最后一页被撕掉"),
    (16, "港口封锁", "harbor-feud", "zhou-lao", "港口", "税关封港搜人", "周老替林雾顶罪", "周老被带走"),
]


def plan_data(*, cost: float | None = 2.4) -> dict[str, object]:
    chapters = [
        {
            "chapter": n,
            "heading": f"第{n}章 {title}",
            "storyline": line,
            "pov": pov,
            "location": place,
            "conflict": conflict,
            "payoff": payoff,
            "hook": hook,
            "foreshadowing": "父亲的笔记" if n in (13, 15) else None,
        }
        for n, title, line, pov, place, conflict, payoff, hook in CHAPTERS
    ]
    return {
        "volume": 2,
        "first_chapter": 11,
        "last_chapter": 16,
        "chapters": chapters,
        "threads": ["father-notes", {"id": "torn-page", "description": "被撕掉的最后一页"}],
        "new_characters": [{"id": "gu-san", "display_name": "顾三", "role": "税关小吏", "reason": "第 13 章需要一个内应"}],
        "warnings": ["故事线 main-arc 连续 3 章为主线（上限 3）", "支线 harbor-feud 每 5 章至少出现 1 次"],
        "warnings_en": ["main-arc carries 3 chapters in a row (limit 3)", "harbor-feud must appear every 5 chapters"],
        "estimated_write_cost_usd": cost,
    }


NAMES = {"lin-wu": "林雾", "zhou-lao": "周老"}


DIFF = """--- outline.md（现在）
+++ outline.md（计划）
@@ -3,3 +3,3 @@
 ## 第11章 雾港夜航
-- Conflict: 守灯人失踪
+- Conflict: 守灯人失踪，林雾被迫接手灯塔"""


def plan_question(
    outline: Path | None = None,
    *,
    facts: list[str] | None = None,
    diff: str = "",
    overwrites: list[dict[str, str]] | None = None,
) -> Question:
    data: dict[str, object] = {"volume": 2, "plan": plan_data(), "outline_path": str(outline) if outline else ""}
    if diff:
        data["diff"] = diff
    if overwrites:
        data["overwrites"] = overwrites
    return Question(
        kind=QuestionKind.PLAN_APPROVAL,
        chapter=None,
        title_zh="批准第 2 卷的计划吗？",
        title_en="Approve the plan of volume 2?",
        facts=facts or [],
        options=[
            Option("y", "批准并应用", "approve and apply"),
            Option("k", "修改章数后重新规划", "change the chapter count"),
            Option("r", "附上修改意见重新规划", "re-plan with a note"),
            Option("e", "编辑暂存的大纲", "edit the staged outline"),
            Option("n", "取消", "cancel"),
        ],
        recommended="" if overwrites else "y",
        data=data,
    )
