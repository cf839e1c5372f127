"""The novel project as the cold start sees it (seed 000 section 8.1).

`Project.open(root)` reads and validates the small files a cold start needs (checkpoint, current state,
foreshadowing ledger, storylines, world rules, active characters, style files, the current volume's outline,
schedule and chapter contracts) and reports every problem at once. It reads no chapter text: opening a
project of 500 chapters costs the same as opening one of 5. Everything else is read lazily, on request.

The parts a cold start does not look at (storyline spec, world rules, style profile and drift, active
characters, the current volume's chapter contracts), and, for `status` only (`open(for_status=True)`), those
a chapter's commit does not change (storylines, the AI blacklist, the current volume's outline and storyline
schedule), are loaded on first use instead
(`Later`) when every file of the part is missing or was validated before and is unchanged
(`studio.validated_files`, records in the user's cache folder): their models are then not even imported
(`status` keeps what it shows of the second group in its own cache: `studio.status.ReportParts`). A file without such a record is validated at open as
before, so a broken file is reported by `open` exactly as it always was; each file loaded without a problem is
recorded for the next open.

Projects made by the reference plugin (DankerMu/novel-writer-plugin) open too: each model accepts the
plugin's shapes (see their docstrings), chapter contracts may be Markdown (`chapter-NNN.md`, read by
studio/contract_markdown.py; a `.json` contract of the same chapter wins), and `notices()` lists what
was read with a caveat (changelog lines without state versions, blacklist words listed only in a
category, the plugin's quick-start checkpoint) so the author sees it instead of it being dropped.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar, overload

from studio.errors import FormatError, Problem, ProjectNotFoundError, UnsafeIdError
from studio.fileio import read_text
from studio.i18n import Catalog, Lang, env_lang, tr
from studio.ids import is_slug
from studio.models.changelog import ChangelogEntry
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.state import CurrentState
from studio.paths import EVALUATION_FILE, SETTINGS_FILE, ProjectPaths, numbered_files
from studio.state_engine import load_changelog
from studio.toml_file import read_toml
from studio.validated_files import ValidatedFiles

if TYPE_CHECKING:
    # Per-chapter files, read on request (`evaluation`, `log`), and the parts loaded on first use when their
    # files were validated before (`Later`): imported there, so that opening a project (and `status`, whose
    # caches hold their figures) does not build their models.
    from studio.models.base import FileModel
    from studio.models.blacklist import AiBlacklist
    from studio.models.character import CharacterFile
    from studio.models.contract import ChapterContract
    from studio.models.evaluation import Evaluation
    from studio.models.pipeline_log import PipelineLog
    from studio.models.schedule import StorylineSchedule
    from studio.models.storyline_spec import StorylineSpec
    from studio.models.storylines import Storylines
    from studio.models.style_drift import StyleDrift
    from studio.models.style_profile import StyleProfile
    from studio.models.world_rules import WorldRules
    from studio.outline import VolumeOutline

MESSAGES: Catalog = {
    "not_found": (
        "{dir} 不是小说项目（没有 novel-studio.toml、.checkpoint.json、state/ 或 chapters/）。"
        "新建项目请运行 `novel-studio init {dir}`。",
        "No novel project at {dir} (no novel-studio.toml, .checkpoint.json, state/ or chapters/). "
        "Run `novel-studio init {dir}` to create one.",
    ),
    "not_dir": (
        "{dir} 不存在或不是文件夹。新建项目请运行 `novel-studio init {dir}`。",
        "{dir} does not exist or is not a folder. Run `novel-studio init {dir}` to create a project.",
    ),
    "file_not_slug": ("文件名 {slug!r} 不是 slug 形式的 id（例如 lin-feng.json）", "file name {slug!r} is not a slug id (e.g. lin-feng.json)"),
    "unreadable": ("无法读取：{error}", "cannot read: {error}"),
    "foreign_lines": (
        "第 {first}–{last} 行（共 {n} 行）由其他工具写入，没有 state_version：作为历史保留，不参与状态重放；"
        "当前状态以 current-state.json 为准；这些行记录的章节不能撤销或重建",
        "lines {first}-{last} ({n} lines) were written by another tool without state_version: kept as history, "
        "never replayed; current-state.json is the state they built; the chapters they record cannot be undone or rebuilt",
    ),
    "changelog_unreadable": ("无法检查状态日志：{error}", "cannot check the state log: {error}"),
    "category_only": (
        "“{word}”只列在分类里，不在 words 中：不会被执行（需要时请加入 words）",
        "{word!r} is listed in a category but not in words: it is not enforced (add it to words if meant)",
    ),
    "quick_start": (
        "检查点来自参考插件的快速起步（步骤 {step}）：novel-studio 按第 1 卷大纲继续写作，插件的其余起步步骤不会执行",
        "the checkpoint is in the reference plugin's quick start (step {step}): novel-studio goes on writing "
        "volume 1's outline; the plugin's remaining quick-start steps are not run",
    ),
}

# Any one of these marks a folder as a novel project. A project written by another tool in the seed
# formats has no novel-studio.toml and must still open.
PROJECT_MARKERS: tuple[str, ...] = (SETTINGS_FILE, ".checkpoint.json", "state", "chapters")

_LOG_NAME = re.compile(r"^(chapter-\d{3,})-log\.json$")
_CHAPTER_NAME = re.compile(r"^(chapter-\d{3,})\.md$")
_CONTRACT_NAME = re.compile(r"^(chapter-\d{3,})\.json$")
_CONTRACT_MD_NAME = re.compile(r"^(chapter-\d{3,})\.md$")
_BOOK_TITLE = re.compile(r"《([^》]+)》")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")

T = TypeVar("T")
M = TypeVar("M", bound="FileModel")


def _lang() -> Lang:
    return env_lang() or "zh"


def is_project(root: Path) -> bool:
    """True when `root` holds any marker of a novel project."""
    return root.is_dir() and any((root / marker).exists() for marker in PROJECT_MARKERS)


class _Collector:
    """Runs loaders and collects their problems instead of stopping at the first; with `records`, a file loaded
    without a problem as `kind` is recorded as validated (`studio.validated_files`)."""

    def __init__(self, lang: Lang, records: ValidatedFiles | None = None) -> None:
        self.lang = lang
        self.records = records
        self.problems: list[Problem] = []

    def run(self, loader: Callable[[], T], default: T, path: Path, kind: str | None = None) -> T:
        st = self.records.stat(path) if self.records is not None and kind is not None else None
        try:
            value = loader()
        except FormatError as exc:
            self.problems.extend(exc.problems)
        except UnsafeIdError as exc:
            self.problems.append(Problem(path, str(exc)))
        except OSError as exc:
            self.problems.append(Problem(path, tr(MESSAGES, "unreadable", self.lang, error=exc.strerror or exc)))
        else:
            if self.records is not None and kind is not None:
                self.records.note(path, st, kind)
            return value
        return default


class Later(Generic[T]):
    """A part of the project loaded on first use: every file of it was validated before and is unchanged
    since (`studio.validated_files`), so opening the project need not read it. A file changed after the open
    raises its FormatError at first use, as opening the project again would."""

    def __init__(self, load: Callable[[], T]) -> None:
        self._load: Callable[[], T] | None = load
        self._value: T | None = None

    @classmethod
    def now(cls, value: T) -> Later[T]:
        later = cls(lambda: value)
        later.get()
        return later

    @property
    def loaded(self) -> bool:
        return self._load is None

    def get(self) -> T:
        if self._load is not None:
            self._value = self._load()
            self._load = None
        return self._value  # type: ignore[return-value]  # set above, T may be Optional


class _OnUse(Generic[T]):
    """A `Project` attribute held as a `Later` (assigning a plain value loads it at once)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}_later"

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> _OnUse[T]: ...
    @overload
    def __get__(self, obj: Project, objtype: type | None = None) -> T: ...
    def __get__(self, obj: Project | None, objtype: type | None = None) -> T | _OnUse[T]:
        if obj is None:
            return self
        later: Later[T] = getattr(obj, self.slot)
        return later.get()

    def __set__(self, obj: Project, value: T | Later[T]) -> None:
        setattr(obj, self.slot, value if isinstance(value, Later) else Later.now(value))


