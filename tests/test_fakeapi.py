"""The loopback fake itself: non-stream replies, routing by agent, unknown paths, empty script."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.fakeapi import FakeMessagesAPI, Reply


def post(api: FakeMessagesAPI, body: dict[str, Any], path: str = "/v1/messages") -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(api.base_url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(autouse=True)
def _no_env_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def test_non_stream_reply_and_recording() -> None:
    with FakeMessagesAPI() as api:
        api.script(Reply("你好", usage={"input_tokens": 3, "output_tokens": 2}))
        status, body = post(api, {"model": "m", "max_tokens": 5, "messages": []})
        assert status == 200
        assert body["content"] == [{"type": "text", "text": "你好"}]
        assert body["stop_reason"] == "end_turn" and body["usage"]["input_tokens"] == 3
        assert api.requests[0].body["model"] == "m"


def test_agent_queues_and_empty_script() -> None:
    with FakeMessagesAPI(agent_of=lambda body: body.get("metadata", {}).get("agent")) as api:
        api.script(Reply("writer"), agent="chapter_writer")
        api.script(Reply("judge"), agent="quality_judge")
        _, judge = post(api, {"model": "m", "metadata": {"agent": "quality_judge"}})
        _, writer = post(api, {"model": "m", "metadata": {"agent": "chapter_writer"}})
        assert judge["content"][0]["text"] == "judge" and writer["content"][0]["text"] == "writer"
        status, error = post(api, {"model": "m", "metadata": {"agent": "chapter_writer"}})
        assert status == 400 and "no scripted reply" in error["error"]["message"]


def test_responder_and_unknown_path() -> None:
    with FakeMessagesAPI(responder=lambda body: Reply(body["model"].upper())) as api:
        _, body = post(api, {"model": "abc"})
        assert body["content"][0]["text"] == "ABC"
        status, _ = post(api, {}, path="/v1/other")
        assert status == 404


def test_pieces() -> None:
    assert Reply("abcdefg", chunks=3).pieces() == ["abc", "de", "fg"]
    assert Reply("abcdefg", chunk_size=3).pieces() == ["abc", "def", "g"]
    assert Reply("").pieces() == []
