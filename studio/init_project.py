"""Create a new novel project: the folder layout of seed 001 section 9.1, from the bundled templates.

Templates are package data (`templates/project/`, `templates/sample/`), found through importlib.resources
so an installed wheel works as well as a source checkout. Every file goes through the atomic writer.
`novel-studio.toml` is written last: an init cut short leaves a folder that is not yet a project and can be
initialised again; files already there are kept, never overwritten. It is written with the `[prompts]` table
pinning every installed prompt at its latest version (`studio.prompt_pins`).
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from studio.errors import StudioError
from studio.fileio import atomic_write_bytes
from studio.i18n import Catalog, env_lang, tr
from studio.models.blacklist import default_blacklist
from studio.models.storyline_spec import default_storyline_spec
from studio.paths import SETTINGS_FILE, ProjectPaths
from studio.prompt_pins import latest_pins, pins_text

MESSAGES: Catalog = {
    "exists": (
        "{path} 已经是一个小说项目（含 {marker}），不会覆盖；请换一个空文件夹",
        "{path} already holds a novel project ({marker} found); not overwriting it, pick an empty folder",
    ),
    "not_dir": ("{path} 已存在且不是文件夹", "{path} exists and is not a folder"),
    "no_sample": (
        "找不到示例小说模板（templates/sample/），这个安装包里没有示例",
        "The sample novel (templates/sample/) is missing from this installation",
    ),
    "no_templates": (
        "找不到项目模板（templates/project/）",
        "Project templates (templates/project/) are missing",
    ),
    "untitled": ("（书名待定）", "(title to be decided)"),
}

# Folders of the layout that start empty (git cannot carry empty folders in templates/).
EMPTY_DIRS: tuple[str, ...] = (
    "research",
    "world",
    "characters/active",
    "characters/retired",
    "storylines",
    "volumes",
    "chapters",
    "staging/chapters",
    "staging/summaries",
    "staging/state",
    "staging/storylines",
    "staging/evaluations",
    "staging/volumes",
    "staging/foreshadowing",
    "summaries",
    "state/history",
    "foreshadowing",
    "evaluations",
    "logs",
)

_SKIP_NAMES = frozenset({"__init__.py", "__pycache__", ".gitkeep", ".DS_Store"})
_TITLE = "{{title}}"


def existing_project_marker(target: Path) -> str | None:
    """What makes `target` an existing project (None if it is not one).

    novel-studio.toml or .checkpoint.json, written chapters, or a state changelog with entries. An empty
    `chapters/` alone is what an interrupted init leaves, and does not count.
    """
    target = Path(target)
    for name in (SETTINGS_FILE, ".checkpoint.json"):
        if (target / name).exists():
            return name
    chapters = target / "chapters"
    if chapters.is_dir() and any(chapters.iterdir()):
        return "chapters/"
    changelog = target / "state" / "changelog.jsonl"
    if changelog.is_file() and changelog.stat().st_size > 0:
        return "state/changelog.jsonl"
    return None


def _templates_root(name: str) -> Traversable:
    return resources.files("templates").joinpath(name)


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """(relative path, file) for every file under `node`, sorted, skipping package clutter."""
    out: list[tuple[str, Traversable]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name in _SKIP_NAMES or child.name.endswith(".pyc"):
            continue
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            out.extend(_walk(child, rel + "/"))
        else:
            out.append((rel, child))
    return out


def _render(rel: str, data: bytes, title: str | None, untitled: str) -> bytes:
    if rel == SETTINGS_FILE:
        text = data.decode("utf-8").replace(f'"{_TITLE}"', json.dumps(title or "", ensure_ascii=False))
        return text.encode("utf-8")
    if rel.endswith(".md"):
        return data.decode("utf-8").replace(_TITLE, title or untitled).encode("utf-8")
    return data


def init_project(target: Path, *, sample: bool = False, title: str | None = None) -> Path:
    """Create a project in `target` (made if missing; an empty or unrelated folder is fine).

    Refuses a folder that already holds a project. With `sample`, the bundled sample novel is copied over
    the fresh layout. Returns the project folder.
    """
    lang = env_lang() or "zh"
    target = Path(target).expanduser()
    if target.exists() and not target.is_dir():
        raise StudioError(tr(MESSAGES, "not_dir", lang, path=target))
    marker = existing_project_marker(target) if target.exists() else None
    if marker is not None:
        raise StudioError(tr(MESSAGES, "exists", lang, path=target, marker=marker))
    project_tpl = _templates_root("project")
    if not project_tpl.is_dir():
        raise StudioError(tr(MESSAGES, "no_templates", lang))
    sample_files: list[tuple[str, Traversable]] = []
    if sample:
        sample_tpl = _templates_root("sample")
        if not sample_tpl.is_dir():
            raise StudioError(tr(MESSAGES, "no_sample", lang))
        sample_files = _walk(sample_tpl)

    paths = ProjectPaths(target)
    target.mkdir(parents=True, exist_ok=True)
    for rel in EMPTY_DIRS:
        (target / rel).mkdir(parents=True, exist_ok=True)

    untitled = tr(MESSAGES, "untitled", lang)
    settings_data: bytes | None = None
    for rel, node in _walk(project_tpl):
        data = _render(rel, node.read_bytes(), title, untitled)
        if rel == SETTINGS_FILE:
            settings_data = data  # last, see the module docstring
            continue
        dest = target / rel
        if not dest.exists():
            atomic_write_bytes(dest, data)
    if not paths.ai_blacklist.exists():
        default_blacklist().save(paths.ai_blacklist)
    if not paths.storyline_spec.exists():
        default_storyline_spec().save(paths.storyline_spec)

    # The sample novel replaces the fresh files it brings (brief, state, chapters ...).
    for rel, node in sample_files:
        if rel == SETTINGS_FILE:
            settings_data = _render(rel, node.read_bytes(), title, untitled)
            continue
        atomic_write_bytes(target / rel, node.read_bytes())

    if settings_data is not None and not paths.settings.exists():
        text, _ = pins_text(settings_data.decode("utf-8"), latest_pins())  # a new project pins the latest prompts
        atomic_write_bytes(paths.settings, text.encode("utf-8"))
    return target
