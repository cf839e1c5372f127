"""Anthropic-compatible endpoints the author can pick by name (base URL, note)."""

from __future__ import annotations

from typing import NamedTuple


class Preset(NamedTuple):
    base_url: str | None  # None: the SDK default (https://api.anthropic.com)
    note: str


PRESETS: dict[str, Preset] = {
    "anthropic": Preset(None, "Anthropic API; key in ANTHROPIC_API_KEY"),
    "deepseek": Preset("https://api.deepseek.com/anthropic", "DeepSeek, Anthropic-compatible endpoint"),
    "moonshot": Preset("https://api.moonshot.ai/anthropic", "Moonshot (Kimi), Anthropic-compatible endpoint"),
    "zhipu": Preset("https://open.bigmodel.cn/api/anthropic", "Zhipu (GLM), Anthropic-compatible endpoint"),
    "qwen": Preset("https://dashscope-intl.aliyuncs.com/apps/anthropic", "Alibaba Qwen (DashScope international)"),
    "minimax": Preset("https://api.minimax.io/anthropic", "MiniMax, Anthropic-compatible endpoint"),
    "local": Preset("http://localhost:11434", "Local Ollama (llama.cpp server and vLLM also serve /v1/messages)"),
}


def preset_base_url(name: str) -> str | None:
    """The base URL of a preset; KeyError names the known presets."""
    try:
        return PRESETS[name].base_url
    except KeyError:
        raise KeyError(f"unknown provider preset {name!r}; known: {', '.join(PRESETS)}") from None