def _load_outline(path: Path) -> VolumeOutline | None:
    if not path.is_file():
        return None
    from studio.outline import parse_outline

    return parse_outline(read_text(path), path)


def _load_schedule(path: Path) -> StorylineSchedule | None:
    if not path.is_file():
        return None
    from studio.models.schedule import StorylineSchedule

    return StorylineSchedule.load(path)


def _brief_title(path: Path) -> str | None:
    """The first Markdown heading of brief.md (small by spec: <= 1000 characters)."""
    try:
        text = read_text(path)
    except (OSError, FormatError):
        return None
    for line in text.splitlines()[:40]:
        m = _HEADING.match(line)
        if m:
            title = m.group(1).strip()
            quoted = _BOOK_TITLE.search(title)
            if quoted:
                return quoted.group(1).strip() or None
            for prefix in ("创作纲领：", "创作纲领:", "Brief:", "Brief："):
                title = title.removeprefix(prefix).strip()
            if title and title not in ("创作纲领", "Brief", "brief"):
                return title
            return None
    return None


def _settings_title(path: Path) -> str | None:
    if not path.is_file():
        return None
    try:
        data = read_toml(path)
    except (FormatError, OSError):
        return None  # the settings loader reports a broken file; a title is not worth failing for
    table = data.get("project")
    title = table.get("title") if isinstance(table, dict) else None
    if not isinstance(title, str):
        return None
    title = title.strip()
    quoted = _BOOK_TITLE.fullmatch(title)
    return (quoted.group(1).strip() if quoted else title) or None


