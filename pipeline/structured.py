"""Validate -> Repair -> Re-run (seed 004): a JSON reply that fails validation is sent back, at most twice.

The conversation continues: the original user turn, the model's bad reply as the assistant turn, then a user
turn with the rendered `repair` template listing the errors. After `max_repairs` failed repairs a
`StructuredReplyError` is raised (the run pauses upstream). Nothing here fills in a guessed value.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from pipeline.agents.protocol import CallRecord
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest, ModelResult, Provider, UserBlock, user_message
from pipeline.replies import JsonExtractError, extract_json
from studio.errors import StudioError

M = TypeVar("M", bound=BaseModel)

# (request, stage) -> the result and its call record; the runner's version adds stage retries and cost.
Invoke = Callable[[ModelRequest, str], Awaitable[tuple[ModelResult, CallRecord]]]

DEFAULT_MAX_REPAIRS = 2
REPAIR_STAGE = "repair"
REPAIR_PROMPT_ID = "repair"


class StructuredReplyError(StudioError):
    """The model's reply still failed validation after the repair rounds."""

    def __init__(self, message: str, *, errors: list[str], last_text: str, calls: list[CallRecord]) -> None:
        super().__init__(message)
        self.errors = errors
        self.last_text = last_text
        self.calls = calls


@dataclass
class StructuredResult(Generic[M]):
    value: M
    text: str  # the raw reply that validated
    request: ModelRequest  # the request that produced it (the conversation so far)
    calls: list[CallRecord] = field(default_factory=list)


def validation_errors(exc: ValidationError) -> list[str]:
    """One line per error, `$.path: message`, as sent back to the model."""
    lines: list[str] = []
    for err in exc.errors():
        loc = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
        msg = err["msg"]
        got = err.get("input")
        if err["type"] == "string_too_long" and isinstance(got, str):
            msg += f"（当前 {len(got)} 字）"
        lines.append(f"{loc}: {msg}")
    return lines


def parse_reply(text: str, model_cls: type[M]) -> tuple[M | None, list[str]]:
    """The validated reply, or None and the error lines."""
    try:
        data = extract_json(text)
    except JsonExtractError as exc:
        return None, [str(exc)]
    if not isinstance(data, dict):
        return None, [f"$: 应为一个 JSON 对象，实际是 {type(data).__name__}"]
    try:
        return model_cls.model_validate(data), []
    except ValidationError as exc:
        return None, validation_errors(exc)


def repair_request(
    request: ModelRequest, bad_text: str, errors: list[str], registry: PromptRegistry
) -> ModelRequest:
    """`request` continued by the bad reply (assistant turn) and the rendered repair prompt (user turn)."""
    template = registry.get(REPAIR_PROMPT_ID)
    text = template.render_text({"errors": "\n".join(f"- {e}" for e in errors)})
    messages: list[dict[str, Any]] = [
        *request.messages,
        {"role": "assistant", "content": [{"type": "text", "text": bad_text.strip() or "（空回复）"}]},
        user_message([UserBlock(text)]),
    ]
    repairs = int(request.context.get("repair", 0)) + 1
    return replace(
        request,
        messages=messages,
        prompt_id=template.id,
        prompt_version=str(template.version),
        context={**request.context, "repair": repairs},
    )


def direct_invoke(provider: Provider) -> Invoke:
    """An Invoke without retries or prices: one provider call, one CallRecord."""

    async def invoke(request: ModelRequest, stage: str) -> tuple[ModelResult, CallRecord]:
        started = time.monotonic()
        result = await provider.run(request)
        record = CallRecord(
            stage=stage,
            model=result.model,
            duration_ms=result.duration_ms or int((time.monotonic() - started) * 1000),
            usage=result.usage,
            cost_usd=None,
            prompt_id=request.prompt_id,
            prompt_version=request.prompt_version,
            ttft_ms=result.ttft_ms,
            offline=bool(getattr(provider, "offline", False)),
        )
        return result, record

    return invoke


async def run_structured(
    provider: Provider,
    request: ModelRequest,
    model_cls: type[M],
    *,
    registry: PromptRegistry,
    max_repairs: int = DEFAULT_MAX_REPAIRS,
    stage: str = "json",
    invoke: Invoke | None = None,
) -> StructuredResult[M]:
    """Call, validate, repair up to `max_repairs` times; the validated reply with every call made."""
    call = invoke or direct_invoke(provider)
    calls: list[CallRecord] = []
    current = request
    errors: list[str] = []
    text = ""
    for attempt in range(max_repairs + 1):
        result, record = await call(current, stage if attempt == 0 else REPAIR_STAGE)
        calls.append(record)
        text = result.text
        value, errors = parse_reply(text, model_cls)
        if value is not None:
            return StructuredResult(value=value, text=text, request=current, calls=calls)
        if attempt < max_repairs:
            current = repair_request(current, text, errors, registry)
    raise StructuredReplyError(
        f"The {request.agent} reply is still invalid after {max_repairs} repair round(s): " + "; ".join(errors),
        errors=errors,
        last_text=text,
        calls=calls,
    )


async def call_structured(
    provider: Provider,
    request: ModelRequest,
    model_cls: type[M],
    *,
    registry: PromptRegistry,
    max_repairs: int = DEFAULT_MAX_REPAIRS,
    stage: str = "json",
    invoke: Invoke | None = None,
) -> tuple[M, list[CallRecord]]:
    """`run_structured`, returning just the parsed reply and the call records."""
    result = await run_structured(
        provider, request, model_cls, registry=registry, max_repairs=max_repairs, stage=stage, invoke=invoke
    )
    return result.value, result.calls
