"""StyleAnalyzer: `style-profile.json` from the author's prose, a reference author or a tone preset
(seed 000 §5.6, §7 Layer 1; issue 7 item 2). Used by the quick start; any later caller (an import of the
author's own chapters) calls `analyze_style` with `source="samples"` and its texts.

Rules, per `StyleSource`:
- `samples` / `write_then_extract`: the numbers (`avg_sentence_length`, `dialogue_ratio`) are computed by code
  with `studio.checks.metrics` (through `pipeline.context.style_metrics`, the one definition) and never taken
  from the model; directives, rhetoric and forbidden words come from the model; 1-2 short anchor passages
  (`style_exemplars`, at most `ANCHOR_MAX_CHARS` each) are cut from the author's own text by code, verbatim.
  `source_type` is `original` for samples and `write_then_extract` for the trial chapters.
- `reference`: directives only; numeric fields stay null, `source_type: "reference"`, `reference_author` set,
  no passage of anyone's prose is stored (the model's `anchor_passages` are dropped).
- `preset` (`TONE_PRESETS`): `source_type: "template"`, `style_name` the preset, numbers null; the model
  writes 1-2 anchor passages for this project (required: a reply without one goes back for repair).
- The reply is validated and repaired at most twice (`pipeline.structured`); a reply that still fails raises
  `StructuredReplyError` and nothing is written (the caller writes the profile).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.agents.protocol import CallRecord
from pipeline.agents.requests import AgentRequests
from pipeline.context import project_brief, render_bundle, style_metrics
from pipeline.planning.invoke import RetryHook, priced_invoke
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.base import ModelRequest, Provider
from pipeline.structured import run_structured
from studio.errors import StudioError
from studio.fileio import read_text
from studio.i18n import Catalog, Lang, tr
from studio.models.quick_start import StyleSource
from studio.models.settings import Settings
from studio.models.style_profile import RhetoricPreference, StyleProfile, WritingDirective
from studio.project import Project

__all__ = [
    "ANCHOR_MAX_CHARS",
    "PresetStyleReply",
    "build_profile",
    "profile_summary",
    "StyleOutcome",
    "StyleReply",
    "StyleSampleError",
    "analyze_style",
    "anchor_passages",
    "read_samples",
    "style_request",
]

# Where a style profile came from (`StyleProfile.source_type`), as the author reads it.
SOURCE_NAMES: Catalog = {
    "original": ("自己的样章", "own sample chapters"),
    "reference": ("参考作者", "a reference author"),
    "template": ("预设基调", "a tone preset"),
    "write_then_extract": ("先写后提炼", "written first, then extracted"),
    "summary": ("{source}：{directives}", "{source}: {directives}"),
}

STYLE_AGENT = "style_analyzer"
STYLE_PROMPT = "style-analyzer"
STYLE_STAGE = "style"
SAMPLE_MAX_CHARS = 8000
ANCHOR_MIN_CHARS = 60
ANCHOR_MAX_CHARS = 300
ANCHOR_TARGET = 180
_SOURCE_TYPES: dict[str, str] = {
    "samples": "original",
    "reference": "reference",
    "preset": "template",
    "write_then_extract": "write_then_extract",
}


class StyleSampleError(StudioError):
    """A style sample cannot be read (missing, not UTF-8, empty); nothing was called or written."""


class StyleReply(BaseModel):
    """The StyleAnalyzer reply (`prompts/style-analyzer.v1.md`, Format)."""

    model_config = ConfigDict(extra="ignore")

    avg_sentence_length: float | None = None
    dialogue_ratio: float | None = None
    rhetoric_preferences: list[RhetoricPreference] = Field(default_factory=list)
    forbidden_words: list[str] = Field(default_factory=list)
    character_speech_patterns: dict[str, Any] = Field(default_factory=dict)
    writing_directives: list[WritingDirective] = Field(min_length=1, max_length=8)
    anchor_passages: list[str] = Field(default_factory=list, max_length=2)
    notes: str = ""

    @field_validator("forbidden_words")
    @classmethod
    def _words(cls, value: list[str]) -> list[str]:
        return [w.strip() for w in value if w.strip()]


class PresetStyleReply(StyleReply):
    """A preset's reply must carry the anchor passages written for the project."""

    anchor_passages: list[str] = Field(min_length=1, max_length=2)

    @field_validator("anchor_passages")
    @classmethod
    def _length(cls, value: list[str]) -> list[str]:
        for i, text in enumerate(value):
            if not ANCHOR_MIN_CHARS // 2 <= len(text.strip()) <= ANCHOR_MAX_CHARS * 2:
                raise ValueError(f"anchor_passages[{i}] must be about 80-300 characters, not {len(text.strip())}")
        return [t.strip() for t in value]


