"""Settings of novel-studio (`novel-studio.toml` in a project, `settings.toml` in the user's config folder).

Every table keeps unknown keys (a newer version's settings survive a rewrite). The API key itself is never
a setting: only the *name* of the environment variable that holds it (`provider.api_key_env`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from studio.i18n import Lang

OPUS = "claude-opus-5-5"
SONNET = "claude-sonnet-5-5"
HAIKU = "claude-haiku-5-5"

AGENTS: tuple[str, ...] = (
    "world_builder",
    "character_weaver",
    "plot_architect",
    "chapter_writer",
    "summarizer",
    "style_analyzer",
    "style_refiner",
    "quality_judge",
    "revision",
    "judge_secondary",
)

_V = TypeVar("_V")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
API_KEY_IN_ENV_NAME = (
    "holds what looks like an API key itself; it must be the NAME of the environment variable that holds the "
    "key (like ANTHROPIC_API_KEY). The value is not shown here: remove it, and if it is a real key, treat it "
    "as exposed and replace it at the vendor"
)


def looks_like_api_key(value: str) -> bool:
    """Whether a value given as a variable name reads like a key (`sk-...`, or a long mixed token)."""
    text = value.strip()
    if not text:
        return False
    if text.startswith(("sk-", "sk_", "key-", "Bearer ")):
        return True
    if re.fullmatch(r"[A-Z_][A-Z0-9_]*", text):
        return False  # ANTHROPIC_API_KEY, DEEPSEEK_API_KEY ...
    return len(text) >= 20 and any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


# ----------------------------------------------------------------------------------------------- presets
# The one registry of provider presets: the settings validate `provider.preset` against it, `studio.config`
# layers its values under the files, and `pipeline.providers.factory` builds the provider from it.


class Preset(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    base_url: str | None
    api_key_env: str
    models: dict[str, str] = Field(default_factory=dict)  # agent -> model; empty: keep the defaults
    note: str = ""
    offline: bool = False  # no network at all: the offline provider


_VENDOR_MODELS = "set [models] to the vendor's model ids"


def _all(model: str) -> dict[str, str]:
    return dict.fromkeys(AGENTS, model)


PRESETS: dict[str, Preset] = {
    "anthropic": Preset(name="anthropic", base_url=None, api_key_env="ANTHROPIC_API_KEY"),
    "deepseek": Preset(
        name="deepseek",
        base_url="https://api.deepseek.com/anthropic",
        api_key_env="DEEPSEEK_API_KEY",
        models=_all("deepseek-chat"),
    ),
    "moonshot": Preset(
        name="moonshot",
        base_url="https://api.moonshot.ai/anthropic",
        api_key_env="MOONSHOT_API_KEY",
        note=_VENDOR_MODELS,
    ),
    "zhipu": Preset(
        name="zhipu",
        base_url="https://open.bigmodel.cn/api/anthropic",
        api_key_env="ZHIPU_API_KEY",
        note=_VENDOR_MODELS,
    ),
    "qwen": Preset(
        name="qwen",
        base_url="https://dashscope-intl.aliyuncs.com/apps/anthropic",
        api_key_env="DASHSCOPE_API_KEY",
        note=_VENDOR_MODELS,
    ),
    "minimax": Preset(
        name="minimax",
        base_url="https://api.minimax.io/anthropic",
        api_key_env="MINIMAX_API_KEY",
        note=_VENDOR_MODELS,
    ),
    "local": Preset(
        name="local",
        base_url="http://localhost:11434",
        api_key_env="LOCAL_API_KEY",
        note="Ollama, llama.cpp server or vLLM serving /v1/messages; set [models] to the local model names",
    ),
    "offline": Preset(
        name="offline",
        base_url=None,
        api_key_env="ANTHROPIC_API_KEY",
        note="no network: canned replies, for the demo and tests",
        offline=True,
    ),
}


class _Table(BaseModel):
    model_config = ConfigDict(extra="allow", validate_assignment=True)


class UiSettings(_Table):
    lang: Lang = "zh"
    keymap: dict[str, str] = Field(default_factory=dict)  # action -> key, e.g. {"write_next": "ctrl+n"}


class ProviderSettings(_Table):
    preset: str = "anthropic"  # a key of PRESETS
    base_url: str | None = None  # None: the preset's URL (the SDK default for anthropic)
    api_key_env: str = "ANTHROPIC_API_KEY"
    proxy: str | None = None
    timeout_s: float = Field(default=600.0, gt=0)
    max_retries: int = Field(default=2, ge=0)
    stage_retries: int = Field(default=2, ge=0)
    stage_retry_wait_s: float = Field(default=30.0, ge=0)
    # The offline provider's pace, seconds between its text deltas. A realistic demo streams at about
    # 0.03-0.05; NOVEL_STUDIO_OFFLINE_DELAY, when set, wins (benches and pty tests set it per process).
    offline_delay_s: float = Field(default=0.01, ge=0, le=10)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, value: str) -> str:
        if value not in PRESETS:
            raise ValueError(f"unknown provider preset; known: {', '.join(PRESETS)}")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str) -> str:
        if looks_like_api_key(value):
            raise ValueError(API_KEY_IN_ENV_NAME)
        if not _ENV_NAME.match(value):
            raise ValueError(
                "must be the NAME of an environment variable (like ANTHROPIC_API_KEY), never the key itself"
            )
        return value


def _positive_versions(value: dict[str, int]) -> dict[str, int]:
    bad = sorted(k for k, v in value.items() if v < 1)
    if bad:
        raise ValueError(f"prompt versions must be >= 1 ({', '.join(bad)})")
    return value


class ModelSettings(_Table):
    """Model per agent, after PRD 4.3: Opus where creative quality matters, Sonnet for volume work."""

    world_builder: str = OPUS
    character_weaver: str = OPUS
    plot_architect: str = OPUS
    chapter_writer: str = SONNET
    summarizer: str = SONNET
    style_analyzer: str = SONNET
    style_refiner: str = OPUS
    quality_judge: str = SONNET
    revision: str = OPUS
    judge_secondary: str = OPUS  # the second judge of key chapters


class MaxTokenSettings(_Table):
    world_builder: int = Field(default=16000, gt=0)
    character_weaver: int = Field(default=16000, gt=0)
    plot_architect: int = Field(default=32000, gt=0)
    chapter_writer: int = Field(default=16000, gt=0)
    summarizer: int = Field(default=8000, gt=0)
    style_analyzer: int = Field(default=8000, gt=0)
    style_refiner: int = Field(default=16000, gt=0)
    quality_judge: int = Field(default=8000, gt=0)
    revision: int = Field(default=16000, gt=0)
    judge_secondary: int = Field(default=8000, gt=0)


class Price(_Table):
    """USD per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_write: float | None = Field(default=None, ge=0)  # None: 1.25 x input
    cache_read: float | None = Field(default=None, ge=0)  # None: 0.1 x input

    @property
    def cache_write_rate(self) -> float:
        return self.cache_write if self.cache_write is not None else self.input * 1.25

    @property
    def cache_read_rate(self) -> float:
        return self.cache_read if self.cache_read is not None else self.input * 0.1