class Project:
    """One novel project folder, validated for a cold start. Build it with `Project.open(root)`."""

    # Loaded at open unless every file of each was validated before and is unchanged (then on first use).
    storyline_spec: _OnUse[StorylineSpec] = _OnUse()
    world_rules: _OnUse[WorldRules] = _OnUse()
    characters: _OnUse[dict[str, CharacterFile]] = _OnUse()
    style_profile: _OnUse[StyleProfile] = _OnUse()
    style_drift: _OnUse[StyleDrift] = _OnUse()
    contracts: _OnUse[dict[int, ChapterContract]] = _OnUse()
    # The same, but files a cold start reads too: `status` takes what it shows of them from its own cache.
    storylines: _OnUse[Storylines] = _OnUse()
    ai_blacklist: _OnUse[AiBlacklist] = _OnUse()
    outline: _OnUse[VolumeOutline | None] = _OnUse()
    schedule: _OnUse[StorylineSchedule | None] = _OnUse()

    def __init__(
        self,
        root: Path,
        *,
        checkpoint: Checkpoint,
        state: CurrentState,
        foreshadowing: ForeshadowingLedger,
        storylines: Storylines | Later[Storylines],
        storyline_spec: StorylineSpec | Later[StorylineSpec],
        world_rules: WorldRules | Later[WorldRules],
        characters: dict[str, CharacterFile] | Later[dict[str, CharacterFile]],
        style_profile: StyleProfile | Later[StyleProfile],
        ai_blacklist: AiBlacklist | Later[AiBlacklist],
        style_drift: StyleDrift | Later[StyleDrift],
        outline: VolumeOutline | None | Later[VolumeOutline | None],
        schedule: StorylineSchedule | None | Later[StorylineSchedule | None],
        contracts: dict[int, ChapterContract] | Later[dict[int, ChapterContract]],
        has_settings: bool,
    ) -> None:
        self.root = root
        self.paths = ProjectPaths(root)
        self.checkpoint = checkpoint
        self.state = state
        self.foreshadowing = foreshadowing
        self.storylines = storylines
        self.storyline_spec = storyline_spec
        self.world_rules = world_rules
        self.characters = characters
        self.style_profile = style_profile
        self.ai_blacklist = ai_blacklist
        self.style_drift = style_drift
        self.outline = outline
        self.schedule = schedule
        self.contracts = contracts
        self.has_settings = has_settings
        self._committed: dict[int, Path] | None = None
        self._evaluations: dict[int, Evaluation | None] = {}
        self._logs: dict[int, PipelineLog | None] = {}

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, root: Path, *, lang: Lang | None = None, for_status: bool = False) -> Project:
        """Open and validate the project at `root`; every problem found is reported in one FormatError.

        Raises ProjectNotFoundError when `root` is not a project folder (message in `lang`).
        """
        project, problems = cls._load(Path(root), lang or _lang(), for_status=for_status)
        if problems:
            raise FormatError(problems)
        assert project is not None
        return project

    @classmethod
    def _load(cls, root: Path, lang: Lang, *, for_status: bool = False) -> tuple[Project | None, list[Problem]]:
        if not root.is_dir():
            raise ProjectNotFoundError(tr(MESSAGES, "not_dir", lang, dir=root))
        if not is_project(root):
            raise ProjectNotFoundError(tr(MESSAGES, "not_found", lang, dir=root))
        paths = ProjectPaths(root)
        records = ValidatedFiles(root)
        c = _Collector(lang, records)

        def on_use(files: list[tuple[Path, str]], load: Callable[[_Collector], T], *, read: bool = False) -> T | Later[T]:
            """`load` now (its problems collected, its files recorded), unless every file is missing or was
            validated before and is unchanged: then on first use. A part a cold start reads (`read`) waits only
            for `status` (`for_status`): a long-lived project keeps the values it opened with."""
            if (read and not for_status) or not all(not path.exists() or records.known(path, kind) for path, kind in files):
                return load(c)

            def later() -> T:
                inner = _Collector(lang)
                value = load(inner)
                if inner.problems:
                    raise FormatError(inner.problems)
                return value

            return Later(later)

        checkpoint = c.run(lambda: Checkpoint.load_or_default(paths.checkpoint), Checkpoint(), paths.checkpoint)
        state = c.run(lambda: CurrentState.load_or_default(paths.current_state), CurrentState(), paths.current_state)
        foreshadowing = c.run(
            lambda: ForeshadowingLedger.load_or_default(paths.global_foreshadowing),
            ForeshadowingLedger(),
            paths.global_foreshadowing,
        )
        def optional(model: _Model[M], path: Path, *, read: bool = False) -> M | Later[M]:
            return on_use([(path, model.name)], partial(_optional_file, model, path), read=read)

        storylines = optional(_STORYLINES, paths.storylines, read=True)
        storyline_spec = optional(_STORYLINE_SPEC, paths.storyline_spec)
        world_rules = optional(_WORLD_RULES, paths.world_rules)
        style_profile = optional(_STYLE_PROFILE, paths.style_profile)
        ai_blacklist = optional(_AI_BLACKLIST, paths.ai_blacklist, read=True)
        style_drift = optional(_STYLE_DRIFT, paths.style_drift)

        try:
            char_files = sorted(p for p in paths.characters_active.glob("*.json") if p.is_file())
        except OSError:
            char_files = []
        characters = on_use([(p, "CharacterFile") for p in char_files], partial(_characters, char_files))

        volume = _volume_of(checkpoint)
        outline: VolumeOutline | None | Later[VolumeOutline | None] = None
        schedule: StorylineSchedule | None | Later[StorylineSchedule | None] = None
        contracts: dict[int, ChapterContract] | Later[dict[int, ChapterContract]] = {}
        if volume >= 1:
            outline_path = paths.outline(volume)
            outline = on_use([(outline_path, "VolumeOutline")],
                             lambda c: c.run(partial(_load_outline, outline_path), None, outline_path, "VolumeOutline"),
                             read=True)
            schedule_path = paths.schedule(volume)
            schedule = on_use([(schedule_path, "StorylineSchedule")],
                              lambda c: c.run(partial(_load_schedule, schedule_path), None, schedule_path,
                                              "StorylineSchedule"), read=True)
            contract_files = sorted(_contract_files(paths.volume_dir(volume) / "chapter-contracts").items())
            contracts = on_use([(p, _CONTRACT_KIND + p.suffix) for _, p in contract_files],
                               partial(_contracts, contract_files))

        project = cls(
            root,
            checkpoint=checkpoint,
            state=state,
            foreshadowing=foreshadowing,
            storylines=storylines,
            storyline_spec=storyline_spec,
            world_rules=world_rules,
            characters=characters,
            style_profile=style_profile,
            ai_blacklist=ai_blacklist,
            style_drift=style_drift,
            outline=outline,
            schedule=schedule,
            contracts=contracts,
            has_settings=paths.settings.is_file(),
        )
        records.save()
        return project, c.problems

    # ------------------------------------------------------------------ identity

    @property
    def name(self) -> str:
        """The title in novel-studio.toml (`[project] title`), else the brief's heading, else the folder name."""
        return _settings_title(self.paths.settings) or _brief_title(self.paths.brief) or self.root.resolve().name

    @property
    def has_checkpoint(self) -> bool:
        return self.paths.checkpoint.is_file()

    @property
    def current_volume(self) -> int:
        return _volume_of(self.checkpoint)

    @property
    def last_completed_chapter(self) -> int:
        value = getattr(self.checkpoint, "last_completed_chapter", 0)
        return int(value or 0)

    # ------------------------------------------------------------------ lazy accessors

    def committed_chapters(self) -> list[int]:
        """Chapter numbers present in chapters/ (from the folder listing; no file is opened)."""
        return sorted(self.committed_chapter_files())

    def committed_chapter_files(self) -> dict[int, Path]:
        """The chapter files of chapters/ by number, as listed (`studio.paths.numbered_files`), listed once."""
        if self._committed is None:
            self._committed = numbered_files(self.paths.root / "chapters", _CHAPTER_NAME)
        return dict(self._committed)

    def chapter_file(self, n: int) -> Path:
        return self.paths.chapter(n)

    def chapter_text(self, n: int) -> str | None:
        """The committed text of chapter `n`, or None when it has no file. Not UTF-8 -> FormatError."""
        path = self.paths.chapter(n)
        if not path.is_file():
            return None
        return read_text(path)

    def summary(self, n: int) -> str | None:
        path = self.paths.summary(n)
        if not path.is_file():
            return None
        return read_text(path)

    def last_summaries(self, k: int = 3) -> list[tuple[int, str]]:
        """The summaries of the last `k` committed chapters that have one, oldest first."""
        out: list[tuple[int, str]] = []
        if k <= 0:
            return out
        for n in reversed(self.committed_chapters()):
            text = self.summary(n)
            if text is not None:
                out.append((n, text))
                if len(out) >= k:
                    break
        out.reverse()
        return out

    def evaluation_files(self) -> dict[int, Path]:
        return numbered_files(self.paths.root / "evaluations", EVALUATION_FILE)

    def log_files(self) -> dict[int, Path]:
        return numbered_files(self.paths.root / "logs", _LOG_NAME)

    def evaluation(self, n: int) -> Evaluation | None:
        if n not in self._evaluations:
            from studio.models.evaluation import Evaluation

            path = self.paths.evaluation(n)
            self._evaluations[n] = Evaluation.load(path) if path.is_file() else None
        return self._evaluations[n]

    def log(self, n: int) -> PipelineLog | None:
        if n not in self._logs:
            from studio.models.pipeline_log import PipelineLog

            path = self.paths.log(n)
            self._logs[n] = PipelineLog.load(path) if path.is_file() else None
        return self._logs[n]

    def contract(self, n: int, volume: int | None = None) -> ChapterContract | None:
        """The chapter contract of chapter `n` (current volume unless told otherwise)."""
        vol = self.current_volume if volume is None else volume
        if vol == self.current_volume and n in self.contracts:
            return self.contracts[n]
        if vol < 1:
            return None
        path = self.paths.contract(vol, n)
        if not path.is_file():
            path = path.with_suffix(".md")
        return _load_contract(path, n) if path.is_file() else None

    def notices(
        self,
        *,
        lang: Lang | None = None,
        category_only: Sequence[tuple[str, str]] | None = None,
        foreign_changelog: bool | None = None,
    ) -> list[Problem]:
        """What was read with a caveat, each naming its file (and line): nothing here stops the project from
        opening or writing, but the author should know. Reads the changelog (not at open: cold start stays fast)
        unless the caller knows it holds no other tool's line (`foreign_changelog=False`: `status`, from the
        changelog's facts, `studio.coldstart.ChangelogFacts`)."""
        lang = lang or _lang()
        out: list[Problem] = []
        cp = self.checkpoint
        step = getattr(cp, "quick_start_step", None)
        if cp.orchestrator_state == OrchestratorState.QUICK_START and step is not None:
            out.append(Problem(self.paths.checkpoint, tr(MESSAGES, "quick_start", lang, step=step), json_path="$.quick_start_step"))
        if foreign_changelog is not False:
            out += _foreign_changelog_notices(self.paths.changelog, lang)
        if category_only is None:  # `status` passes its cached copy of the blacklist's answer
            category_only = self.ai_blacklist.category_only_words()
        for where, word in category_only:
            out.append(Problem(self.paths.ai_blacklist, tr(MESSAGES, "category_only", lang, word=word), json_path=where))
        return out

    # ------------------------------------------------------------------ full check

    def validate_all(self, *, include_text: bool = False) -> list[Problem]:
        """Every problem of the project: the cold-start files again, plus every evaluation and log file.

        With `include_text`, every chapter and summary is also checked to be UTF-8 (reads all text).
        """
        return validate_project(self.root, include_text=include_text)


