"""The CLI says what happened and exits accordingly (issue 11 items 13, 14, 15 CLI side, 17).

Stage errors read as errors with exit 1, a stale lock without a terminal says how to take over, a full disk
names a path, `--json` keeps stdout JSON (results and errors), `--offline` is one common flag, retries say
what they wait for, and no API key is ever printed.
"""

from __future__ import annotations

import argparse
import errno
import json
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.providers.anthropic_provider import AnthropicProvider, ProviderConfig
from pipeline.providers.base import (
    ModelRequest,
    ProviderConnectionError,
    UnusableApiKeyError,
    UserBlock,
    user_message,
)
from pipeline.providers.factory import build_provider, is_offline
from pipeline.providers.redact import redact, redact_url
from studio.cli import continue_cmd
from studio.cli import main as cli_main
from studio.cli.common import ExitCode
from studio.cli.main import main
from studio.config import load_settings
from studio.errors import FormatError
from studio.fileio import atomic_write_json
from studio.init_project import init_project
from studio.lock import ProjectLock
from studio.models.checkpoint import Checkpoint
from studio.models.lock_info import LockInfo, now_local
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from tests.fake_agents import FakeAgents
from tests.fakeapi import FakeMessagesAPI, Reply

SECRET = "sk-ant-api03-Zq8xSECRETvalue0123456789"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ANTHROPIC_API_KEY", "NOVEL_STUDIO_API_KEY_ENV", "NOVEL_STUDIO_PROVIDER", "NOVEL_STUDIO_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NOVEL_STUDIO_SETTINGS", str(tmp_path / "no-user-settings.toml"))


def use_fake(monkeypatch: pytest.MonkeyPatch, **kwargs: object) -> list[tuple[FakeAgents, bool]]:
    made: list[tuple[FakeAgents, bool]] = []

    def factory(root: Path, settings: object, offline: bool) -> FakeAgents:
        agents = FakeAgents(ProjectPaths(root), **kwargs)  # type: ignore[arg-type]
        made.append((agents, offline))
        return agents

    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", factory)
    return made


# ----------------------------------------------------------------------------------------------- item 15


