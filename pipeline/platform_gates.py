"""Platform hard gates: the golden-three-chapter checks a publishing platform's readers expect (the reference
plugin's `platform_hard_gates`, DankerMu/novel-writer-plugin, `agents/quality-judge.md` and
`templates/platforms/*.md`).

Rules (as the plugin means them):

- Gates apply to chapters 1-3 of a project whose style profile names a platform (`platform`: `fanqie` / `qidian` /
  `jinjiang`, or 番茄 / 起点 / 晋江); `general`, another name or no platform means no gates.
- A gate is judged by the model (`GATES`: what to check, given to the judge through quality-judge v2's
  `platform_gates`), or measured by code from the judge's calibrated scores (`SCORE_GATES`: a dimension at least
  a threshold); the code adds those to the evaluation itself, so a prompt version that does not ask for gates
  still gets them.
- A failed gate is a high-confidence violation of the evaluation (`studio.models.evaluation.PlatformGate`): it
  forces a revision whatever the score.
- Gate ids follow the plugin: `{platform}_ch{NNN}_{check}`.
"""

from __future__ import annotations

from dataclasses import dataclass

from studio.models.evaluation import Evaluation, PlatformGate

GOLDEN_CHAPTERS = 3
PLATFORM_ALIASES: dict[str, str] = {
    "fanqie": "fanqie",
    "番茄": "fanqie",
    "番茄小说": "fanqie",
    "qidian": "qidian",
    "起点": "qidian",
    "起点中文网": "qidian",
    "jinjiang": "jinjiang",
    "晋江": "jinjiang",
    "晋江文学城": "jinjiang",
}


@dataclass(frozen=True)
class Gate:
    platform: str
    check: str
    chapters: tuple[int, ...]
    rule: str  # Chinese: it goes to the judge

    def gate_id(self, chapter: int) -> str:
        return f"{self.platform}_ch{chapter:03d}_{self.check}"


@dataclass(frozen=True)
class ScoreGate:
    platform: str
    check: str
    chapters: tuple[int, ...]
    dimension: str
    minimum: float

    def gate_id(self, chapter: int) -> str:
        return f"{self.platform}_ch{chapter:03d}_{self.check}"


GATES: tuple[Gate, ...] = (
    Gate(
        "fanqie",
        "protagonist",
        (1,),
        "主角在正文前 200 字内登场（名字、代称或第一人称“我”都算，不含标题），并且在这一段或下一段就面对冲突"
        "（对抗、威胁、困境或抉择）。",
    ),
    Gate(
        "fanqie",
        "hook",
        (1, 2, 3),
        "正文最后 200 字内有明确的悬念钩子：没解决的悬念、反转或新信息，而不是总结式、情绪平淡的收尾。",
    ),
    Gate(
        "fanqie",
        "reversal",
        (3,),
        "前三章（结合前章摘要）至少出现一次反转、打脸或升级：局势翻转、对手被反制或主角获得新能力。"
        "前章摘要不可用时 status 写 skipped。",
    ),
    Gate(
        "qidian",
        "worldbuilding",
        (3,),
        "读者能感到世界观或力量体系的存在和层级：正文至少两处暗示（角色对更高存在的反应、禁地、实力差距），"
        "且没有超过 150 字的连续设定说明。",
    ),
    Gate(
        "jinjiang",
        "show_not_tell",
        (1, 2),
        "主角至少一项核心性格通过具体的动作、对话或决定展现，而不是由旁白直接说出（“她很勇敢”不算，“她挡在前面”算）。",
    ),
    Gate(
        "jinjiang",
        "cp_lead",
        (3,),
        "前三章（结合前章摘要）至少一位感情线主角登场，并有台词或直接的行动场面（只被提到不算）。",
    ),
    Gate(
        "jinjiang",
        "emotional_tone",
        (1, 2),
        "能辨认出故事的情感底色（甜、虐、悬疑、治愈等），正文至少一处情感浓度明显高于叙述平均的段落。",
    ),
)

SCORE_GATES: tuple[ScoreGate, ...] = (
    ScoreGate("qidian", "immersion", (3,), "immersion", 3.5),
    ScoreGate("jinjiang", "style", (1, 2, 3), "style_naturalness", 3.5),
)

_DIMENSION_NAMES = {"immersion": "沉浸感", "style_naturalness": "风格自然度"}


def platform_of(value: object) -> str | None:
    """The platform key of a style profile's `platform` value, or None (no gates)."""
    if not isinstance(value, str):
        return None
    return PLATFORM_ALIASES.get(value.strip().lower()) or PLATFORM_ALIASES.get(value.strip())


def gates_for(platform: str | None, chapter: int) -> list[tuple[str, str]]:
    """(gate id, rule) of the model-judged gates of `chapter` on `platform`."""
    if platform is None or not 1 <= chapter <= GOLDEN_CHAPTERS:
        return []
    return [(g.gate_id(chapter), g.rule) for g in GATES if g.platform == platform and chapter in g.chapters]


def gates_prompt(platform: str | None, chapter: int) -> str:
    """The `platform_gates` prompt variable: one `- gate_id：rule` line per gate; "" when none apply."""
    return "\n".join(f"- {gate_id}：{rule}" for gate_id, rule in gates_for(platform, chapter))


def apply_score_gates(evaluation: Evaluation, platform: str | None, chapter: int) -> Evaluation:
    """The evaluation with its score gates for `chapter` set from its (calibrated) scores; a gate the judge
    already reported under the same id is replaced (the measured score is the authority)."""
    if platform is None or not 1 <= chapter <= GOLDEN_CHAPTERS:
        return evaluation
    scores = evaluation.scores.as_dict()
    measured: list[PlatformGate] = []
    for gate in SCORE_GATES:
        if gate.platform != platform or chapter not in gate.chapters:
            continue
        score = scores[gate.dimension].score
        passed = score >= gate.minimum
        name = _DIMENSION_NAMES.get(gate.dimension, gate.dimension)
        measured.append(
            PlatformGate(
                gate_id=gate.gate_id(chapter),
                status="pass" if passed else "fail",
                detail=f"{name}评分 {score:g}（要求不低于 {gate.minimum:g}）",
                fix_suggestion=None if passed else f"提高{name}：按评审的 {gate.dimension} 意见修改",
            )
        )
    if not measured:
        return evaluation
    ids = {g.gate_id for g in measured}
    verification = evaluation.contract_verification.model_copy(deep=True)
    verification.platform_hard_gates = [g for g in verification.platform_hard_gates if g.gate_id not in ids] + measured
    return evaluation.model_copy(update={"contract_verification": verification})
