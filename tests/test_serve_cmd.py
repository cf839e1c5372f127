"""`novel-studio serve`: the install hint without textual-serve, and the command handed to its Server
(Server is replaced by a recorder: no network, no port opened)."""

from __future__ import annotations

import builtins
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from studio.cli import serve_cmd
from studio.cli.main import COMMAND_MODULES, main
from studio.init_project import init_project


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return root


class RecordingServer:
    instances: list[RecordingServer] = []

    def __init__(self, command: str, **kwargs: Any) -> None:
        self.command = command
        self.kwargs = kwargs
        self.served = False
        RecordingServer.instances.append(self)

    def serve(self, debug: bool = False) -> None:
        self.served = True


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> type[RecordingServer]:
    RecordingServer.instances = []
    monkeypatch.setattr(serve_cmd, "_load_server", lambda: RecordingServer)
    monkeypatch.setattr(serve_cmd, "port_problem", lambda host, port: None)  # no port is opened by these tests
    return RecordingServer


def test_registered() -> None:
    assert "studio.cli.serve_cmd" in COMMAND_MODULES


def test_not_installed_says_how_to_install(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_import = builtins.__import__

    def no_textual_serve(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "textual_serve" or name.startswith("textual_serve."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setitem(sys.modules, "textual_serve", None)
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    monkeypatch.setattr(builtins, "__import__", no_textual_serve)
    assert serve_cmd._load_server() is None
    code = main(["serve", "--project", str(sample)])
    assert code == 1
    err = capsys.readouterr().err
    assert "pip install 'novel-studio[serve]'" in err
    assert "textual-serve" in err


def test_not_installed_english(sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(serve_cmd, "_load_server", lambda: None)
    assert main(["--lang", "en", "serve", "--project", str(sample)]) == 1
    err = capsys.readouterr().err
    assert "Install it with: pip install 'novel-studio[serve]'" in err


def test_builds_the_studio_command(sample: Path, recorder: type[RecordingServer], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["serve", "--project", str(sample), "--offline"])
    assert code == 0
    (server,) = recorder.instances
    assert server.served
    assert server.kwargs["host"] == "127.0.0.1" and server.kwargs["port"] == 8000
    argv = shlex.split(server.command)
    assert argv[:3] == [sys.executable, "-m", "studio.cli.serve_exit"]
    assert argv[argv.index("--project") + 1] == str(sample.resolve())
    assert "--offline" in argv
    assert argv[argv.index("--lang") + 1] == "zh"
    assert "http://127.0.0.1:8000" in capsys.readouterr().out


def test_host_port_and_online(sample: Path, recorder: type[RecordingServer]) -> None:
    code = main(["serve", "--project", str(sample), "--host", "0.0.0.0", "--port", "8123", "--lang", "en"])
    assert code == 0
    (server,) = recorder.instances
    assert server.kwargs["host"] == "0.0.0.0" and server.kwargs["port"] == 8123
    argv = shlex.split(server.command)
    assert "--offline" not in argv
    assert argv[argv.index("--lang") + 1] == "en"


def test_top_level_offline_flag_is_kept(sample: Path, recorder: type[RecordingServer]) -> None:
    assert main(["--offline", "serve", "--project", str(sample)]) == 0
    assert "--offline" in shlex.split(recorder.instances[0].command)


def test_project_with_spaces_is_quoted(tmp_path: Path, recorder: type[RecordingServer]) -> None:
    root = tmp_path / "我的 小说"
    init_project(root, sample=True)
    assert main(["serve", "--project", str(root)]) == 0
    argv = shlex.split(recorder.instances[0].command)
    assert argv[argv.index("--project") + 1] == str(root.resolve())


def test_not_a_project_fails_before_serving(tmp_path: Path, recorder: type[RecordingServer]) -> None:
    assert main(["serve", "--project", str(tmp_path)]) == 1
    assert recorder.instances == []


def test_the_command_opens_the_studio(sample: Path) -> None:
    """The command line parses back to the studio (no subcommand) on the same project and flags."""
    from studio.cli.main import build_parser

    argv = shlex.split(serve_cmd.studio_command(sample, offline=True, lang="zh"))
    args = build_parser("zh").parse_args(argv[3:])
    assert getattr(args, "func", None) is None  # no subcommand: main() opens the studio
    assert args.project == sample.resolve() and args.offline and args.lang == "zh"


@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_invalid_port_is_a_usage_error(sample: Path, recorder: type[RecordingServer], port: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--project", str(sample), "--port", port]) == 2
    assert "1 到 65535" in capsys.readouterr().err
    assert recorder.instances == []


def test_busy_port_is_said_before_the_url(sample: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    monkeypatch.setattr(serve_cmd, "_load_server", lambda: RecordingServer)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))  # an ephemeral port, listening: busy for anyone else
        taken.listen(1)
        port = taken.getsockname()[1]
        assert serve_cmd.port_problem("127.0.0.1", port) is not None
        RecordingServer.instances = []
        assert main(["serve", "--project", str(sample), "--port", str(port)]) == 1
    captured = capsys.readouterr()
    assert f"127.0.0.1:{port}" in captured.err and "--port" in captured.err
    assert "http://" not in captured.out  # no "open this URL" line for a server that cannot start
    assert RecordingServer.instances == []


def test_public_url_for_ssh_forwards_and_every_address(sample: Path, recorder: type[RecordingServer],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--project", str(sample), "--public-url", "http://localhost:9000/"]) == 0
    assert recorder.instances[-1].kwargs["public_url"] == "http://localhost:9000"
    assert "http://localhost:9000" in capsys.readouterr().out
    capsys.readouterr()
    assert main(["serve", "--project", str(sample), "--host", "0.0.0.0", "--port", "8123"]) == 0
    assert recorder.instances[-1].kwargs["public_url"] is None  # the page's addresses stay relative
    printed = capsys.readouterr().out
    assert ":8123" in printed and "0.0.0.0" not in printed  # a browser cannot open 0.0.0.0
    assert main(["serve", "--project", str(sample)]) == 0
    assert recorder.instances[-1].kwargs["public_url"] is None
    assert "http://127.0.0.1:8000" in capsys.readouterr().out
    assert main(["serve", "--project", str(sample), "--public-url", "localhost:9000"]) == 2


def test_sessions_know_they_run_in_a_browser(sample: Path, recorder: type[RecordingServer],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(serve_cmd.SERVED_ENV, raising=False)
    assert main(["serve", "--project", str(sample)]) == 0
    assert os.environ.get(serve_cmd.SERVED_ENV) == "1"
    monkeypatch.delenv(serve_cmd.SERVED_ENV)
