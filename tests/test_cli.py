"""The CLI shell: exit statuses, error reporting, --json, --lang, shared flags, lazy command modules."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from studio.cli import common
from studio.cli import main as cli_main
from studio.cli.common import ExitCode, PausedForAuthor, ask_or_pause, emit, require_project, resolve_lang
from studio.cli.main import main
from studio.errors import FormatError, Problem, StudioError

ROOT = Path(__file__).resolve().parents[1]
FAKE = "tests_fake_cmd"


@pytest.fixture
def fake_command(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[argparse.Namespace], int]], None]:
    """Install a `fake` subcommand whose run() is the given function."""

    def install(behaviour: Callable[[argparse.Namespace], int]) -> None:
        module = types.ModuleType(FAKE)

        def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
            parser = subparsers.add_parser("fake")
            parser.set_defaults(func=behaviour)

        module.register = register  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, FAKE, module)
        if FAKE not in cli_main.COMMAND_MODULES:
            monkeypatch.setattr(cli_main, "COMMAND_MODULES", [*cli_main.COMMAND_MODULES, FAKE])

    return install


def test_no_subcommand_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "用法：novel-studio" in out and "init" in out  # Chinese by default, argparse's words too


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "--project" in capsys.readouterr().out


def test_help_follows_lang(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--lang", "en", "--help"])
    assert "project folder" in capsys.readouterr().out
    main(["--help"])
    assert "项目文件夹" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--bogus"], ["nosuchcommand"], ["init", "--lang", "fr"]])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == ExitCode.USAGE
    assert "用法：" in capsys.readouterr().err


def test_missing_command_module_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_main, "COMMAND_MODULES", ["studio.cli.init_cmd", "studio.cli.not_written_yet"])
    parser = cli_main.build_parser("zh")
    assert parser.parse_args(["init", "x"]).command == "init"


def test_command_with_missing_dependency_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tests_absent_cmd", None)  # import raises ModuleNotFoundError(name=it)
    assert cli_main._load_command("tests_absent_cmd") is None

    def broken_import(name: str) -> types.ModuleType:
        raise ModuleNotFoundError("No module named 'missing_dependency'", name="missing_dependency")

    monkeypatch.setattr(cli_main.importlib, "import_module", broken_import)
    with pytest.raises(ModuleNotFoundError):
        cli_main._load_command("studio.cli.some_cmd")


def test_common_flags_on_every_subcommand_before_or_after(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None], capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[argparse.Namespace] = []

    def run(args: argparse.Namespace) -> int:
        seen.append(args)
        return 0

    fake_command(run)
    assert main(["--lang", "en", "--json", "fake"]) == 0
    assert main(["fake", "--lang", "en", "--debug", "--project", "/x"]) == 0
    assert main(["fake"]) == 0
    first, second, third = seen
    assert (first.lang, first.json, first.debug) == ("en", True, False)
    assert (second.lang, second.debug, second.project) == ("en", True, Path("/x"))
    assert (third.lang, third.json, third.project) == ("zh", False, None)


def test_unknown_project_is_error_1_without_traceback(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    fake_command(lambda args: (require_project(args), 0)[1])
    assert main(["fake", "--project", str(tmp_path / "nowhere")]) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert err.startswith("错误：") and "Traceback" not in err
    assert main(["fake", "--lang", "en", "--project", str(tmp_path)]) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and "not a novel-studio project" in err and "Traceback" not in err


def test_debug_shows_traceback(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    fake_command(lambda args: (require_project(args), 0)[1])
    assert main(["fake", "--debug", "--project", str(tmp_path / "nowhere")]) == ExitCode.ERROR
    assert "Traceback" in capsys.readouterr().err


def test_unexpected_exception_hint(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None], capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(args: argparse.Namespace) -> int:
        raise RuntimeError("kaput")

    fake_command(boom)
    assert main(["fake"]) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert "kaput" in err and "--debug" in err and "Traceback" not in err
    assert main(["fake", "--debug"]) == ExitCode.ERROR
    assert "Traceback" in capsys.readouterr().err


def test_keyboard_interrupt_exits_130(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None], capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    fake_command(interrupted)
    assert main(["fake"]) == ExitCode.INTERRUPTED == 130
    assert "已中断，进度已保存，可继续" in capsys.readouterr().err
    assert main(["fake", "--lang", "en"]) == 130
    assert "Interrupted; work left resumable" in capsys.readouterr().err


def test_studio_error_exit_codes_and_problem_list(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None], capsys: pytest.CaptureFixture[str]
) -> None:
    def paused(args: argparse.Namespace) -> int:
        raise PausedForAuthor("need an answer")

    fake_command(paused)
    assert main(["fake"]) == ExitCode.PAUSED == 3

    def many(args: argparse.Namespace) -> int:
        raise FormatError(
            [Problem("a.json", "bad one", json_path="$.x"), Problem("b.json", "bad two", line=3)]
        )

    fake_command(many)
    capsys.readouterr()
    assert main(["fake"]) == 1
    err = capsys.readouterr().err
    assert "2 个问题" in err and "a.json [$.x]: bad one" in err and "b.json:3: bad two" in err

    class Locked(StudioError):
        exit_code = 4

    def locked(args: argparse.Namespace) -> int:
        raise Locked("held")

    fake_command(locked)
    assert main(["fake"]) == ExitCode.LOCKED


def test_init_json_output_parses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "书"
    assert main(["init", str(target), "--json", "--title", "剑来"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"project": str(target.resolve()), "sample": False, "title": "剑来"}


def test_init_text_follows_lang(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "a"), "--lang", "en"]) == 0
    assert "Created a novel project" in capsys.readouterr().out
    assert main(["init", str(tmp_path / "b")]) == 0
    assert "已创建小说项目" in capsys.readouterr().out


def test_init_uses_project_flag_when_no_dir(tmp_path: Path) -> None:
    assert main(["init", "--project", str(tmp_path / "p")]) == 0
    assert (tmp_path / "p" / "novel-studio.toml").is_file()


def test_init_refusal_is_error_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "a")]) == 0
    assert main(["init", str(tmp_path / "a")]) == 1
    assert "已经是一个小说项目" in capsys.readouterr().err


def test_resolve_lang_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "novel-studio.toml").write_text('[ui]\nlang = "en"\n', encoding="utf-8")
    args = argparse.Namespace(lang=None, project=tmp_path)
    assert resolve_lang(args) == "en"
    assert resolve_lang(args, env={"NOVEL_STUDIO_LANG": "zh"}) == "zh"
    assert (
        resolve_lang(argparse.Namespace(lang="zh", project=tmp_path), env={"NOVEL_STUDIO_LANG": "en"}) == "zh"
    )
    (tmp_path / "novel-studio.toml").write_text("[ui\n", encoding="utf-8")  # broken: ignored here
    assert resolve_lang(args, env={}) == "zh"


def test_emit(capsys: pytest.CaptureFixture[str]) -> None:
    emit(argparse.Namespace(json=True), {"b": "中文", "a": 1}, "text")
    out = capsys.readouterr().out
    assert json.loads(out) == {"b": "中文", "a": 1} and "中文" in out and out.index('"b"') < out.index('"a"')
    emit(argparse.Namespace(json=False), {"a": 1}, "plain text")
    assert capsys.readouterr().out == "plain text\n"


def test_ask_or_pause_without_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "is_interactive", lambda: False)
    with pytest.raises(PausedForAuthor) as err:
        ask_or_pause(argparse.Namespace(lang="en", json=False), "Continue?", choices=["y", "n"])
    assert err.value.exit_code == 3 and "Continue?" in str(err.value)


def test_ask_or_pause_on_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "is_interactive", lambda: True)
    answers = iter(["maybe", "y"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    args = argparse.Namespace(lang="zh", json=False)
    assert ask_or_pause(args, "继续？", choices=["y", "n"]) == "y"
    monkeypatch.setattr("builtins.input", lambda prompt="": "")
    assert ask_or_pause(args, "继续？", choices=["y", "n"], default="n") == "n"


def test_subprocess_module_entry(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOVEL_STUDIO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    target = tmp_path / "novel"
    done = subprocess.run(
        [sys.executable, "-m", "studio.cli.main", "--lang", "en", "init", str(target), "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["project"] == str(target.resolve())
    again = subprocess.run(
        [sys.executable, "-m", "studio.cli.main", "init", str(target)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert again.returncode == 1 and "Traceback" not in again.stderr
    usage = subprocess.run(
        [sys.executable, "-m", "studio.cli.main", "--bogus"],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert usage.returncode == 2


def test_full_disk_is_a_clear_message(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None], capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    def full(args: argparse.Namespace) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", "/novel/chapters/chapter-003.md")

    fake_command(full)
    assert main(["fake"]) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert "磁盘空间不足" in err and "chapter-003.md" in err and "Traceback" not in err


def test_broken_pipe_is_quiet(
    fake_command: Callable[[Callable[[argparse.Namespace], int]], None], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import studio.cli.main as cli_main

    silenced: list[bool] = []
    monkeypatch.setattr(cli_main, "_silence_stdout", lambda: silenced.append(True))

    def piped(args: argparse.Namespace) -> int:
        raise BrokenPipeError

    fake_command(piped)
    assert main(["fake"]) == ExitCode.OK
    assert silenced == [True] and capsys.readouterr().err == ""