@dataclass
class StyleOutcome:
    profile: StyleProfile
    calls: list[CallRecord] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls), 6)


def read_samples(paths: list[Path]) -> list[tuple[str, str]]:
    """(name, text) of each sample file, capped at `SAMPLE_MAX_CHARS`; StyleSampleError names a bad one."""
    out = []
    for path in paths:
        if not path.is_file():
            raise StyleSampleError(f"找不到风格样本文件：{path}")
        try:
            text = read_text(path).strip()
        except (OSError, StudioError) as exc:
            raise StyleSampleError(f"无法读取风格样本文件 {path}：{exc}") from None
        if not text:
            raise StyleSampleError(f"风格样本文件是空的：{path}")
        out.append((path.name, text[:SAMPLE_MAX_CHARS]))
    return out


_PARA = re.compile(r"[^\n]+")


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) of every non-blank, non-heading line of `text`."""
    return [(m.start(), m.end()) for m in _PARA.finditer(text) if m.group().strip() and not m.group().lstrip().startswith("#")]


def anchor_passages(texts: list[str], count: int = 2) -> list[str]:
    """Up to `count` passages of the author's text, verbatim (a slice of the text: whole paragraphs, the line
    breaks between them as written) of `ANCHOR_MIN_CHARS`-`ANCHOR_MAX_CHARS` characters, preferring ones that
    mix dialogue and narration and are close to `ANCHOR_TARGET` long; the passages never overlap."""
    scored: list[tuple[float, int, int, int, str]] = []
    for t, text in enumerate(texts):
        paras = _paragraphs(text)
        for i in range(len(paras)):
            for j in range(i, len(paras)):
                run = text[paras[i][0] : paras[j][1]].strip()
                if len(run) > ANCHOR_MAX_CHARS:
                    break
                if len(run) >= ANCHOR_MIN_CHARS:
                    lines = [text[a:b] for a, b in paras[i : j + 1]]
                    mixed = any("“" in line or "「" in line for line in lines) and any(
                        "“" not in line and "「" not in line for line in lines
                    )
                    score = abs(len(run) - ANCHOR_TARGET) - (80 if mixed else 0)
                    scored.append((score, t, i, j, run))
    picked: list[tuple[int, int, int, str]] = []
    for _, t, i, j, run in sorted(scored):
        if all(t != pt or j < pi or i > pj for pt, pi, pj, _ in picked):
            picked.append((t, i, j, run))
        if len(picked) == count:
            break
    return [run for *_, run in picked]


def _task(source: StyleSource, preset: str, note: str) -> str:
    parts = []
    if source == "preset":
        parts.append(f"作者选定的基调：{preset}。据此为本作品定制写作指令，并新写 1-2 段示范段落。")
    if source == "reference":
        parts.append("只提取风格指令；不要摘抄该作者的原文。")
    if note.strip():
        parts.append(f"作者的调整意见：{note.strip()}")
    return "\n".join(parts)


def style_request(
    project: Project,
    settings: Settings,
    source: StyleSource,
    *,
    samples: Sequence[tuple[str, str]] = (),
    reference_author: str = "",
    preset: str = "",
    note: str = "",
    registry: PromptRegistry | None = None,
) -> ModelRequest:
    """The StyleAnalyzer request; `samples` are (name, text) of the author's prose (samples, write_then_extract)."""
    requests = AgentRequests(project, settings, registry or project_registry(project.root))
    texts = [text for _, text in samples]
    measured = style_metrics("\n\n".join(texts), project.ai_blacklist) if texts else {}
    blocks = "\n".join(f'<sample name="{name}">\n{text}\n</sample>' for name, text in samples)
    if source == "reference":
        blocks = f"（仿写模式：请依据你对{reference_author}公开作品的了解提取风格，不附原文）"
    elif source == "preset":
        blocks = f"（预置基调：{preset}）"
    variables = {
        "project_brief": project_brief(project),
        "source_type": _SOURCE_TYPES[source],
        "reference_author": reference_author,
        "style_samples": blocks or "（尚无样本）",
        "task": _task(source, preset, note),
    }
    data = {
        "source_type": _SOURCE_TYPES[source],
        "reference_author": reference_author or None,
        "preset": preset or None,
        "metrics": measured,
        "sample_names": [name for name, _ in samples],
        "character_ids": sorted(project.characters),
    }
    bundle = render_bundle(STYLE_AGENT, STYLE_PROMPT, variables, data, requests.registry)
    return replace(requests.build(bundle, STYLE_AGENT), stage=STYLE_STAGE)


