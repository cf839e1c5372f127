"""A repeat `status` prints its memo (`studio.status_memo`) and imports no pydantic model; any change to what it
reads makes the next `status` a full run again, never a stale answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import platformdirs
import pytest

import studio.status as status_module
import studio.status_memo as memo_module
from studio.cli.main import main
from studio.fileio import append_line, read_json
from studio.init_project import init_project
from studio.paths import ProjectPaths
from studio.status_memo import MEMO_FILE, StatusMemo, cache_file, variant

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import sys
import studio.status_memo as memo
memo.RACY_NS = 0  # the files were written a moment ago: trust their timestamps for this test
from studio.cli.main import main
rc = main(["status", "--project", sys.argv[1]])
sys.stdout.flush()
print("pydantic" in sys.modules, "studio.status" in sys.modules, rc, file=sys.stderr)
"""


def _child(root: Path) -> tuple[str, str]:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(root)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr.strip().splitlines()[-1]


def test_repeat_status_prints_the_memo_and_imports_no_pydantic(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    first, loaded = _child(root)
    assert loaded == "True True 0"  # the full report: its models
    again, loaded = _child(root)
    assert loaded == "False False 0"  # the memo: no pydantic, no report module
    assert again == first and "《" in first


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Full status runs in this process (calls of `build_status`), with the racy window shut."""
    monkeypatch.setattr(memo_module, "RACY_NS", 0)
    calls: list[int] = []
    real = status_module.build_status

    def build(*args: object, **kwargs: object) -> status_module.StatusReport:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(status_module, "build_status", build)
    return calls


def _status(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> str:
    assert main(["status", "--project", str(root), *extra]) == 0
    return capsys.readouterr().out


def _ledger_line(paths: ProjectPaths) -> None:
    append_line(paths.spend_ledger, json.dumps({"at": "2026-01-01T00:00:00", "agent": "writer", "model": "m",
                                                "input_tokens": 1000, "output_tokens": 500, "cost_usd": 7.5}))


def _same_size_new_text(paths: ProjectPaths) -> None:
    """A chapter rewritten with text of the same size, its mtime put back: only ctime tells."""
    chapter = paths.chapter(1)
    st = chapter.stat()
    text = chapter.read_text(encoding="utf-8")
    chapter.write_text(text.replace("。", "！", 1) if "。" in text else text, encoding="utf-8")
    os.utime(chapter, ns=(st.st_atime_ns, st.st_mtime_ns))


def _lock(paths: ProjectPaths) -> None:
    paths.lock_dir.mkdir()
    paths.lock_info.write_text(json.dumps({"pid": 999_999_999, "host": "elsewhere", "started": "2026-01-01T00:00:00"}),
                               encoding="utf-8")


def _evaluation_lower(paths: ProjectPaths) -> None:
    path = paths.evaluation(1)
    data = read_json(path)
    data["overall"] = 1.0
    for value in (data.get("scores") or {}).values():
        if isinstance(value, dict) and "score" in value:
            value["score"] = 1
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


CHANGES: dict[str, Callable[[ProjectPaths, pytest.MonkeyPatch, Path], object]] = {
    "chapter text": lambda p, m, t: p.chapter(1).write_text(p.chapter(1).read_text(encoding="utf-8") + "又一句话。",
                                                            encoding="utf-8"),
    "chapter text, same size and mtime": lambda p, m, t: _same_size_new_text(p),
    "evaluation": lambda p, m, t: _evaluation_lower(p),
    "spend ledger": lambda p, m, t: _ledger_line(p),
    "project settings": lambda p, m, t: p.settings.write_text(
        p.settings.read_text(encoding="utf-8") + '\n[ui]\nlang = "en"\n', encoding="utf-8"),
    "user settings": lambda p, m, t: (t / "settings.toml").write_text('[ui]\nlang = "en"\n', encoding="utf-8"),
    "environment": lambda p, m, t: m.setenv("NOVEL_STUDIO_LANG", "en"),
    "lock": lambda p, m, t: _lock(p),
    "a new file": lambda p, m, t: (p.root / "notes.txt").write_text("x", encoding="utf-8"),
}


# Chapter text and evaluations alone: the kept report is recounted and rescored (`status_cmd._refreshed`,
# tests/test_status_recount.py).
RECOUNTED = frozenset({"chapter text", "chapter text, same size and mtime", "evaluation"})


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_any_change_makes_a_full_run(change: str, tmp_path: Path, counted: list[int], monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NOVEL_STUDIO_SETTINGS", str(tmp_path / "settings.toml"))
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    before = _status(capsys, root)
    assert _status(capsys, root) == before and len(counted) == 1  # the repeat: the memo, no report built

    CHANGES[change](paths, monkeypatch, tmp_path)
    after = _status(capsys, root)
    assert len(counted) == (1 if change in RECOUNTED else 2)  # a full run again, or the light refresh
    cache_file(root, MEMO_FILE).unlink(missing_ok=True)
    assert _status(capsys, root) == after  # what a run without any memo prints
    if change not in ("a new file", "chapter text, same size and mtime"):  # these two change no figure
        assert after != before


def test_each_variant_is_kept_and_json_too(tmp_path: Path, counted: list[int],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    zh, en, as_json = _status(capsys, root), _status(capsys, root, "--lang", "en"), _status(capsys, root, "--json")
    assert len(counted) == 3 and zh != en and json.loads(as_json)["project_name"]
    assert (_status(capsys, root), _status(capsys, root, "--lang", "en"), _status(capsys, root, "--json")) == (
        zh, en, as_json)
    assert len(counted) == 3


def test_a_memo_is_kept_only_when_it_can_be_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files changed within the racy window (mtime or ctime) or a lock folder: the memo is neither kept nor
    used; a memo of another key, or a broken memo file, is a miss."""
    root = init_project(tmp_path / "novel", sample=True)
    key = variant(None, False)
    fresh = StatusMemo.probe(root, key)
    assert not fresh.storable  # just written
    past = fresh.key
    for path in [root, *root.rglob("*")]:
        os.utime(path, ns=(0, 1_000_000_000))  # mtimes long ago; ctime stays now
    assert not StatusMemo.probe(root, key).storable
    monkeypatch.setattr(memo_module, "RACY_NS", 0)
    memo = StatusMemo.probe(root, key)
    assert memo.storable and memo.key != past
    memo.save("text")
    assert StatusMemo.probe(root, key).replay() == "text"
    assert StatusMemo.probe(root, variant("en", False)).replay() is None
    memo.path.write_text("{not json", encoding="utf-8")
    assert StatusMemo.probe(root, key).replay() is None
    memo.save("text")
    ProjectPaths(root).lock_dir.mkdir()
    assert not StatusMemo.probe(root, key).storable and StatusMemo.probe(root, key).replay() is None
    assert memo.path.is_relative_to(Path(os.environ["XDG_CACHE_HOME"]))  # never in the author's folder


def test_no_walk_outside_a_project_nor_past_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`status` in a folder that is no project (a home folder) walks nothing; a project holding more than
    MAX_ENTRIES entries is not memoised."""
    monkeypatch.setattr(memo_module, "RACY_NS", 0)
    probes: list[Path] = []
    real = StatusMemo.probe

    def probe(root: Path, key: str) -> StatusMemo:
        probes.append(root)
        return real(root, key)

    monkeypatch.setattr(StatusMemo, "probe", probe)
    home = tmp_path / "home"
    (home / "photos").mkdir(parents=True)
    assert main(["status", "--project", str(home)]) == 1
    assert probes == []
    capsys.readouterr()

    root = init_project(tmp_path / "novel", sample=True)
    monkeypatch.setattr(memo_module, "MAX_ENTRIES", 10)
    assert not StatusMemo.probe(root, variant(None, False)).storable
    assert main(["status", "--project", str(root)]) == 0
    assert len(probes) == 2 and not cache_file(root, MEMO_FILE).exists()


def test_the_memo_stats_the_settings_file_the_settings_read(tmp_path: Path) -> None:
    """One home for the user settings path (`studio.settings_path`), light enough for the memo: the memo and
    the settings loader name the same file, with and without the override."""
    from studio.config import user_settings_path

    assert memo_module.user_settings_path is user_settings_path
    for env in ({}, {"NOVEL_STUDIO_SETTINGS": str(tmp_path / "s.toml")}):
        assert user_settings_path(env) == (Path(env["NOVEL_STUDIO_SETTINGS"]) if env else
                                           Path(platformdirs.user_config_dir("novel-studio")) / "settings.toml")
    code = "import sys, studio.settings_path; print('pydantic' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "False"
