"""What a finding says, in the UI's language, also when it was saved in the other one.

A check writes its finding's `message` in the language of the run (`CheckContext.lang`, Chinese by default), and
`logs/chapter-NNN/checks.json` keeps it as written. The studio's findings list and the volume review show saved
findings later, maybe in the other language; the message is the product's own sentence, not the author's text, so
it must not stay Chinese in the English UI (nor English in the Chinese one). The kind is stored as an identifier,
so it translates at display:

- `KIND_LABELS` / `kind_label(kind, lang)`: the name of every check's kind (`name_variant` -> 人名疑似笔误 /
  name typo); an unknown kind is shown as it is;
- `written_in(message, quoted)`: the language a message was written in, judged on its own words with the chapter
  text it quotes (`Finding.text`, `.suggestion`) taken out: more CJK than Latin letters is Chinese;
- `finding_message(...)` / `message_of(finding, lang)`: the message when it is in `lang`; otherwise the kind's name
  with the quoted text, the suggested fix and how often it occurs (`Finding.count`, shown from 2: `name typo:
  许清禾 -> 许青禾 (3 times)`; `人名疑似笔误：许清禾 → 许青禾（3 次）`), so that no view loses the count.
No model is imported here beyond `Finding`'s type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from studio.i18n import Catalog, Lang, tr
from studio.models.findings import Finding

KIND_LABELS: Catalog = {
    "name_variant": ("人名疑似笔误", "name typo"),
    "new_name": ("未登记的名字", "unregistered name"),
    "punctuation": ("标点", "punctuation"),
    "blacklist": ("AI 腔黑名单", "blacklisted phrase"),
    "blacklist_density": ("限用词过密", "limited phrases too dense"),
    "structural_tic": ("句式习惯", "structural tic"),
    "repeated_phrase": ("重复用语", "repeated phrase"),
    "chapter_length": ("章节字数", "chapter length"),
    "empty_chapter": ("空章节", "empty chapter"),
    "unreadable": ("无法读取", "unreadable"),
    "judge_quote_missing": ("评审引文不存在", "judge quote not found"),
    "check_failed": ("检查出错", "check failed"),
    "recent_repeat": ("跨章重复用语", "repeated across chapters"),
    "continuity_status": ("已退场角色出场", "absent or dead character acts"),
    "continuity_item": ("物品归属矛盾", "item used by a former holder"),
    "continuity_attribute": ("等级变化无交代", "rank change without an event"),
    "storyline_leak": ("故事线串线", "storyline leak"),
    "storyline_leak_hint": ("疑似串线", "possible storyline leak"),
    "foreshadowing_overdue": ("伏笔超期", "foreshadowing overdue"),
    "foreshadowing_never_advanced": ("伏笔未推进", "foreshadowing never advanced"),
    "foreshadowing_long_idle": ("长线伏笔搁置", "long thread idle"),
    "style_drift": ("风格偏移", "style drift"),
    "structure_repeat": ("结构重复", "repeated structure"),
    "structure_goal_stalled": ("卷目标停滞", "volume goal stalled"),
    "structure_balance": ("故事线配比偏离", "storyline balance off plan"),
}

WORDS: Catalog = {
    "colon": ("：", ": "),
    "arrow": (" → ", " -> "),
    "times": ("（{n} 次）", " ({n} times)"),
}

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def kind_label(kind: str, lang: Lang) -> str:
    return tr(KIND_LABELS, kind, lang) if kind in KIND_LABELS else kind


def written_in(message: str, quoted: Iterable[str | None] = ()) -> Lang:
    """`zh` when the message, without the chapter text it quotes, has more CJK characters than Latin letters."""
    for quote in sorted((q for q in quoted if q), key=len, reverse=True):
        message = message.replace(quote, "")
    return "zh" if len(_CJK.findall(message)) > len(_LATIN.findall(message)) else "en"


def finding_message(
    kind: str, message: str, text: str, suggestion: str | None, lang: Lang, count: int = 1
) -> str:
    """The finding's message in `lang` (see the module docstring); `count` is how often it occurs."""
    if message and written_in(message, (text, suggestion)) == lang:
        return message
    said = kind_label(kind, lang)
    if text:
        said += tr(WORDS, "colon", lang) + text
        if suggestion and suggestion != text:
            said += tr(WORDS, "arrow", lang) + suggestion
    if count > 1:
        said += tr(WORDS, "times", lang, n=f"{count:,}" if lang == "en" else count)
    return said


def message_of(finding: Finding, lang: Lang) -> str:
    return finding_message(finding.kind, finding.message, finding.text, finding.suggestion, lang, finding.count)
