"""CharacterWeaver in tool mode (seed 000 §5.2; issue 7 item 6): `character add NAME` and
`character update SLUG --note TEXT` ask the model for one character's profile and L2 contracts.

Rules:
- The request is the `character-weaver` prompt (`pipeline.planning.prompt_context.character_weaver_context`)
  in 新增 or 更新 mode, with the author's request in Chinese. Its `context` carries a `tool` entry (mode, name,
  role, brief or the character being updated) so the offline provider can answer this exact request.
- The reply is parsed into `studio.tools.replies.WeaverToolReply` and checked against the request (add: the
  display name asked for, an id no other character has; update: the same id and display name). A reply that
  fails goes back to the model with the error lines (`repair` prompt), at most `MAX_REPAIRS` times; then
  `StructuredReplyError` and nothing is written.
- Every call goes through the given provider (the one `build_provider` builds books it in the spend ledger),
  with the stage retries of the writing loop. `estimate_weaver_cost` is the upper bound of one call before it
  is made (estimated input, the whole output budget; zero offline).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pipeline.agents.protocol import CallRecord
from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import request_text
from pipeline.context import render_bundle
from pipeline.planning.prompt_context import character_weaver_context
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.base import ModelRequest, ModelResult, Provider, Usage
from pipeline.providers.cost import cost_usd, price_for, settings_prices
from pipeline.providers.retry import run_with_stage_retry
from pipeline.structured import StructuredReplyError, parse_reply, repair_request
from pipeline.tokens import estimate_tokens
from studio.models.character import CharacterFile
from studio.models.settings import Settings
from studio.project import Project
from studio.tools.replies import WeaverToolReply

__all__ = [
    "MAX_REPAIRS",
    "WeaverOutcome",
    "estimate_weaver_cost",
    "request_key",
    "weave_character",
    "weaver_request",
]

AGENT = "character_weaver"
STAGE = "character"
REPAIR_STAGE = "character-repair"
MAX_REPAIRS = 2

Mode = Literal["add", "update"]


@dataclass
class WeaverOutcome:
    reply: WeaverToolReply
    calls: list[CallRecord] = field(default_factory=list)
    text: str = ""  # the reply as the model wrote it (kept when the command pauses)
    reused: bool = False  # from a paused run's kept reply: no call made

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls), 6)


def _request_text(mode: Mode, name: str, role: str, brief: str, current: CharacterFile | None, note: str) -> str:
    if mode == "add":
        lines = [f"新增一个角色，中文名必须是“{name}”。"]
        if role:
            lines.append(f"角色定位：{role}")
        if brief:
            lines.append(f"作者的设定：{brief}")
        lines.append("只输出这一个角色（characters 里只有一项），relationships 只写这个角色与已有角色的关系。")
        return "\n".join(lines)
    assert current is not None
    return "\n".join([
        f"更新已有角色“{current.display_name}”（id：{current.id}），id 与 display_name 保持不变。",
        f"作者的修改要求：{note}",
        "只输出这一个角色；已有契约沿用原编号，修改的契约给出完整新内容，新增契约顺延编号；"
        "relationships 只写与这个角色有关的变化。",
    ])


def weaver_request(
    project: Project,
    settings: Settings,
    mode: Mode,
    *,
    name: str = "",
    role: str = "",
    brief: str = "",
    slug: str | None = None,
    note: str = "",
    registry: PromptRegistry | None = None,
) -> ModelRequest:
    """The CharacterWeaver request of one tool command (what is estimated, then sent)."""
    registry = registry or project_registry(project.root)
    current = project.characters.get(slug) if slug else None
    if current is not None and current.id is None:
        current = current.model_copy(update={"id": slug})
    text = _request_text(mode, name, role, brief, current, note)
    base = character_weaver_context(project, request=text, registry=registry)
    tool: dict[str, Any] = {"mode": mode, "name": name or (current.display_name if current else ""), "role": role,
                            "brief": brief, "note": note}
    if current is not None:
        tool.update(id=slug, contract_ids=[c.id for c in current.contracts], aliases=current.aliases)
    bundle = render_bundle(base.agent, base.prompt_id, {**base.variables, "mode": "新增" if mode == "add" else "更新"},
                           {**base.data, "tool": tool}, registry)
    request = AgentRequests(project, settings, registry).build(bundle, AGENT)
    return replace(request, stage=STAGE)


def request_key(request: ModelRequest) -> dict[str, Any]:
    """The parts of a request that are sent (for `studio.tools.reply_cache.reply_key`)."""
    return {"model": request.model, "system": [b.text for b in request.system], "messages": request.messages}


def estimate_weaver_cost(request: ModelRequest, settings: Settings, *, offline: bool) -> float:
    if offline:
        return 0.0
    usage = Usage(input_tokens=estimate_tokens(request_text(request)), output_tokens=request.max_tokens)
    return round(cost_usd(usage, price_for(request.model, settings_prices(settings))) or 0.0, 4)


def _check(reply: WeaverToolReply, project: Project, mode: Mode, name: str, slug: str | None) -> list[str]:
    person = reply.characters[0]
    errors: list[str] = []
    known = set(project.characters)
    if mode == "add":
        if person.display_name != name:
            errors.append(f"$.characters[0].display_name: 应为“{name}”，实际是“{person.display_name}”")
        if person.id in known:
            errors.append(f"$.characters[0].id: {person.id!r} 已被其他角色使用，请换一个 id")
        me = person.id
    else:
        current = project.characters[slug or ""]
        if person.id != slug:
            errors.append(f"$.characters[0].id: 应为 {slug!r}（不能改 id）")
        if person.display_name != current.display_name:
            errors.append(f"$.characters[0].display_name: 应为“{current.display_name}”（改名不在这里做）")
        me = slug or person.id
    for i, rel in enumerate(reply.relationships):
        other = rel.to if rel.from_ == me else rel.from_
        if other not in known:
            errors.append(f"$.relationships[{i}]: {other!r} 不是已有角色的 id（已有：{', '.join(sorted(known))}）")
    return errors


async def weave_character(
    project: Project,
    settings: Settings,
    provider: Provider,
    request: ModelRequest,
    *,
    registry: PromptRegistry | None = None,
    kept_text: str | None = None,
) -> WeaverOutcome:
    """Send `request` (from `weaver_request`), check, repair at most twice; raises StructuredReplyError or a
    ProviderError. `kept_text`: a paused run's reply to the same request, used when it still checks out."""
    registry = registry or project_registry(project.root)
    tool = request.context.get("tool", {})
    mode: Mode = "update" if tool.get("mode") == "update" else "add"
    name, slug = str(tool.get("name", "")), tool.get("id")
    if kept_text is not None:
        kept, _ = parse_reply(kept_text, WeaverToolReply)
        if kept is not None and not _check(kept, project, mode, name, slug):
            return WeaverOutcome(kept, [], kept_text, reused=True)
    prices = settings_prices(settings)
    calls: list[CallRecord] = []
    current = request
    errors: list[str] = []
    text = ""
    for attempt in range(MAX_REPAIRS + 1):
        sent = replace(current, stage=STAGE if attempt == 0 else REPAIR_STAGE)
        started = time.monotonic()

        def call(sent: ModelRequest = sent) -> Awaitable[ModelResult]:
            return provider.run(sent)

        result = await run_with_stage_retry(
            call, retries=settings.provider.stage_retries, wait_s=settings.provider.stage_retry_wait_s
        )
        calls.append(CallRecord(
            stage=sent.stage or STAGE,
            model=result.model,
            duration_ms=result.duration_ms or int((time.monotonic() - started) * 1000),
            usage=result.usage,
            cost_usd=cost_usd(result.usage, price_for(result.model, prices)) if result.usage else None,
            prompt_id=current.prompt_id,
            prompt_version=current.prompt_version,
            estimated_prompt_tokens=estimate_tokens(request_text(current)),
            offline=bool(getattr(provider, "offline", False)),
        ))
        text = result.text
        reply, errors = parse_reply(text, WeaverToolReply)
        if reply is not None:
            errors = _check(reply, project, mode, name, slug)
            if not errors:
                return WeaverOutcome(reply, calls, text)
        if attempt < MAX_REPAIRS:
            current = repair_request(current, text, errors, registry)
    raise StructuredReplyError(
        f"模型写的角色卡经过 {MAX_REPAIRS} 轮修正仍不合格，未写入任何内容：\n" + "\n".join(f"- {e}" for e in errors),
        errors=errors,
        last_text=text,
        calls=calls,
    )
