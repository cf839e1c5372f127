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

Accepted input variants (the reference plugin, DankerMu/novel-writer-plugin, and hand edits):
- its template's extra keys (`version`, `categories` with nested objects, `max_words`, `update_log`, ...)
  are kept as they are; only `words` is enforced (its categories repeat words already listed there).
- a whitelist entry may be a string or an object `{word | phrase, reason?, ...}` (`phrase` is read as
  `word` and written back as `word`; other keys kept). A bare one is written back as a plain string.
- `whitelist` may be an object: `{"words": [...], "_comment": ..., ...}` (or `phrases`), or a map
  `{phrase: reason}`. Its entries are read as above; the object's other keys are kept in
  `whitelist_fields` and the file is written back as `{...those keys, "words": [entries]}`.
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


class WhitelistEntry(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    word: Word
    reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain_string(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"word": data}
        if isinstance(data, dict) and "word" not in data and "phrase" in data:
            data = dict(data)
            data["word"] = data.pop("phrase")
        return data

    @model_serializer(mode="wrap")
    def _as_string_when_bare(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and all(v is None for k, v in data.items() if k != "word"):
            return self.word
        if isinstance(data, dict) and data.get("reason") is None:
            data.pop("reason", None)  # an object entry without a reason stays without one
        return data


def _whitelist_object(data: dict[str, Any]) -> dict[str, Any]:
    """`whitelist` given as an object -> a list of entries plus `whitelist_fields` (its other keys)."""
    rest = dict(data["whitelist"])
    key = next((k for k in ("words", "phrases") if k in rest), None)
    if key is not None:
        entries = rest.pop(key)
    else:  # {phrase: reason}; keys starting with "_" are comments
        entries = [
            {"word": k, "reason": v} if isinstance(v, str) and v else k for k, v in rest.items() if not k.startswith("_")
        ]
        rest = {k: v for k, v in rest.items() if k.startswith("_")}
    return {**data, "whitelist": entries, "whitelist_fields": rest}


class AiBlacklist(FileModel):
    words: list[BlacklistEntry] = Field(default_factory=list)
    whitelist: list[WhitelistEntry] = Field(default_factory=list)
    # Set when the file gave `whitelist` as an object: its keys other than the entries, written back with them.
    whitelist_fields: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        if isinstance(data, list):
            return {"words": data}
        if isinstance(data, dict) and isinstance(data.get("whitelist"), dict):
            return _whitelist_object(data)
        return data

    @model_serializer(mode="wrap")
    def _whitelist_shape(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        fields = data.pop("whitelist_fields", None)
        if fields is not None:
            data["whitelist"] = {**fields, "words": data["whitelist"]}
        return data

    def whitelisted_words(self) -> list[str]:
        return [entry.word for entry in self.whitelist]

    def listed_words(self) -> list[str]:
        return [entry.word for entry in self.words]

    def effective_words(self) -> list[str]:
        """Listed words minus the author's whitelist, first occurrence kept, order preserved."""
        keep = set(self.whitelisted_words())
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
