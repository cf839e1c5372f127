"""`ai-blacklist.json`: AI-flavoured phrases the writer must avoid and the refiner replaces (seed 000 section 7).

The seeds do not fix the shape; this is it:

    {
      "words": ["不禁", {"word": "嘴角微微上扬", "category": "表情", "added_by": "quality-judge"}],
      "whitelist": ["仿佛"]
    }

- `words`: each entry is a plain string or an object `{word, category?, added_by?}` (extra keys kept). In
  memory every entry is a `BlacklistEntry`; one with nothing but `word` is written back as a plain string,
  so a hand-written list is not inflated.
- `whitelist`: the author's own keepers; a listed word that is also whitelisted is not enforced.
- A bare JSON list (`["不禁", ...]`) is read as `{"words": [...]}` and written back in the object shape.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
    model_validator,
)

from studio.models.base import FileModel

Word = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class BlacklistEntry(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    word: Word
    category: str | None = None
    added_by: str | None = None  # "default", "author", "quality-judge", ...

    @model_validator(mode="before")
    @classmethod
    def _plain_string(cls, data: Any) -> Any:
        return {"word": data} if isinstance(data, str) else data

    @model_serializer(mode="wrap")
    def _as_string_when_bare(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and all(v is None for k, v in data.items() if k != "word"):
            return self.word
        return data


class AiBlacklist(FileModel):
    words: list[BlacklistEntry] = Field(default_factory=list)
    whitelist: list[Word] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        return {"words": data} if isinstance(data, list) else data

    def listed_words(self) -> list[str]:
        return [entry.word for entry in self.words]

    def effective_words(self) -> list[str]:
        """Listed words minus the author's whitelist, first occurrence kept, order preserved."""
        keep = set(self.whitelist)
        return [w for w in dict.fromkeys(self.listed_words()) if w not in keep]

    def add(self, word: str, category: str | None = None, added_by: str | None = None) -> bool:
        """Append `word` unless already listed; returns whether it was added."""
        word = word.strip()
        if not word or word in self.listed_words():
            return False
        self.words.append(BlacklistEntry(word=word, category=category, added_by=added_by))
        return True


_DEFAULT_WORDS: dict[str, list[str]] = {
    "表情": [
        "嘴角微微上扬",
        "嘴角勾起一抹弧度",
        "眼中闪过一丝",
        "眸子里闪过",
        "露出一抹微笑",
        "眉头微皱",
        "瞳孔微缩",
    ],
    "心理": [
        "心中一动",
        "心中一凛",
        "心头一紧",
        "一股暖流",
        "五味杂陈",
        "百感交集",
        "莫名的",
        "不禁",
        "不由得",
        "不由自主",
        "忍不住",
    ],
    "动作": [
        "深吸一口气",
        "长舒一口气",
        "倒吸一口凉气",
        "微微一愣",
        "缓缓开口",
        "轻轻点了点头",
        "身体微微一颤",
    ],
    "修辞": ["仿佛", "宛如", "犹如", "如同潮水般", "仿佛整个世界都安静了", "时间仿佛静止了"],
    "套话": [
        "空气仿佛凝固了",
        "一切都显得那么",
        "目光深邃",
        "命运的齿轮开始转动",
        "嘴里喃喃道",
        "意味深长",
        "眼神复杂",
        "一丝不易察觉的",
        "值得一提的是",
        "总而言之",
        "眼底闪过一抹",
    ],
}


def default_blacklist() -> AiBlacklist:
    """The starter list a new project gets: frequent LLM phrases in Chinese fiction."""
    return AiBlacklist(
        words=[
            BlacklistEntry(word=w, category=c, added_by="default")
            for c, ws in _DEFAULT_WORDS.items()
            for w in ws
        ]
    )
