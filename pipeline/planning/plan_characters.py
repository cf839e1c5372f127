"""New characters a volume plan needs, woven by CharacterWeaver (issue 7 item 3: "new characters the plan needs
go through CharacterWeaver and are staged with the plan").

Rules:
- PlotArchitect names them in its outline reply (`new_characters`: id, display_name, role, reason;
  `pipeline.planning.plan_volume.NewCharacter`). One CharacterWeaver call (`prompts/character-weaver.v1.md`,
  mode 新增) is asked for exactly those ids; its reply (`WeaverReply`) is checked by code: every wanted id once,
  nothing else, no id the project already has, the character file valid (`studio.models.character.CharacterFile`
  with its own `problems`). A reply with an error goes back for repair at most `MAX_REPAIRS` times, then
  `PlanRejected`, and nothing is staged.
- The result is the files to stage with the plan: `<id>.json` (CharacterFile) and `<id>.md` (the profile),
  applied into `characters/active/` in the plan's journaled step (`studio.planning.staged`).
- Relationships in the reply are kept in the character file (`relationships`, an extra field): the project's
  relationships file is not rewritten by a plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.agents.protocol import CallRecord
from pipeline.agents.requests import AgentRequests
from pipeline.planning.invoke import RetryHook, priced_call
from pipeline.planning.plan_volume import MAX_REPAIRS, NewCharacter, PlanRejected
from pipeline.planning.prompt_context import character_weaver_context
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.base import ModelRequest, Provider
from pipeline.structured import parse_reply, repair_request
from studio.ids import is_slug
from studio.models.character import CharacterFile
from studio.models.settings import Settings
from studio.project import Project

__all__ = ["WEAVER_AGENT", "StagedCharacter", "WeaverReply", "weave_characters", "weaver_request"]

WEAVER_AGENT = "character_weaver"
WEAVE_STAGE = "plan-characters"
WEAVE_REPAIR_STAGE = "plan-characters-repair"


class WovenCharacter(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1)
    display_name: str = Field(min_length=1)
    profile_md: str = ""


class WeaverReply(BaseModel):
    """CharacterWeaver's reply (only the parts a plan uses are required)."""

    model_config = ConfigDict(extra="allow")

    characters: list[WovenCharacter] = Field(default_factory=list)
    relationships: list[dict[str, Any]] = Field(default_factory=list)


@dataclass(frozen=True)
class StagedCharacter:
    """One new character as it is staged: its file data and its profile."""

    id: str
    data: dict[str, Any]  # CharacterFile data
    profile_md: str


def weaver_request(
    project: Project, settings: Settings, wanted: Sequence[NewCharacter], *, registry: PromptRegistry | None = None
) -> ModelRequest:
    """The CharacterWeaver request for the characters a plan needs."""
    requests = AgentRequests(project, settings, registry or project_registry(project.root))
    lines = [f"- {c.id}（{c.display_name}）：{c.role or '角色'}。{c.reason}".rstrip() for c in wanted]
    text = "本卷大纲需要以下新角色，请逐一创建（id 与姓名保持不变），只输出这些角色：\n" + "\n".join(lines)
    bundle = character_weaver_context(project, request=text, registry=requests.registry)
    bundle = replace(bundle, data={**bundle.data, "wanted": [c.model_dump() for c in wanted]})
    return replace(requests.build(bundle, WEAVER_AGENT), stage=WEAVE_STAGE)


def _check(text: str, wanted: Sequence[NewCharacter], project: Project) -> tuple[list[StagedCharacter] | None, list[str]]:
    reply, errors = parse_reply(text, WeaverReply)
    if reply is None:
        return None, errors
    want = {c.id for c in wanted}
    got = [c.id for c in reply.characters]
    errors = []
    missing = sorted(want - set(got))
    if missing:
        errors.append(f"$.characters: 缺少角色 {'、'.join(missing)}（本卷大纲需要它们）")
    out: list[StagedCharacter] = []
    relationships = reply.relationships
    for i, woven in enumerate(reply.characters):
        where = f"$.characters[{i}]"
        if woven.id not in want:
            errors.append(f"{where}.id: {woven.id!r} 不是本次要求的角色（只输出 {'、'.join(sorted(want))}）")
            continue
        if got.count(woven.id) > 1 or not is_slug(woven.id) or woven.id in project.characters:
            errors.append(f"{where}.id: {woven.id!r} 重复、不是 slug id，或已经存在")
            continue
        data = woven.model_dump(exclude={"profile_md"})
        mine = [r for r in relationships if isinstance(r, dict) and woven.id in (r.get("from"), r.get("to"))]
        if mine:
            data["relationships"] = mine
        try:
            character = CharacterFile.model_validate(data)
        except ValidationError as exc:
            errors += [f"{where}: {e['msg']} ({'.'.join(map(str, e['loc']))})" for e in exc.errors()]
            continue
        errors += [f"{where}: {p}" for p in character.problems(woven.id)]
        out.append(StagedCharacter(woven.id, character.to_data(), woven.profile_md.strip()))
    return (None, errors) if errors else (out, [])


async def weave_characters(
    project: Project,
    settings: Settings,
    provider: Provider,
    wanted: Sequence[NewCharacter],
    *,
    registry: PromptRegistry | None = None,
    on_retry: RetryHook | None = None,
) -> tuple[list[StagedCharacter], list[CallRecord]]:
    """The files of the characters a plan needs (see the module rules); raises PlanRejected."""
    if not wanted:
        return [], []
    registry = registry or project_registry(project.root)
    current = weaver_request(project, settings, wanted, registry=registry)
    calls: list[CallRecord] = []
    errors: list[str] = []
    for attempt in range(MAX_REPAIRS + 1):
        stage = WEAVE_STAGE if attempt == 0 else WEAVE_REPAIR_STAGE
        result, record = await priced_call(provider, settings, current, stage, on_retry)
        calls.append(record)
        staged, errors = _check(result.text, wanted, project)
        if staged is not None:
            return staged, calls
        if attempt < MAX_REPAIRS:
            current = repair_request(current, result.text, errors, registry)
    raise PlanRejected(
        f"新角色经过 {MAX_REPAIRS} 轮修正仍有错误，未暂存任何内容：\n" + "\n".join(f"- {e}" for e in errors),
        errors=errors,
        calls=calls,
    )