_CONTRACT_KIND = "ChapterContract"  # a contract's record kind, with its file's suffix (.json, or the plugin's .md)


class _Model(Generic[M]):
    """A file-format model named by its module, imported on first use (`studio.project`'s rule: a part loaded
    later builds its model only then)."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name  # the class, and the kind its files are recorded as (`studio.validated_files`)

    def get(self) -> type[M]:
        model: type[M] = getattr(importlib.import_module(self.module), self.name)
        return model


_STORYLINES: _Model[Storylines] = _Model("studio.models.storylines", "Storylines")
_AI_BLACKLIST: _Model[AiBlacklist] = _Model("studio.models.blacklist", "AiBlacklist")
_STORYLINE_SPEC: _Model[StorylineSpec] = _Model("studio.models.storyline_spec", "StorylineSpec")
_WORLD_RULES: _Model[WorldRules] = _Model("studio.models.world_rules", "WorldRules")
_STYLE_PROFILE: _Model[StyleProfile] = _Model("studio.models.style_profile", "StyleProfile")
_STYLE_DRIFT: _Model[StyleDrift] = _Model("studio.models.style_drift", "StyleDrift")


def _optional_file(model: _Model[M], path: Path, c: _Collector) -> M:
    """One optional file of `model`'s format (missing: the model's defaults; broken: its problems collected
    and the defaults), recorded as validated under the model's name."""
    cls = model.get()
    return c.run(lambda: cls.load_or_default(path), cls(), path, model.name)


