"""`ai-blacklist.json`: AI-flavoured phrases and tics the writer must avoid and the refiner removes (seed 000 §7 L4).

The shape (version 2):

    {
      "version": 2,
      "limited_rate": 3.0,
      "words": [
        "不禁",
        {"word": "一股…涌上心头", "category": "结构套路"},
        {"word": "忍不住", "tier": "limited", "rate": 1.5},
        {"word": "眼中…闪过", "pattern": "眼[中里底]闪过一(?:丝|抹)", "added_by": "author"}
      ],
      "categories": {
        "平台敏感": {"severity": "medium"},
        "连接词": {"narration_only": true, "tier": "limited"},
        "套路比喻": {"semantic_match": true, "patterns": ["像X一样", "如同X一般"]}
      },
      "whitelist": ["仿佛"]
    }

Rules:

- An entry's `word` is an exact phrase, or a **shape** when it holds a gap mark: `…`, `...` or `*` stand for up to
  `GAP` characters inside one sentence (`一股…涌上心头`, `他*了一声`). An entry may also give `pattern`, a regular
  expression for what a shape cannot say; `word` is then how it is shown. A pattern is checked when the file is
  read: it must compile, be at most `MAX_PATTERN_CHARS` long, never match the empty string and hold no nested
  repetition (`(a+)+`); anything else is an error naming the entry.
- **Tiers**: `banned` (the default: never in the text; every use is a finding and the refiner removes it first) and
  `limited` (allowed up to `rate` uses per 千字; above it, a finding). A limited entry's rate is its own `rate`,
  else its category's, else the file's `limited_rate` (default 3, seed 000 §7 L4).
- **Categories** are free names. An entry belongs to the category its `category` names, else to the first
  category whose `words` list it (the reference plugin's form). A category's flags apply to its entries:
  `tier`, `rate`, `severity` (of its findings), `narration_only` (a hit inside dialogue does not count),
  `position_only` (`paragraph_start` / `sentence_start`: only a hit there counts), `zero_tolerance` (every hit is
  a high finding and fails the chapter's gate), `semantic_match` (its `patterns` describe sentence shapes for the
  models: they go to the writer's and judge's prompts, never to the matcher). The category names
  `platform-sensitive` / `平台敏感` are medium findings unless they say otherwise.
- **Enforced** entries are the `words` minus the author's `whitelist`, first listing kept. A word listed only in a
  category's `words` and not in `words` is not enforced (the plugin's lint reads `words` only); the project
  reports it as a notice.

Accepted input variants, normalised when read and written back in their own shape, unknown keys kept:

- a bare JSON list (`["不禁", ...]`, the first format) is `{"words": [...]}`, written back as an object with
  `version`;
- an entry is a plain string or an object; an object with nothing but `word` is written back as a plain string;
- the reference plugin's (DankerMu/novel-writer-plugin) template: `version` as a string (`"1.4.0"`), `categories`
  whose values are lists (written back as lists) or objects with flags and `words` / `patterns`, `max_words`,
  `update_log`, ... kept as they are;
- a whitelist entry may be a string or an object `{word | phrase, reason?, ...}`; `whitelist` may be an object
  `{"words": [...], ...}` (or `phrases`) or a map `{phrase: reason}`, its other keys kept in `whitelist_fields`.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    StringConstraints,
    field_validator,
    model_serializer,
    model_validator,
)

from studio.models.aliases import renamed
from studio.models.base import FileModel

Word = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Tier = Literal["banned", "limited"]
Position = Literal["paragraph_start", "sentence_start"]
Severity = Literal["info", "low", "medium", "high"]

CURRENT_VERSION = 2
DEFAULT_LIMITED_RATE = 3.0  # per 千字, seed 000 §7 L4
GAP = 12  # characters a gap mark in a shape may stand for
MAX_PATTERN_CHARS = 200
SENSITIVE_CATEGORIES = frozenset({"platform-sensitive", "平台敏感"})
GAP_MARK = re.compile(r"…+|\.{3,}|\*+")
_SENTENCE_CHARS = r"[^。！？!?\n]"
# a group ending in a repetition, itself repeated: the classic catastrophic backtracking shape
_NESTED_REPEAT = re.compile(r"\([^()]*[+*}]\)[+*{]")


class BlacklistPatternError(ValueError):
    """A pattern that cannot be used; the message names the entry."""


@functools.lru_cache(maxsize=4096)
def compile_pattern(source: str) -> re.Pattern[str]:
    """A checked, compiled pattern (compiled once per process); BlacklistPatternError says what is wrong."""
    if len(source) > MAX_PATTERN_CHARS:
        raise BlacklistPatternError(f"pattern longer than {MAX_PATTERN_CHARS} characters")
    if _NESTED_REPEAT.search(source):
        raise BlacklistPatternError("nested repetition like (a+)+ is not allowed (it can hang the matcher)")
    try:
        regex = re.compile(source)
    except re.error as exc:
        raise BlacklistPatternError(f"not a valid regular expression: {exc}") from None
    if regex.search("") is not None:
        raise BlacklistPatternError("matches the empty string (it would match everywhere)")
    return regex


def shape_regex(word: str) -> str | None:
    """The regex a phrase with gap marks stands for (`一股…涌上心头`), or None for an exact phrase."""
    if not GAP_MARK.search(word):
        return None
    parts = [re.escape(p) for p in GAP_MARK.split(word) if p]
    if not parts:
        return None
    return f"{_SENTENCE_CHARS}{{0,{GAP}}}?".join(parts)


class BlacklistEntry(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    word: Word
    category: str | None = None
    added_by: str | None = None  # "default", "author", "quality-judge", ...
    tier: Tier | None = None  # None: the category's, else banned
    rate: float | None = Field(default=None, gt=0)  # per 千字, limited entries only
    pattern: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain_string(cls, data: Any) -> Any:
        return {"word": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _usable(self) -> BlacklistEntry:
        if self.pattern is None and GAP_MARK.fullmatch(self.word):
            raise ValueError(f"entry {self.word!r}: only gap marks, nothing to match")
        source = self.pattern or shape_regex(self.word)
        if self.pattern is not None and not self.pattern:
            raise ValueError(f"entry {self.word!r}: the pattern is empty")
        if source is not None:
            try:
                compile_pattern(source)
            except BlacklistPatternError as exc:
                raise ValueError(f"entry {self.word!r}: {exc}") from None
        return self

    @model_serializer(mode="wrap")
    def _as_string_when_bare(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if v is not None or k in (self.model_extra or {})}
            if list(data) == ["word"]:
                return self.word
        return data


class WhitelistEntry(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    word: Word
    reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain_string(cls, data: Any) -> Any:
        return {"word": data} if isinstance(data, str) else renamed(data, "word", ("phrase",))

    @model_serializer(mode="wrap")
    def _as_string_when_bare(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and all(v is None for k, v in data.items() if k != "word"):
            return self.word
        if isinstance(data, dict) and data.get("reason") is None:
            data.pop("reason", None)  # an object entry without a reason stays without one
        return data


class BlacklistCategory(BaseModel):
    """One category's flags (see the module rules). Given as a bare list of words, it is written back as one."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    words: list[str] | None = None
    tier: Tier | None = None
    rate: float | None = Field(default=None, gt=0)
    severity: Severity | None = None
    narration_only: bool = False
    position_only: Position | None = None
    zero_tolerance: bool = False
    semantic_match: bool = False
    patterns: list[Any] | None = None  # semantic shapes: strings or {pattern_name, description, examples, ...}
    _bare: bool = PrivateAttr(default=False)
    _order: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _bare_list(cls, data: Any, handler: Any) -> Any:
        if isinstance(data, list):
            made: BlacklistCategory = handler({"words": data})
            made._bare = True
            return made
        made = handler(data)
        if isinstance(data, dict):
            made._order = list(data)
        return made

    @field_validator("words", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        # the plugin's lists hold strings; anything else is kept out of membership rather than refused
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else value

    @model_serializer(mode="wrap")
    def _own_shape(self, handler: SerializerFunctionWrapHandler) -> Any:
        if self._bare:
            return list(self.words or [])
        data = handler(self)
        given = self.model_fields_set | set(self.model_extra or {})
        return _in_given_order({k: v for k, v in data.items() if k in given}, self._order)

    def semantic_lines(self) -> list[str]:
        """The semantic shapes as prompt lines: a string as it is, an object as `name：description（例：…）`."""
        out: list[str] = []
        for item in self.patterns or []:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                head = str(item.get("description") or item.get("pattern_name") or "").strip()
                examples = [str(e) for e in item.get("examples") or [] if str(e).strip()][:3]
                if head or examples:
                    out.append(head + (f"（例：{' / '.join(examples)}）" if examples else ""))
        return out


@dataclass(frozen=True)
class EnforcedEntry:
    """One enforced entry with everything resolved from its category and the file (what the matcher gets)."""

    word: str  # as listed: what findings and reports show
    regex: str | None  # None: `word` is an exact phrase
    tier: Tier
    rate: float | None  # limited only: uses per 千字 allowed
    category: str
    severity: Severity | None
    narration_only: bool
    position: Position | None
    zero_tolerance: bool


def _in_given_order(data: dict[str, Any], order: list[str]) -> dict[str, Any]:
    """`data` with the keys the file gave first, in the file's order (a rewrite keeps a hand-written layout)."""
    if not order:
        return data
    head = {k: data[k] for k in order if k in data}
    return {**head, **{k: v for k, v in data.items() if k not in head}}


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
    version: int | str = CURRENT_VERSION
    limited_rate: float = Field(default=DEFAULT_LIMITED_RATE, gt=0)
    words: list[BlacklistEntry] = Field(default_factory=list)
    categories: dict[str, BlacklistCategory] = Field(default_factory=dict)
    whitelist: list[WhitelistEntry] = Field(default_factory=list)
    # Set when the file gave `whitelist` as an object: its keys other than the entries, written back with them.
    whitelist_fields: dict[str, Any] | None = None
    _order: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _given_order(cls, data: Any, handler: Any) -> Any:
        made = handler(data)
        if isinstance(data, dict) and isinstance(made, AiBlacklist):
            made._order = [k for k in data if k != "whitelist_fields"]
        return made

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        if isinstance(data, list):
            return {"words": data}
        if isinstance(data, dict) and isinstance(data.get("whitelist"), dict):
            return _whitelist_object(data)
        return data

    @model_serializer(mode="wrap")
    def _file_shape(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        fields = data.pop("whitelist_fields", None)
        if fields is not None:
            data["whitelist"] = {**fields, "words": data["whitelist"]}
        if "categories" not in self.model_fields_set and not self.categories:
            data.pop("categories", None)
        if "limited_rate" not in self.model_fields_set and self.limited_rate == DEFAULT_LIMITED_RATE:
            data.pop("limited_rate", None)
        return _in_given_order(data, self._order)

    def __eq__(self, other: object) -> bool:
        # the remembered key order is layout, not content
        if not isinstance(other, AiBlacklist):
            return NotImplemented
        return self.to_data() == other.to_data()

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ reading

    def whitelisted_words(self) -> list[str]:
        return [entry.word for entry in self.whitelist]

    def listed_words(self) -> list[str]:
        return [entry.word for entry in self.words]

    def category_of(self, entry: BlacklistEntry) -> str:
        """The entry's category name: its own, else the first category listing it, else ""."""
        if entry.category:
            return entry.category
        return next((name for name, c in self.categories.items() if c.words and entry.word in c.words), "")

    def category_only_words(self) -> list[tuple[str, str]]:
        """(JSON path, word) of each word a category lists that `words` does not: not enforced (module rules)."""
        listed = set(self.listed_words())
        out: list[tuple[str, str]] = []
        for name, cat in self.categories.items():
            suffix = "" if cat._bare else ".words"
            out += [(f"$.categories.{name}{suffix}[{i}]", w) for i, w in enumerate(cat.words or []) if w not in listed]
        return out

    def enforced(self) -> list[EnforcedEntry]:
        """The entries the checks, the refiner and the prompts enforce (see the module rules), in list order."""
        keep = set(self.whitelisted_words())
        seen: set[str] = set()
        out: list[EnforcedEntry] = []
        for entry in self.words:
            if entry.word in keep or entry.word in seen:
                continue
            seen.add(entry.word)
            name = self.category_of(entry)
            cat = self.categories.get(name) or BlacklistCategory()
            if cat.semantic_match:
                continue  # described to the models, never matched
            tier: Tier = entry.tier or cat.tier or "banned"
            rate = (entry.rate or cat.rate or self.limited_rate) if tier == "limited" else None
            severity = cat.severity or ("medium" if name in SENSITIVE_CATEGORIES else None)
            out.append(
                EnforcedEntry(
                    word=entry.word,
                    regex=entry.pattern or shape_regex(entry.word),
                    tier=tier,
                    rate=rate,
                    category=name,
                    severity="high" if cat.zero_tolerance else severity,
                    narration_only=cat.narration_only,
                    position=cat.position_only,
                    zero_tolerance=cat.zero_tolerance,
                )
            )
        return out

    def effective_words(self) -> list[str]:
        """The enforced entries' words (as listed), order preserved."""
        return [e.word for e in self.enforced()]

    def banned_words(self) -> list[str]:
        return [e.word for e in self.enforced() if e.tier == "banned"]

    def semantic_shapes(self) -> list[str]:
        """Every semantic category's shapes as prompt lines (`像X一样`, ...), categories in file order."""
        return [line for c in self.categories.values() if c.semantic_match for line in c.semantic_lines()]

    # ------------------------------------------------------------------ changing

    def add(
        self,
        word: str,
        category: str | None = None,
        added_by: str | None = None,
        *,
        tier: Tier | None = None,
        rate: float | None = None,
    ) -> bool:
        """Append `word` unless already listed; returns whether it was added. A bad shape raises ValueError."""
        word = word.strip()
        if not word or word in self.listed_words():
            return False
        entry = BlacklistEntry(
            word=word, category=category, added_by=added_by, tier=None if tier == "banned" else tier, rate=rate
        )
        self.words = [*self.words, entry]
        return True


TEMPLATE = ("templates", "project", "ai-blacklist.json")


def default_blacklist() -> AiBlacklist:
    """The starter list a new project gets (`templates/project/ai-blacklist.json`, package data)."""
    node = resources.files(TEMPLATE[0]).joinpath(*TEMPLATE[1:])
    return AiBlacklist.parse_data(json.loads(node.read_text(encoding="utf-8")), "/".join(TEMPLATE))
