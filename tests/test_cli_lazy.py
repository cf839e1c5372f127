"""The CLI loads only the command it runs: `status` is a light process (no SDK, no Textual, no other command)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from studio.cli import main as cli_main
from studio.init_project import init_project

ROOT = Path(__file__).resolve().parents[1]
VALUE_OPTIONS = {"--project", "--lang"}


def _choices(parser: argparse.ArgumentParser) -> set[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()


def test_every_command_module_registers_its_own_name() -> None:
    parser = cli_main.build_parser("zh")
    assert _choices(parser) == {cli_main.command_name(m) for m in cli_main.COMMAND_MODULES}
    for module in cli_main.COMMAND_MODULES:
        one = cli_main.build_parser("zh", [cli_main.command_name(module)])
        assert _choices(one) == {cli_main.command_name(module)}


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["status"], "status"),
        (["--project", "status", "continue", "3"], "continue"),  # a folder named like a command
        (["--lang", "en", "--offline", "status", "--json"], "status"),
        (["--project=x", "undo"], "undo"),
        (["status", "--help"], "status"),
        ([], ""),
        (["--project", "x"], ""),
        (["--help"], None),
        (["nosuchcommand"], None),
    ],
)
def test_requested_command(argv: list[str], wanted: str | None) -> None:
    assert cli_main.requested_command(argv, VALUE_OPTIONS) == wanted


def test_unknown_command_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["nosuchcommand"]) == 2
    err = capsys.readouterr().err
    assert "status" in err and "continue" in err and "serve" in err


def test_help_without_a_command_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(cli_main.command_name(m) in out for m in cli_main.COMMAND_MODULES)


def test_status_imports_no_other_command_no_sdk_no_textual(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    code = (
        "import sys, json\n"
        "from studio.cli.main import main\n"
        f"rc = main(['status', '--project', {str(root)!r}])\n"
        "mods = sorted(m for m in sys.modules)\n"
        "print(json.dumps({'rc': rc, 'mods': mods}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["rc"] == 0
    mods: list[str] = data["mods"]
    commands = [m for m in mods if m.startswith("studio.cli.") and m.endswith("_cmd")]
    assert commands == ["studio.cli.status_cmd"]
    heavy = [m for m in mods if m.split(".")[0] in {"anthropic", "textual", "rich", "jieba", "pypinyin", "pipeline"}]
    assert heavy == []


def test_offline_studio_start_imports_no_sdk_and_no_tokenizer(tmp_path: Path) -> None:
    """The studio painted offline needs neither the vendor SDK (and its HTTP stack) nor jieba: they load at
    the first real call or the first check that segments text."""
    root = init_project(tmp_path / "novel", sample=True)
    code = (
        "import asyncio, json, sys\n"
        "from pathlib import Path\n"
        "from studio.tui.app import NovelStudioApp\n"
        "async def paint():\n"
        f"    app = NovelStudioApp(Path({str(root)!r}), lang='zh', offline=True)\n"
        "    async with app.run_test(headless=True, size=(100, 30)) as pilot:\n"
        "        await pilot.pause()\n"
        "        await app.workers.wait_for_complete()\n"
        "        await pilot.pause()\n"
        "        painted = app.main_screen is not None\n"
        "        app.exit()\n"
        "    return painted\n"
        "painted = asyncio.run(paint())\n"
        "print(json.dumps({'painted': painted, 'mods': sorted(sys.modules)}))\n"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          check=False, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["painted"]
    heavy = [m for m in data["mods"] if m.split(".")[0] in {"anthropic", "httpx", "jieba", "pypinyin"}]
    assert heavy == []
