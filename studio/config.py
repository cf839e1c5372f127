"""Load the effective settings: environment > project file > user file > provider preset > built-in defaults.

Files are TOML and are deep-merged table by table, so a project file may set one key of `[models]` and keep
the rest from the user's file. Environment variables (all optional, an empty value counts as unset):

| variable | setting |
|---|---|
| NOVEL_STUDIO_LANG | ui.lang (`zh` / `en`, locale forms like `en_US.UTF-8` accepted) |
| NOVEL_STUDIO_PROVIDER | provider.preset (a key of `studio.models.settings.PRESETS`, e.g. deepseek, offline) |
| NOVEL_STUDIO_BASE_URL | provider.base_url |
| NOVEL_STUDIO_API_KEY_ENV | provider.api_key_env (the *name* of the variable holding the key) |
| NOVEL_STUDIO_PROXY | provider.proxy |
| NOVEL_STUDIO_TIMEOUT | provider.timeout_s |
| NOVEL_STUDIO_MAX_RETRIES | provider.max_retries |
| NOVEL_STUDIO_MODEL | models.* (every agent) |
| NOVEL_STUDIO_MODEL_<AGENT> | models.<agent>, e.g. NOVEL_STUDIO_MODEL_CHAPTER_WRITER |
| NOVEL_STUDIO_SETTINGS | path of the user settings file (instead of the platform config folder) |

A provider preset (`provider.preset`) fills `base_url`, `api_key_env` and the models it knows, below any
value set explicitly in a file or the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from studio.errors import FormatError, Problem
from studio.i18n import DEFAULT_LANG, Catalog, env_lang, normalize_lang, tr
from studio.models.settings import AGENTS, PRESETS, Settings, looks_like_api_key
from studio.models.validation_text import error_text
from studio.paths import SETTINGS_FILE
from studio.settings_path import user_settings_path
from studio.toml_file import parse_toml as parse_toml  # its home; imported from here too
from studio.toml_file import read_toml as read_toml

DEFAULT_SOURCE = "default"

# environment variable -> dotted settings key (per-agent model variables are added below)
ENV_VARS: dict[str, str] = {
    "NOVEL_STUDIO_LANG": "ui.lang",
    "NOVEL_STUDIO_PROVIDER": "provider.preset",
    "NOVEL_STUDIO_BASE_URL": "provider.base_url",
    "NOVEL_STUDIO_API_KEY_ENV": "provider.api_key_env",
    "NOVEL_STUDIO_PROXY": "provider.proxy",
    "NOVEL_STUDIO_TIMEOUT": "provider.timeout_s",
    "NOVEL_STUDIO_MAX_RETRIES": "provider.max_retries",
}
ENV_ALL_MODELS = "NOVEL_STUDIO_MODEL"
FORBIDDEN_KEYS = frozenset({"api_key", "apikey", "api-key"})

MESSAGES: Catalog = {
    "api_key": (
        "API 密钥不能写进设置文件（项目文件夹会被复制、分享、提交）：请删掉这一项，把密钥放进环境变量，"
        '设置里只写变量名，例如 [provider] api_key_env = "ANTHROPIC_API_KEY"',
        "an API key must not live in a settings file (project folders get copied, shared, committed): "
        "remove it, put the key in an environment variable and name that variable in "
        '[provider] api_key_env = "ANTHROPIC_API_KEY"',
    ),
}



def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: `over` on top of `base`, tables merged key by key, anything else replaced."""
    out: dict[str, Any] = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _forbidden(data: Mapping[str, Any], prefix: str = "") -> list[str]:
    found: list[str] = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if key.lower() in FORBIDDEN_KEYS:
            found.append(dotted)
        elif isinstance(value, Mapping):
            found.extend(_forbidden(value, dotted + "."))
    return found


def check_no_api_key(data: Mapping[str, Any], path: Path | str) -> None:
    """Refuse a settings file holding an API key: a project folder gets shared, copied and committed."""
    found = _forbidden(data)
    if found:
        reason = tr(MESSAGES, "api_key", env_lang() or DEFAULT_LANG)
        raise FormatError([Problem(path, reason, json_path=key) for key in found])