def _characters(files: list[Path], c: _Collector) -> dict[str, CharacterFile]:
    """The active characters by file stem (a file with a problem is left out, its problem collected)."""
    from studio.models.character import CharacterFile

    characters: dict[str, CharacterFile] = {}
    for path in files:
        loaded = c.run(partial(CharacterFile.load, path), None, path, "CharacterFile")
        if loaded is not None:
            characters[path.stem] = loaded
    return characters


def _contracts(files: list[tuple[int, Path]], c: _Collector) -> dict[int, ChapterContract]:
    """The current volume's chapter contracts by chapter (a file with a problem is left out)."""
    contracts: dict[int, ChapterContract] = {}
    for n, path in files:
        contract = c.run(partial(_load_contract, path, n), None, path, _CONTRACT_KIND + path.suffix)
        if contract is not None:
            contracts[n] = contract
    return contracts


def _contract_files(folder: Path) -> dict[int, Path]:
    """Chapter contracts by chapter: `chapter-NNN.json`, else the plugin's Markdown `chapter-NNN.md`."""
    return {**numbered_files(folder, _CONTRACT_MD_NAME), **numbered_files(folder, _CONTRACT_NAME)}


def _load_contract(path: Path, chapter: int) -> ChapterContract:
    if path.suffix == ".md":
        from studio.contract_markdown import load_contract_markdown

        return load_contract_markdown(path, chapter)
    from studio.models.contract import ChapterContract

    return ChapterContract.load(path)


