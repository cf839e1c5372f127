"""Opening a project leaves the parts a cold start does not look at unread when their files were validated
before and are unchanged (`studio.validated_files`, `studio.project.Later`); a broken file is still reported
by `Project.open` exactly as without any record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import studio.validated_files as records_module
from studio.errors import FormatError
from studio.init_project import init_project
from studio.paths import ProjectPaths
from studio.project import Project
from studio.validated_files import RECORDS_FILE, ValidatedFiles, cache_file

ROOT = Path(__file__).resolve().parents[1]
LATER = ("storyline_spec", "world_rules", "characters", "style_profile", "style_drift", "contracts")
LATER_MODULES = ("studio.models.world_rules", "studio.models.character", "studio.models.contract",
                 "studio.models.style_profile", "studio.models.style_drift", "studio.models.storyline_spec",
                 "studio.contract_markdown")


@pytest.fixture(autouse=True)
def _no_racy_window(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(records_module, "RACY_NS", 0)  # the files were written a moment ago: trust them here
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _later(project: Project) -> set[str]:
    return {name for name in LATER if not getattr(project, f"_{name}_later").loaded}


def _absent(paths: ProjectPaths) -> set[str]:
    """The parts whose file is missing: loaded on use (as the defaults) with or without any record."""
    files = {"storyline_spec": paths.storyline_spec, "world_rules": paths.world_rules,
             "style_profile": paths.style_profile, "style_drift": paths.style_drift}
    return {name for name, path in files.items() if not path.exists()}


def _sample(tmp_path: Path) -> tuple[Path, ProjectPaths]:
    root = init_project(tmp_path / "novel", sample=True)
    return root, ProjectPaths(root)


def test_a_second_open_loads_the_recorded_parts_on_first_use(tmp_path: Path) -> None:
    root, paths = _sample(tmp_path)
    first = Project.open(root)
    assert _later(first) == _absent(paths) == {"style_drift"}  # no record yet: everything validated at open, and recorded
    assert cache_file(root, RECORDS_FILE).is_file()
    second = Project.open(root)
    assert _later(second) == set(LATER)
    for name in LATER:  # the same values, loaded on use
        assert getattr(second, name) == getattr(first, name), name
    assert _later(second) == set()
    assert second.world_rules.rules and second.characters


def test_a_second_open_imports_none_of_their_models(tmp_path: Path) -> None:
    root, _ = _sample(tmp_path)
    Project.open(root)
    child = (
        "import sys\nimport studio.validated_files as v\nv.RACY_NS = 0\n"
        "from studio.project import Project\n"
        f"p = Project.open(sys.argv[1])\nprint(sorted(m for m in {LATER_MODULES!r} if m in sys.modules))\n"
        "p.world_rules\nprint('studio.models.world_rules' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", child, str(root)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


def _break_keeping_size_and_mtime(path: Path) -> None:
    """Same size, same mtime: only the ctime (and, after an atomic replace, the inode) tell the change."""
    st = path.stat()
    data = path.read_bytes()
    broken = b"{" + data[1:-1].replace(b'"', b"'", 1) + data[-1:]
    assert len(broken) == len(data)
    path.write_bytes(broken)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("name", ["world_rules", "style_profile", "character", "contract"])
def test_a_file_broken_after_its_record_is_reported_at_open(name: str, tmp_path: Path) -> None:
    root, paths = _sample(tmp_path)
    path = {
        "world_rules": paths.world_rules,
        "style_profile": paths.style_profile,
        "character": sorted(paths.characters_active.glob("*.json"))[0],
        "contract": sorted((paths.volume_dir(1) / "chapter-contracts").glob("*.json"))[0],
    }[name]
    Project.open(root)
    assert ValidatedFiles(root).known(path, _kind(path))
    expected_problems = None
    _break_keeping_size_and_mtime(path)
    assert not ValidatedFiles(root).known(path, _kind(path))  # the stale record does not count
    with pytest.raises(FormatError) as raised:
        Project.open(root)
    expected_problems = [p.describe("en") for p in raised.value.problems]
    assert any(path.name in text for text in expected_problems)
    cache_file(root, RECORDS_FILE).unlink()
    with pytest.raises(FormatError) as again:
        Project.open(root)
    assert [p.describe("en") for p in again.value.problems] == expected_problems  # as without any record


def _kind(path: Path) -> str:
    if path.parent.name == "chapter-contracts":
        return "ChapterContract" + path.suffix
    if path.parent.name == "active":
        return "CharacterFile"
    return {"rules.json": "WorldRules", "style-profile.json": "StyleProfile"}[path.name]


def test_a_record_of_another_stat_kind_or_code_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, paths = _sample(tmp_path)
    Project.open(root)
    records = ValidatedFiles(root)
    assert records.known(paths.world_rules, "WorldRules")
    assert not records.known(paths.world_rules, "StyleProfile")
    os.utime(paths.world_rules, ns=(0, paths.world_rules.stat().st_mtime_ns + 1))
    assert not ValidatedFiles(root).known(paths.world_rules, "WorldRules")
    Project.open(root)  # validated again and recorded anew
    assert ValidatedFiles(root).known(paths.world_rules, "WorldRules")
    monkeypatch.setattr(records_module, "code_key", lambda: "another version of the models")
    assert not ValidatedFiles(root).known(paths.world_rules, "WorldRules")


def test_no_record_for_a_file_changed_within_the_racy_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, paths = _sample(tmp_path)
    monkeypatch.setattr(records_module, "RACY_NS", 3600 * 10**9)
    Project.open(root)
    assert not ValidatedFiles(root).known(paths.world_rules, "WorldRules")
    assert _later(Project.open(root)) == _absent(paths)


def test_a_file_broken_after_the_open_raises_at_first_use(tmp_path: Path) -> None:
    root, paths = _sample(tmp_path)
    Project.open(root)
    project = Project.open(root)
    paths.world_rules.write_text('{"rules": 3}', encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        _ = project.world_rules
    assert "rules.json" in raised.value.problems[0].describe("en")


def test_a_corrupt_records_file_is_empty(tmp_path: Path) -> None:
    root, paths = _sample(tmp_path)
    Project.open(root)
    cache_file(root, RECORDS_FILE).write_text("{oops", encoding="utf-8")
    assert _later(Project.open(root)) == _absent(paths)
    data = json.loads(cache_file(root, RECORDS_FILE).read_text(encoding="utf-8"))
    assert data["version"] == 1 and "world/rules.json" in data["files"]