def _price(inp: float, out: float) -> Price:
    return Price(input=inp, output=out, cache_write=round(inp * 1.25, 6), cache_read=round(inp * 0.1, 6))


def default_prices() -> dict[str, Price]:
    return {OPUS: _price(4.0, 20.0), SONNET: _price(2.0, 10.0), HAIKU: _price(0.10, 0.50)}


class WritingSettings(_Table):
    chapter_min_chars: int = Field(default=2500, gt=0)
    chapter_max_chars: int = Field(default=3500, gt=0)
    auto_rebuild: bool = False
    review_refine_before_commit: bool = False


class ProjectInfo(_Table):
    title: str = ""


def _per_agent(table: _Table, agent: str, kind: type[_V]) -> _V:
    """An agent's value in a per-agent table (`[models]`, `[max_tokens]`); KeyError for an unknown agent (an extra
    key of another type, like a note the author left, is no agent)."""
    value = getattr(table, agent, None)
    if not isinstance(value, kind):
        raise KeyError(f"unknown agent {agent!r}")
    return value


class Settings(_Table):
    """The merged, effective settings (see `studio.config.load_settings`)."""

    project: ProjectInfo = Field(default_factory=ProjectInfo)
    ui: UiSettings = Field(default_factory=UiSettings)
    provider: ProviderSettings = Field(default_factory=ProviderSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    max_tokens: MaxTokenSettings = Field(default_factory=MaxTokenSettings)
    prices: dict[str, Price] = Field(default_factory=default_prices)
    writing: WritingSettings = Field(default_factory=WritingSettings)
    # prompt id -> the version this project pins (issue 9 item 8). Only the project's own file pins: the
    # user's file's [prompts] is dropped by `load_settings`. Read and written by `studio.prompt_pins`.
    prompts: dict[str, int] = Field(default_factory=dict)

    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    @field_validator("prompts")
    @classmethod
    def _prompt_versions(cls, value: dict[str, int]) -> dict[str, int]:
        return _positive_versions(value)

    def model_for(self, agent: str) -> str:
        return _per_agent(self.models, agent, str)

    def max_tokens_for(self, agent: str) -> int:
        return _per_agent(self.max_tokens, agent, int)

    def price_for(self, model: str) -> Price | None:
        return self.prices.get(model)

    def api_key(self, env: Mapping[str, str]) -> str | None:
        """The key from the environment variable named by `provider.api_key_env` (None if unset/empty)."""
        return env.get(self.provider.api_key_env) or None

    def source_of(self, key: str) -> str:
        """Where a value came from: 'default', 'preset deepseek', a file path, or 'env NAME'.

        `key` is a dotted path ('provider.base_url'); a table reports its most specific known source.
        """
        parts = key.split(".")
        while parts:
            found = self._sources.get(".".join(parts))
            if found is not None:
                return found
            parts.pop()
        return "default"

    def set_sources(self, sources: Mapping[str, str]) -> None:
        self._sources = dict(sources)

    def to_data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


# Both files share one shape; the names exist for readers of the contracts table.
ProjectSettings = Settings
UserSettings = Settings


def is_offline(settings: Settings, offline: bool = False) -> bool:
    """Whether calls go to the offline provider: asked for (`--offline`), or the preset is an offline one. Here,
    beside the preset registry, so the studio can answer it before the first paint without importing the providers
    (`pipeline.providers.factory` builds by it)."""
    preset = PRESETS.get(settings.provider.preset)
    return offline or (preset is not None and preset.offline)