def _leaves(data: Mapping[str, Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        out.append(dotted)
        if isinstance(value, Mapping):
            out.extend(_leaves(value, dotted + "."))
    return out


def _set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    *tables, last = dotted.split(".")
    node = data
    for name in tables:
        node = node.setdefault(name, {})
    node[last] = value


def env_layer(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings given by environment variables, and for each dotted key the variable it came from."""
    data: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def put(var: str, key: str, value: Any) -> None:
        _set_dotted(data, key, value)
        sources[key] = f"env {var}"

    for var, key in ENV_VARS.items():
        raw = env.get(var)
        if not raw:
            continue
        value: Any = raw.strip()
        if key == "ui.lang":
            value = normalize_lang(raw) or raw  # an unknown value is reported by validation, naming the var
        put(var, key, value)
    all_models = env.get(ENV_ALL_MODELS)
    if all_models:
        for agent in AGENTS:
            put(ENV_ALL_MODELS, f"models.{agent}", all_models.strip())
    for agent in AGENTS:
        var = f"{ENV_ALL_MODELS}_{agent.upper()}"
        raw = env.get(var)
        if raw:
            put(var, f"models.{agent}", raw.strip())
    return data, sources


def _preset_layer(name: Any) -> dict[str, Any]:
    preset = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        return {}
    provider: dict[str, Any] = {"api_key_env": preset.api_key_env}
    if preset.base_url is not None:
        provider["base_url"] = preset.base_url
    layer: dict[str, Any] = {"provider": provider}
    if preset.models:
        layer["models"] = dict(preset.models)
    return layer


def _source_for(loc: tuple[int | str, ...], sources: Mapping[str, str]) -> str:
    parts = [str(p) for p in loc]
    while parts:
        found = sources.get(".".join(parts))
        if found is not None:
            return found
        parts.pop()
    return DEFAULT_SOURCE


def load_settings(
    project_root: Path | None,
    *,
    env: Mapping[str, str] = os.environ,
    user_file: Path | None = None,
) -> Settings:
    """The effective settings for a project (or for no project: user file, environment, defaults)."""
    layers: list[tuple[dict[str, Any], dict[str, str]]] = []

    user_path = user_file if user_file is not None else user_settings_path(env)
    project_path = Path(project_root) / SETTINGS_FILE if project_root is not None else None
    for path in (user_path, project_path):
        if path is None or not path.is_file():
            continue
        data = read_toml(path)
        check_no_api_key(data, path)
        if path == user_path:
            data.pop("prompts", None)  # prompt pins belong to a project (studio.prompt_pins), never to the user
        layers.append((data, dict.fromkeys(_leaves(data), str(path))))
    layers.append(env_layer(env))

    explicit: dict[str, Any] = {}
    for data, _ in layers:
        explicit = deep_merge(explicit, data)
    provider = explicit.get("provider")
    preset_name = provider.get("preset", "anthropic") if isinstance(provider, Mapping) else "anthropic"
    preset = _preset_layer(preset_name)

    defaults = Settings().to_data()
    merged = deep_merge(defaults, preset)
    sources: dict[str, str] = {key: f"preset {preset_name}" for key in _leaves(preset)}
    for data, layer_sources in layers:
        merged = deep_merge(merged, data)
        for key in layer_sources:  # a replaced table forgets the sources of its old children
            for old in [k for k in sources if k.startswith(key + ".")]:
                del sources[old]
        sources.update(layer_sources)

    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            reason, zh = error_text(err, "en"), error_text(err, "zh")
            got = err.get("input")
            secret = isinstance(got, str) and (looks_like_api_key(got) or "\n" in got)
            if isinstance(got, str | int | float | bool) and not secret:  # a pasted key is never echoed
                reason += f" (got {got!r})"
                zh += f"（实际是 {got!r}）"
            loc = tuple(err["loc"])
            problems.append(Problem(_source_for(loc, sources), reason, json_path=".".join(map(str, loc)), zh=zh))
        raise FormatError(problems) from None
    settings.set_sources(sources)
    return settings
