"""`style-profile.json`: the style fingerprint injected into ChapterWriter and StyleRefiner (seed 000 5.6 and
section 7, seed 001 9.2).

Every field is optional with an empty default, so a preset template (few fields filled) and a profile the
analyzer has not finished validate alike. `source_type` is None when the file does not say where the
profile came from (the seed 001 example omits it).

Accepted input variants (each read into the one shape below; unknown fields are kept on rewrite):
- `rhetoric_preferences`: plain strings (`"短句切换"`) or the reference plugin's objects
  (`{"type": "短句切换", "frequency": "high"}`). In memory each is a `RhetoricPreference`; one with nothing
  but `type` is written back as a plain string.
- `writing_directives`: plain strings or the plugin's `{"directive": ..., "do": ..., "dont": ...}` objects.
  In memory each is a `WritingDirective`; a bare one is written back as a plain string. `directive_lines()`
  renders them for a prompt, examples included.
- `source_type`: `original`, `reference`, `template`, or the plugin's `write_then_extract` (no style
  source yet: the profile is extracted from the first chapters written, so its statistics may be null).
- The plugin template's other fields (`platform`, `sentence_length_range`, `paragraph_style`,
  `narrative_voice`, `style_exemplars`, `preferred_expressions`, `override_constraints`, `_..._comment`)
  are kept as they are.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

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

SourceType = Literal["original", "reference", "template", "write_then_extract"]
_Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


def _bare_or_object(key: str, handler: SerializerFunctionWrapHandler, value: BaseModel) -> Any:
    """Serialize as the plain string `value.<key>` when every other field is unset (None or empty)."""
    data = handler(value)
    if isinstance(data, dict) and all(v in (None, "") for k, v in data.items() if k != key):
        return data[key]
    return data


class RhetoricPreference(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type: _Text
    frequency: str | None = None  # the plugin writes high / medium / low

    @model_validator(mode="before")
    @classmethod
    def _plain_string(cls, data: Any) -> Any:
        return {"type": data} if isinstance(data, str) else data

    @model_serializer(mode="wrap")
    def _as_string_when_bare(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _bare_or_object("type", handler, self)


class WritingDirective(BaseModel):
    """One positive instruction, with the plugin's optional do / don't examples."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    directive: _Text
    do: str | None = None
    dont: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain_string(cls, data: Any) -> Any:
        return {"directive": data} if isinstance(data, str) else data

    @model_serializer(mode="wrap")
    def _as_string_when_bare(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _bare_or_object("directive", handler, self)

    def line(self) -> str:
        """The directive as one prompt line: `用短动作句推进（这样写：……；不要写：……）`."""
        examples = []
        if self.do:
            examples.append(f"这样写：{self.do}")
        if self.dont:
            examples.append(f"不要写：{self.dont}")
        return f"{self.directive}（{'；'.join(examples)}）" if examples else self.directive


class StyleProfile(FileModel):
    avg_sentence_length: float | None = Field(default=None, gt=0)  # characters per sentence
    # 字数 inside quotes / 字数 of the body, 0..1: the one definition, studio.checks.metrics.dialogue_ratio
    dialogue_ratio: float | None = Field(default=None, ge=0, le=1)
    rhetoric_preferences: list[RhetoricPreference] = Field(default_factory=list)
    forbidden_words: list[str] = Field(default_factory=list)
    character_speech_patterns: dict[str, Any] = Field(
        default_factory=dict
    )  # character -> habit (text usually)
    writing_directives: list[WritingDirective] = Field(default_factory=list)  # injected verbatim
    source_type: SourceType | None = None
    reference_author: str | None = None  # reference mode: whose public chapters were analysed

    def directive_lines(self) -> list[str]:
        """The writing directives as prompt lines (examples included), in file order."""
        return [d.line() for d in self.writing_directives]