def _has_foreign_lines(path: Path) -> bool:
    """Whether any changelog line is another tool's, by the model's own rule on the parsed line, without
    validating every entry (a 500-chapter log costs a few ms here instead of a pydantic pass). A line that is
    not JSON answers True: the full read below then decides (and reports nothing for a broken log)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return False
    except OSError:
        return True  # the full read reports it
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            return True
        if ChangelogEntry.is_foreign_data(data):
            return True
    return False


def _foreign_changelog_notices(path: Path, lang: Lang) -> list[Problem]:
    """One notice per run of consecutive changelog lines written by another tool."""
    if not _has_foreign_lines(path):
        return []
    try:
        entries = load_changelog(path)
    except FormatError:
        return []  # a broken log is reported by the state checks, not as a caveat
    except OSError as exc:
        return [Problem(path, tr(MESSAGES, "changelog_unreadable", lang, error=exc.strerror or exc))]
    if not any(e.kind == "foreign" for e in entries):
        return []
    # load_changelog skips blank lines; map entries back to their line numbers
    numbers = [n for n, line in enumerate(read_text(path).split("\n"), start=1) if line.strip()]
    runs: list[list[int]] = []
    for index, entry in enumerate(entries):
        if entry.kind != "foreign":
            continue
        lineno = numbers[index]
        if runs and runs[-1][-1] == numbers[index - 1] and entries[index - 1].kind == "foreign":
            runs[-1].append(lineno)
        else:
            runs.append([lineno])
    return [
        Problem(path, tr(MESSAGES, "foreign_lines", lang, first=run[0], last=run[-1], n=len(run)), line=run[0])
        for run in runs
    ]


def _volume_of(checkpoint: Checkpoint) -> int:
    value = getattr(checkpoint, "current_volume", 1)
    try:
        volume = int(value or 0)
    except (TypeError, ValueError):
        return 1
    return volume if volume >= 1 else 1


def _cross_reference_problems(project: Project, lang: Lang) -> list[Problem]:
    """Problems that do not stop a project from opening (an unknown storyline type, a duplicate id...)."""
    out: list[Problem] = []
    paths = project.paths
    out += [p.at(paths.storylines) for p in project.storylines.problems()]
    out += [p.at(paths.world_rules) for p in project.world_rules.problems()]
    for slug, character in project.characters.items():
        path = paths.characters_active / f"{slug}.json"
        if not is_slug(slug):
            out.append(Problem(path, tr(MESSAGES, "file_not_slug", lang, slug=slug)))
        out += [p.at(path) for p in character.problems(slug)]
    if project.schedule is not None:
        out += [p.at(paths.schedule(project.current_volume)) for p in project.schedule.problems(project.storylines)]
    return out


def validate_project(root: Path, *, include_text: bool = False, lang: Lang | None = None) -> list[Problem]:
    """All problems of the project at `root`, without raising for them (a missing project still raises)."""
    lang = lang or _lang()
    project, problems = Project._load(Path(root), lang)
    assert project is not None
    c = _Collector(lang)
    from studio.models.evaluation import Evaluation
    from studio.models.pipeline_log import PipelineLog

    for path in sorted(project.evaluation_files().values()):
        c.run(partial(Evaluation.load, path), None, path)
    for path in sorted(project.log_files().values()):
        c.run(partial(PipelineLog.load, path), None, path)
    # the checks' files (issue 8): read by `check` and after each commit, which skip a broken one quietly
    from studio.models.check_allow import CheckAllowList
    from studio.models.names import NamesFile

    for path, model in ((project.paths.names, NamesFile), (project.paths.check_allow, CheckAllowList)):
        if path.is_file():
            c.run(partial(model.load, path), None, path)
    for problem in _cross_reference_problems(project, c.lang):
        c.problems.append(problem)
    if include_text:
        for n in project.committed_chapters():
            for path in (project.paths.chapter(n), project.paths.summary(n)):
                if path.is_file():
                    c.run(partial(read_text, path), "", path)
    return problems + c.problems


__all__ = ["PROJECT_MARKERS", "Project", "is_project", "validate_project"]