def test_stage_error_reads_as_an_error_and_exits_1(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    use_fake(monkeypatch, fail={"judge": 1})
    assert main(["continue", "--project", str(root), "--yes"]) == ExitCode.ERROR
    out = capsys.readouterr().out
    assert "出错" in out and "fake judge failure" in out
    assert "已暂停" not in out  # exit 1 is an error, not a pause (exit 3)
    assert out.count("fake judge failure") == 1


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_lock_without_terminal_says_how_to_take_over(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    use_fake(monkeypatch)
    paths = ProjectPaths(root)
    paths.lock_dir.mkdir(exist_ok=True)
    moment = now_local()
    info = LockInfo(pid=dead_pid(), host=socket.gethostname(), started=moment, heartbeat=moment, chapter=3)
    atomic_write_json(paths.lock_info, info.to_data())
    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)
    assert main(["continue", "--project", str(root)]) == ExitCode.PAUSED
    err = capsys.readouterr().err
    assert "锁" in err and "--yes" in err
    assert main(["continue", "--project", str(root), "--yes"]) == ExitCode.OK  # the way out it named works
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 3
    assert ProjectLock(paths).status().state.name == "FREE"


def test_disk_full_without_a_file_name_names_the_project(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(args: argparse.Namespace) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")  # what a failed write() raises: no filename

    monkeypatch.setattr(continue_cmd, "run", full)
    assert main(["continue", "--project", str(root)]) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert "磁盘空间不足" in err and str(root) in err and "写入  失败" not in err


def test_continue_json_prints_json_lines_and_a_report(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    use_fake(monkeypatch, fail={"judge": 1})
    assert main(["continue", "--project", str(root), "--yes", "--json"]) == ExitCode.ERROR
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    events = [line["event"] for line in lines]
    assert events[0] == "estimate" and events[-1] == "result" and "stage_error" in events
    assert lines[-1]["exit_code"] == 1 and "fake judge failure" in lines[-1]["error"]
    assert main(["continue", "--project", str(root), "--yes", "--json"]) == ExitCode.OK
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert last["committed"] == [3] and last["chapters"][0]["chapter"] == 3


def test_status_json_errors_are_json_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere"
    assert main(["status", "--project", str(missing), "--json"]) == ExitCode.ERROR
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert str(missing) in data["error"] and data["exit_code"] == 1 and captured.err == ""
    broken = init_project(tmp_path / "broken", sample=True)
    (broken / ".checkpoint.json").write_text("{not json", encoding="utf-8")
    code = main(["status", "--project", str(broken), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == data["exit_code"] == 1 and ".checkpoint.json" in data["error"]


# ----------------------------------------------------------------------------------------------- item 14


@pytest.mark.parametrize("argv", [["--offline", "continue"], ["continue", "--offline"]])
def test_offline_is_a_common_flag(root: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    made = use_fake(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-would-spend-money-0123456789")
    assert main([*argv, "--project", str(root), "--yes"]) == ExitCode.OK
    assert made[0][1] is True  # never overwritten by the subcommand's default


def test_offline_preset_builds_the_offline_provider_everywhere(root: Path) -> None:
    (root / "novel-studio.toml").write_text('[provider]\npreset = "offline"\n', encoding="utf-8")
    settings = load_settings(root, env={})
    assert is_offline(settings)
    provider = build_provider(settings, root, env={})
    assert provider.offline and provider.name == "offline"
    assert main(["continue", "--project", str(root), "--yes"]) == ExitCode.OK  # no key needed, no crash
    assert Checkpoint.load(ProjectPaths(root).checkpoint).last_completed_chapter == 3


def test_minimax_is_one_preset_for_settings_and_provider(root: Path) -> None:
    (root / "novel-studio.toml").write_text('[provider]\npreset = "minimax"\n', encoding="utf-8")
    settings = load_settings(root, env={})
    provider = build_provider(settings, root, env={})
    assert settings.provider.base_url == "https://api.minimax.io/anthropic"
    assert provider.inner.config.base_url == settings.provider.base_url  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------------------------- item 13


def test_a_key_in_api_key_env_is_refused_without_echoing_it(root: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for value in (SECRET, "Zq8xSECRETvalue0123456789abc"):
        with pytest.raises(FormatError) as info:
            load_settings(root, env={"NOVEL_STUDIO_API_KEY_ENV": value})
        assert value not in str(info.value) and "API key" in str(info.value)
    monkeypatch.setenv("NOVEL_STUDIO_API_KEY_ENV", SECRET)
    assert main(["continue", "--project", str(root), "--yes"]) == ExitCode.ERROR
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err and "NAME" in captured.err


async def test_a_key_with_a_line_break_is_never_printed() -> None:
    key = "sk-test-0123456789\nabcdefghij"
    with FakeMessagesAPI() as api:
        api.script(Reply("好"))
        provider = AnthropicProvider(ProviderConfig(base_url=api.base_url, env={"ANTHROPIC_API_KEY": key},
                                                    max_retries=0))
        request = ModelRequest(agent="a", model="m", system=[], messages=[user_message([UserBlock("x")])],
                               max_tokens=10)
        with pytest.raises(UnusableApiKeyError) as info:
            await provider.run(request)
        await provider.aclose()
    assert "0123456789" not in str(info.value) and "abcdefghij" not in str(info.value)
    assert "line break" in str(info.value) and "ANTHROPIC_API_KEY" in str(info.value)


def test_redact_catches_escaped_forms() -> None:
    key = "sk-test-0123456789\nabcdefghij"
    assert "0123456789" not in redact(f"Illegal header value b{key.encode()!r}", key)
    assert redact_url("https://bob:pa55word@proxy.example/anthropic?api_key=zzz&v=1") == (
        "https://***@proxy.example/anthropic?api_key=***&v=1"
    )
    assert redact_url("https://api.deepseek.com/anthropic") == "https://api.deepseek.com/anthropic"


async def test_base_url_credentials_are_redacted_in_errors() -> None:
    with socket.socket() as sock:  # a port nobody listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://bob:pa55word@127.0.0.1:{port}"
    provider = AnthropicProvider(ProviderConfig(base_url=url, env={"ANTHROPIC_API_KEY": "sk-test-0123456789"},
                                                max_retries=0, connect_timeout_s=2))
    request = ModelRequest(agent="a", model="m", system=[], messages=[user_message([UserBlock("x")])], max_tokens=10)
    with pytest.raises(ProviderConnectionError) as info:
        await provider.run(request)
    await provider.aclose()
    assert "pa55word" not in str(info.value) and "127.0.0.1" in str(info.value)


# ----------------------------------------------------------------------------------------------- item 17


async def test_retry_waits_are_told_with_the_servers_wait() -> None:
    from pipeline.providers.retry import run_with_stage_retry, stage_wait_s

    with FakeMessagesAPI() as api:
        api.script(Reply.rate_limited(retry_after_s=66), Reply("好的"))
        provider = AnthropicProvider(ProviderConfig(base_url=api.base_url, env={"ANTHROPIC_API_KEY": "k-123"},
                                                    max_retries=0))
        request = ModelRequest(agent="a", model="m", system=[], messages=[user_message([UserBlock("x")])],
                               max_tokens=10)
        told: list[float] = []
        slept: list[float] = []

        async def sleep(seconds: float) -> None:
            slept.append(seconds)

        result = await run_with_stage_retry(lambda: provider.run(request), wait_s=30.0, sleep=sleep,
                                            on_retry=lambda attempt, error: told.append(stage_wait_s(error, 30.0)))
        await provider.aclose()
    assert result.text == "好的" and told == slept == [66.0]


def test_cli_prints_what_it_waits_for(root: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.providers.base import RateLimitedError

    seen: list[Callable[..., None]] = []
    real = continue_cmd.default_agents

    def capture(root: Path, settings: Settings, offline: bool, on_retry: Callable[..., None] | None = None,
                on_sdk_retry: Callable[..., None] | None = None) -> object:
        assert on_retry is not None and on_sdk_retry is not None
        seen.append(on_retry)
        on_retry("draft", 1, RateLimitedError("Rate limited", status_code=429, retry_after_s=66.0))
        return real(root, settings, True, on_retry, on_sdk_retry)

    monkeypatch.setattr(continue_cmd, "default_agents", capture)
    assert main(["continue", "--project", str(root), "--offline", "--yes"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert seen and "等待 66 秒" in out and "起草" in out  # the stage by its Chinese name
    assert cli_main  # the entry point under test


# ----------------------------------------------------------------------------------------------- item 11 (rebuild)


def test_offline_rebuild_asks_before_replacing_real_model_facts(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use_fake(monkeypatch)  # calls not marked offline: what a real model's chapter log looks like
    assert main(["continue", "--project", str(root), "--yes"]) == ExitCode.OK
    paths = ProjectPaths(root)
    summary = paths.summary(3).read_text(encoding="utf-8")
    state = paths.current_state.read_text(encoding="utf-8")
    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", None)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)
    capsys.readouterr()
    assert main(["rebuild", "3", "--project", str(root), "--offline"]) == ExitCode.PAUSED
    assert "真实模型" in capsys.readouterr().err
    assert paths.summary(3).read_text(encoding="utf-8") == summary  # nothing overwritten
    assert paths.current_state.read_text(encoding="utf-8") == state


async def test_the_sdks_own_retry_waits_are_told_with_stage_and_chapter() -> None:
    from dataclasses import replace

    from pipeline.providers.base import SdkRetryWait
    from studio.cli.continue_cmd import EventPrinter, sdk_retry_event

    told: list[SdkRetryWait] = []
    with FakeMessagesAPI() as api:
        api.script(Reply.rate_limited(retry_after_s=0.05), Reply("好的"))
        provider = AnthropicProvider(ProviderConfig(base_url=api.base_url, env={"ANTHROPIC_API_KEY": "k-123"},
                                                    max_retries=1), on_sdk_retry=told.append)
        request = ModelRequest(agent="a", model="m", system=[], messages=[user_message([UserBlock("x")])],
                               max_tokens=10)
        result = await provider.run(replace(request, stage="draft", chapter=7))
        await provider.aclose()
    assert result.text == "好的" and len(api.requests) == 2
    [wait] = told
    assert (wait.wait_s, wait.attempt, wait.status_code, wait.stage, wait.chapter) == (0.05, 1, 429, "draft", 7)
    lines: list[str] = []
    EventPrinter("zh", lines.append)(sdk_retry_event(wait))
    assert lines == ["起草 第 1 次重试前等待 0.1 秒（HTTP 429）"]


def test_a_sigint_after_the_studio_quit_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Once the app has quit, the interpreter waits for worker threads; a late SIGINT there raised
    KeyboardInterrupt inside threading's shutdown and printed a traceback (seen when `serve` ended a closed tab's
    session on a loaded machine). After the app returns, SIGINT is ignored."""
    import signal

    import studio.tui.app as tui_app
    from studio.cli.main import launch_studio

    class QuitAtOnce:
        return_code = 0
        open_error = None

        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def run(self) -> None:
            assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN

    monkeypatch.setattr(tui_app, "NovelStudioApp", QuitAtOnce)
    monkeypatch.setattr("studio.cli.main.terminal_refusal", lambda lang: None)  # the suite's stdin gives no keys
    # A suite started as a background job inherits SIGINT ignored: start from the handler a terminal gives.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    assert launch_studio(tmp_path, lang="zh", offline=True) == 0
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # conftest's `_sigint_restored` puts it back


def test_a_held_lock_is_reported_in_the_ui_language(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """issue 12 item 4: the lock error of a command that writes was English in the Chinese CLI."""
    holder = ProjectLock(ProjectPaths(root), heartbeat_interval=0)
    holder.acquire()
    try:
        assert main(["undo", "--project", str(root), "--yes"]) == ExitCode.LOCKED
        zh = capsys.readouterr().err
        assert main(["undo", "--project", str(root), "--yes", "--lang", "en"]) == ExitCode.LOCKED
        en = capsys.readouterr().err
    finally:
        holder.release()
    assert zh.startswith(f"错误：{root}：项目正被另一进程使用") and "in use" not in zh and "heartbeat" not in zh, zh
    assert re.search(r"开始于 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d，", zh), zh  # local clock time, not ISO with offset
    assert en.startswith(f"Error: {root}: the project is in use by pid"), en
