"""The studio's new-novel path (issue 7 item 7) without the screens: what the brief form and the style choice
produce, checked and written.

- `BriefAnswers`: the brief form's result (title, answers keyed by `studio.author_brief.BRIEF_FIELDS`, the
  length of volume 1). `brief_problem` says why it cannot be used (an empty brief: the template's headings and
  a title alone give the agents nothing to plan from; a volume length outside 3..500).
- `create_novel(folder, answers)`: a project made by `init_project` in `folder` (or `reuse`: the project this
  path made a moment ago, when the author came back to the form) with `brief.md` written by
  `brief_from_answers`. Raises StudioError / OSError with a readable message; a folder that holds another
  project is refused by `init_project`, never overwritten.
- `check_sample(text, base)`: a style sample path typed by the author: `~` expanded, relative to `base`, an
  existing UTF-8 text file that is not empty; the absolute path, or the reason it is refused.
- `save_quick_start(root, request)` / `load_quick_start(paths)`: the author's choices at `QUICK_START_FILE`
  (`.novel-studio/quick-start.json`, `studio.models.quick_start.QuickStartRequest`); an unreadable file loads as
  None (nothing is offered from it), never rewritten.
Every write goes through `studio.fileio`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from studio.author_brief import BRIEF_FIELDS, brief_from_answers, clean_brief
from studio.errors import StudioError
from studio.fileio import atomic_write_text, read_text
from studio.i18n import Catalog, Lang, tr
from studio.init_project import init_project
from studio.models.quick_start import DEFAULT_VOLUME_LENGTH, QuickStartRequest
from studio.paths import ProjectPaths
from studio.planning.quick_start_progress import request_path

__all__ = [
    "MAX_VOLUME_LENGTH",
    "MESSAGES",
    "MIN_VOLUME_LENGTH",
    "QUICK_START_FILE",
    "BriefAnswers",
    "brief_problem",
    "check_sample",
    "create_novel",
    "load_quick_start",
    "quick_start_path",
    "save_quick_start",
]

QUICK_START_FILE = Path(".novel-studio") / "quick-start.json"  # = request_path(paths), relative
MIN_VOLUME_LENGTH = 3  # the trial chapters 1-3 are part of volume 1
MAX_VOLUME_LENGTH = 500

MESSAGES: Catalog = {
    "empty_brief": (
        "纲领是空的：至少填写题材、主角或核心冲突中的一项（只有书名时，智能体无从规划）",
        "The brief is empty: fill in at least the genre, the protagonist or the core conflict (a title alone "
        "gives the agents nothing to plan from)",
    ),
    "bad_length": ("本卷章数要在 {lo} 到 {hi} 之间", "Chapters in volume 1: {lo} to {hi}"),
    "no_file": ("找不到文件：{path}", "No such file: {path}"),
    "not_file": ("不是文件：{path}", "Not a file: {path}"),
    "not_text": ("不是 UTF-8 文本文件：{path}", "Not a UTF-8 text file: {path}"),
    "empty_file": ("文件是空的：{path}", "The file is empty: {path}"),
    "no_path": ("请输入样章文件的路径", "Enter the path of a sample chapter"),
}


@dataclass(frozen=True)
class BriefAnswers:
    """What the brief form collected."""

    title: str
    answers: dict[str, str] = field(default_factory=dict)
    volume_length: int = DEFAULT_VOLUME_LENGTH

    def brief_text(self) -> str:
        """`brief.md` as `brief_from_answers` writes it (empty answers left out)."""
        known = {key for key, _ in BRIEF_FIELDS}
        return brief_from_answers(self.title, {k: v for k, v in self.answers.items() if k in known and v.strip()})


def brief_problem(answers: BriefAnswers, lang: Lang = "zh") -> str | None:
    """Why the answers cannot start a novel, or None."""
    if not MIN_VOLUME_LENGTH <= answers.volume_length <= MAX_VOLUME_LENGTH:
        return tr(MESSAGES, "bad_length", lang, lo=MIN_VOLUME_LENGTH, hi=MAX_VOLUME_LENGTH)
    if clean_brief(answers.brief_text()).is_empty:
        return tr(MESSAGES, "empty_brief", lang)
    return None


def create_novel(folder: Path, answers: BriefAnswers, *, reuse: Path | None = None) -> Path:
    """The new project with its brief (see the module rules); returns the project folder."""
    root = reuse if reuse is not None else init_project(Path(folder), title=answers.title.strip() or None)
    atomic_write_text(ProjectPaths(root).brief, answers.brief_text())
    return root


def check_sample(text: str, base: Path, lang: Lang = "zh") -> Path | str:
    """The sample file `text` names (absolute), or why it is refused (a readable line)."""
    raw = text.strip().strip("'\"")
    if not raw:
        return tr(MESSAGES, "no_path", lang)
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path(base) / path
    path = path.resolve()
    if not path.exists():
        return tr(MESSAGES, "no_file", lang, path=path)
    if not path.is_file():
        return tr(MESSAGES, "not_file", lang, path=path)
    try:
        body = read_text(path)
    except StudioError:
        return tr(MESSAGES, "not_text", lang, path=path)
    except OSError as exc:
        return str(exc)
    if not body.strip():
        return tr(MESSAGES, "empty_file", lang, path=path)
    return path


def save_quick_start(root: Path, request: QuickStartRequest) -> Path:
    """Keep the author's quick-start choices in the project; returns the file."""
    path = quick_start_path(ProjectPaths(root))
    request.save(path)
    return path


def quick_start_path(paths: ProjectPaths) -> Path:
    """`.novel-studio/quick-start.json`: the author's quick-start choices (the quick start's own path)."""
    return request_path(paths)


def load_quick_start(paths: ProjectPaths) -> QuickStartRequest | None:
    """The saved quick-start choices, or None (missing or unreadable: the flow then does not offer a resume)."""
    path = quick_start_path(paths)
    if not path.is_file():
        return None
    try:
        return QuickStartRequest.load(path)
    except StudioError:
        return None