def build_profile(
    reply: StyleReply,
    source: StyleSource,
    *,
    measured: dict[str, Any],
    texts: list[str],
    reference_author: str = "",
    preset: str = "",
    known_characters: set[str] | None = None,
) -> StyleProfile:
    """The profile by the module rules: code's numbers and anchors, the model's directives."""
    data: dict[str, Any] = {
        "source_type": _SOURCE_TYPES[source],
        "rhetoric_preferences": [r.model_dump(exclude_none=True) for r in reply.rhetoric_preferences],
        "forbidden_words": reply.forbidden_words,
        "character_speech_patterns": {
            k: v for k, v in reply.character_speech_patterns.items()
            if known_characters is None or k in known_characters
        },
        "writing_directives": [d.model_dump(exclude_none=True) for d in reply.writing_directives],
        "avg_sentence_length": None,
        "dialogue_ratio": None,
    }
    if source in ("samples", "write_then_extract"):
        mean = measured.get("avg_sentence_length")
        data["avg_sentence_length"] = round(float(mean), 1) if mean else None
        ratio = measured.get("dialogue_ratio")
        data["dialogue_ratio"] = round(float(ratio), 2) if ratio is not None else None
        data["style_exemplars"] = anchor_passages(texts)
    elif source == "reference":
        data["reference_author"] = reference_author
        data["style_exemplars"] = []
    else:
        data["style_name"] = preset
        data["style_exemplars"] = list(reply.anchor_passages)
    if reply.notes.strip():
        data["notes"] = reply.notes.strip()
    return StyleProfile.parse_data(data)


async def analyze_style(
    project: Project,
    settings: Settings,
    provider: Provider,
    source: StyleSource,
    *,
    samples: Sequence[tuple[str, str]] = (),
    reference_author: str = "",
    preset: str = "",
    note: str = "",
    registry: PromptRegistry | None = None,
    on_retry: RetryHook | None = None,
) -> StyleOutcome:
    """Ask StyleAnalyzer and build the profile (see the module rules); nothing is written here."""
    registry = registry or project_registry(project.root)
    request = style_request(project, settings, source, samples=list(samples), reference_author=reference_author,
                            preset=preset, note=note, registry=registry)
    model_cls: type[StyleReply] = PresetStyleReply if source == "preset" else StyleReply
    result = await run_structured(provider, request, model_cls, registry=registry, stage=STYLE_STAGE,
                                  invoke=priced_invoke(provider, settings, on_retry))
    texts = [text for _, text in samples]
    profile = build_profile(
        result.value, source, measured=dict(request.context.get("metrics") or {}), texts=texts,
        reference_author=reference_author, preset=preset, known_characters=set(project.characters),
    )
    return StyleOutcome(profile, result.calls)


def profile_summary(profile: StyleProfile, lang: Lang = "zh") -> str:
    """One line for the author: where the profile came from (in `lang`) and its first directives (as the
    profile words them: the author's own style, so not translated)."""
    directives = "；".join(profile.directive_lines()[:3])
    source = tr(SOURCE_NAMES, profile.source_type, lang) if profile.source_type in SOURCE_NAMES else "-"
    return tr(SOURCE_NAMES, "summary", lang, source=source, directives=directives)


