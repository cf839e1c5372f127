"""Prompt templates: one Markdown file per prompt id and version, loaded and checked once.

File name: ``<id>.v<N>.md`` (``chapter-writer.v1.md``). Other ``*.md`` files in the folder are ignored.

File layout::

    ---
    id: chapter-writer
    version: 1
    description: one line for humans
    output: markdown            # markdown | json | text (what the reply is expected to be)
    variables: [a, b, c]        # every placeholder the body uses, in the order the caller should think of them
    optional: [c]               # subset of variables that may be omitted (rendered as "") or empty
    ---
    <!-- cache: stable -->
    ...agent instructions, style profile, blacklist, L1 rules...
    <!-- cache: volume -->
    ...volume-level context...
    <!-- cache: chapter -->
    ...per-call context...

Front matter is parsed by a tiny parser (``key: value`` lines, ``[a, b]`` lists, ``#`` comments): no YAML
dependency. Unknown keys are an error so that a typo cannot silently drop a declaration.

Cache tiers. The body is cut into sections at marker lines ``<!-- cache: TIER -->``. Tiers, from the most to
the least stable, are ``stable`` (byte-stable for a whole volume: instructions, style, blacklist, L1 rules),
``volume`` (changes a few times per volume) and ``chapter`` (changes on every call). Each tier appears at most
once and in that order, so a provider can place a cache breakpoint at the end of every section but the last.
Text before the first marker belongs to ``stable``. Section text is stripped of surrounding blank lines.

Placeholders. ``{name}`` where ``name`` matches ``[a-z_][a-z0-9_]*`` is a variable. Every other brace is
literal, so JSON examples in a template need no escaping (``{"summary": "..."}`` and ``{}`` are left alone).
To write a literal ``{name}`` into a prompt, double it: ``{{name}}`` renders as ``{name}``. Substitution is a
single pass: a value that itself contains ``{x}`` is inserted verbatim and never re-expanded.

Load-time checks (each names the file and the variable): a declared variable that the body never uses, a
placeholder that is not declared, an optional variable that is not declared, an id/version that disagrees with
the file name, an unknown tier, tiers out of order.

Pinned versions (issue 9 item 8). A registry may carry a project's pins (`with_pins`): `get(id)` then returns
the pinned version, never a newer one, and a pinned version whose file is gone raises PinnedPromptMissingError
with the way out. `project_registry(root)` is the one place every prompt-building path gets its registry for a
project: it pins a project that has no pins yet (`ensure_pins`, see `studio.prompt_pins`) and checks every pin
before anything is sent. `latest(id)` is the newest installed version whatever the pins say.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from studio import prompt_pins
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, env_lang, tr
from studio.paths import ProjectPaths
from studio.prompt_pins import PROMPT_FILE_NAME, first_pins, missing_ids, read_pins, write_pins

__all__ = [
    "CACHE_TIERS",
    "PinOutcome",
    "PinnedPromptMissingError",
    "PromptNotFoundError",
    "PromptRegistry",
    "PromptRenderError",
    "PromptTemplate",
    "PromptTemplateError",
    "RenderedSection",
    "SectionChange",
    "ensure_pins",
    "installed_registry",
    "pin_notice",
    "join_sections",
    "parse_template",
    "project_registry",
    "section_changes",
]

CACHE_TIERS: tuple[str, ...] = ("stable", "volume", "chapter")
OUTPUT_KINDS: frozenset[str] = frozenset({"markdown", "json", "text"})

_FILE_NAME = PROMPT_FILE_NAME
DIFF_LINES = 40  # lines of unified diff shown per changed section by `prompts upgrade`

MESSAGES: Catalog = {
    "first_pin": (
        "本项目首次固定了提示词版本（novel-studio.toml 的 [prompts]）：共 {n} 个，{logs} 个沿用最近章节记录里的"
        "版本，{latest} 个取已安装的最新版本。以后有新版本不会自动启用：novel-studio prompts list 查看，"
        "novel-studio prompts upgrade 升级",
        "This project's prompt versions are now pinned ([prompts] in novel-studio.toml): {n} prompts, {logs} at "
        "the versions its latest chapter logs record, {latest} at the latest installed version. A newer version "
        "is never used without you: see novel-studio prompts list, upgrade with novel-studio prompts upgrade",
    ),
    "new_pins": (
        "新增的提示词已固定为最新版本（novel-studio.toml 的 [prompts]）：{names}",
        "New prompts pinned at their latest version ([prompts] in novel-studio.toml): {names}",
    ),
    "comments_lost": (
        "（[prompts] 不是以表格形式写的，novel-studio.toml 已整体重写，原有注释丢失）",
        " ([prompts] was not written as a table, so novel-studio.toml was rewritten whole and its comments "
        "were lost)",
    ),
    "pin_missing": (
        "本项目在 novel-studio.toml 的 [prompts] 里固定使用提示词 {id} 的 v{version}，但找不到文件 "
        "prompts/{id}.v{version}.md（已安装的版本：{known}）。运行 novel-studio prompts upgrade {id} "
        "改用已安装的最新版本，或者恢复这个文件",
        "This project pins prompt {id} at v{version} ([prompts] in novel-studio.toml), but "
        "prompts/{id}.v{version}.md is not installed (installed: {known}). Run novel-studio prompts upgrade "
        "{id} to pin the latest installed version, or restore the file",
    ),
}
_IDENT = r"[a-z_][a-z0-9_]*"
_IDENT_RE = re.compile(rf"^{_IDENT}$")
# Group 1: an escaped literal ``{{name}}``; group 2: a placeholder ``{name}``.
_PLACEHOLDER = re.compile(rf"\{{\{{({_IDENT})\}}\}}|\{{({_IDENT})\}}")
_MARKER = re.compile(r"^[ \t]*<!--[ \t]*cache:[ \t]*(?P<tier>[A-Za-z_-]*)[ \t]*-->[ \t]*$", re.MULTILINE)
_FRONT_KEYS = frozenset({"id", "version", "description", "output", "variables", "optional"})


class PromptTemplateError(StudioError):
    """A template file that cannot be used; the message names the file and, where it applies, the variable."""


class PromptRenderError(PromptTemplateError):
    """Rendering was asked with a missing required variable or an unknown one."""


class PromptNotFoundError(PromptTemplateError):
    """No template with that id (and version)."""


class PinnedPromptMissingError(PromptNotFoundError):
    """The project pins a version whose file is not installed; the message says how to get out."""

    def __init__(self, template_id: str, version: int, known: Iterable[int]) -> None:
        names = ", ".join(f"v{v}" for v in sorted(known)) or "-"
        super().__init__(tr(MESSAGES, "pin_missing", env_lang() or "zh", id=template_id, version=version, known=names))
        self.template_id = template_id
        self.version = version


@dataclass(frozen=True)
class RenderedSection:
    """One rendered section of a prompt and its cache tier."""

    tier: str
    text: str


@dataclass(frozen=True)
class PromptTemplate:
    id: str
    version: int
    variables: tuple[str, ...]
    optional: frozenset[str]
    sections: list[tuple[str, str]]
    description: str = ""
    output: str = "text"
    source: str = ""
    required: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "required", frozenset(self.variables) - self.optional)

    @property
    def key(self) -> str:
        """``id@vN``, the name logs and pipeline records use."""
        return f"{self.id}@v{self.version}"

    def render(self, values: Mapping[str, str]) -> list[RenderedSection]:
        """Substitute the variables into every section, keeping section order and tiers.

        A missing required variable or a key the template does not declare raises PromptRenderError; an omitted
        optional variable renders as the empty string. Values must be strings (the caller serialises JSON).
        """
        declared = set(self.variables)
        unknown = sorted(set(values) - declared)
        if unknown:
            raise PromptRenderError(f"{self.source or self.key}: unknown variable(s) {', '.join(unknown)}")
        missing = sorted(self.required - set(values))
        if missing:
            raise PromptRenderError(
                f"{self.source or self.key}: missing required variable(s) {', '.join(missing)}"
            )
        for name, value in values.items():
            if not isinstance(value, str):
                raise PromptRenderError(
                    f"{self.source or self.key}: variable {name} must be a str, got {type(value).__name__}"
                )

        def substitute(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                return "{" + match.group(1) + "}"
            return values.get(match.group(2), "")

        return [RenderedSection(tier, _PLACEHOLDER.sub(substitute, text)) for tier, text in self.sections]

    def render_text(self, values: Mapping[str, str]) -> str:
        """The whole prompt as one string (sections joined by a blank line)."""
        return join_sections(self.render(values))


def join_sections(sections: Iterable[RenderedSection]) -> str:
    return "\n\n".join(s.text for s in sections if s.text)


def _parse_list(raw: str, source: str, key: str) -> list[str]:
    raw = raw.strip()
    if not (raw.startswith("[") and raw.endswith("]")):
        raise PromptTemplateError(f"{source}: front matter '{key}' must be a list like [a, b]")
    items = [item.strip() for item in raw[1:-1].split(",")]
    if items == [""]:
        return []
    if any(not item for item in items):
        raise PromptTemplateError(f"{source}: front matter '{key}' has an empty item")
    return items


def _parse_front_matter(lines: list[str], source: str) -> dict[str, str]:
    data: dict[str, str] = {}
    for number, line in enumerate(lines, start=2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, sep, value = stripped.partition(":")
        key = key.strip()
        if not sep or not key:
            raise PromptTemplateError(f"{source}:{number}: front matter line is not 'key: value'")
        if key not in _FRONT_KEYS:
            raise PromptTemplateError(f"{source}:{number}: unknown front matter key '{key}'")
        if key in data:
            raise PromptTemplateError(f"{source}:{number}: front matter key '{key}' given twice")
        # A trailing comment after a scalar value ("output: json  # ...") is dropped.
        if key not in ("description",) and " #" in value:
            value = value.split(" #", 1)[0]
        data[key] = value.strip()
    return data


def _split_sections(body: str, source: str) -> list[tuple[str, str]]:
    sections: list[tuple[str, str]] = []
    markers = list(_MARKER.finditer(body))
    head = body[: markers[0].start()] if markers else body
    if head.strip():
        sections.append(("stable", head.strip("\n")))
    for i, marker in enumerate(markers):
        tier = marker.group("tier")
        if tier not in CACHE_TIERS:
            raise PromptTemplateError(
                f"{source}: unknown cache tier '{tier}' (expected one of {', '.join(CACHE_TIERS)})"
            )
        end = markers[i + 1].start() if i + 1 < len(markers) else len(body)
        text = body[marker.end() : end].strip("\n")
        if sections and CACHE_TIERS.index(tier) <= CACHE_TIERS.index(sections[-1][0]):
            raise PromptTemplateError(
                f"{source}: cache tier '{tier}' after '{sections[-1][0]}': tiers must appear once each, "
                f"in the order {' -> '.join(CACHE_TIERS)}"
            )
        sections.append((tier, text))
    if not sections:
        raise PromptTemplateError(f"{source}: template has no body")
    return sections


def _used_placeholders(sections: list[tuple[str, str]]) -> list[str]:
    used: list[str] = []
    for _, text in sections:
        for match in _PLACEHOLDER.finditer(text):
            name = match.group(2)
            if name is not None and name not in used:
                used.append(name)
    return used


def parse_template(
    text: str, source: str, *, expected_id: str | None = None, expected_version: int | None = None
) -> PromptTemplate:
    """Parse and validate one template file's text. ``source`` names the file in every error."""
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise PromptTemplateError(f"{source}: missing front matter (the file must start with a '---' line)")
    try:
        close = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise PromptTemplateError(f"{source}: front matter is not closed by a '---' line") from None
    front = _parse_front_matter(lines[1:close], source)
    body = "\n".join(lines[close + 1 :])

    for key in ("id", "version", "variables"):
        if key not in front:
            raise PromptTemplateError(f"{source}: front matter lacks '{key}'")
    template_id = front["id"]
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", template_id):
        raise PromptTemplateError(f"{source}: id '{template_id}' is not a slug")
    if not re.fullmatch(r"[1-9][0-9]*", front["version"]):
        raise PromptTemplateError(f"{source}: version '{front['version']}' is not a positive integer")
    version = int(front["version"])
    if expected_id is not None and template_id != expected_id:
        raise PromptTemplateError(
            f"{source}: id '{template_id}' does not match the file name ('{expected_id}')"
        )
    if expected_version is not None and version != expected_version:
        raise PromptTemplateError(
            f"{source}: version {version} does not match the file name (v{expected_version})"
        )
    output = front.get("output", "text")
    if output not in OUTPUT_KINDS:
        raise PromptTemplateError(
            f"{source}: output '{output}' is not one of {', '.join(sorted(OUTPUT_KINDS))}"
        )

    variables = _parse_list(front["variables"], source, "variables")
    optional = _parse_list(front.get("optional", "[]"), source, "optional")
    for name in [*variables, *optional]:
        if not _IDENT_RE.match(name):
            raise PromptTemplateError(f"{source}: variable name '{name}' is not [a-z_][a-z0-9_]*")
    seen: set[str] = set()
    for name in variables:
        if name in seen:
            raise PromptTemplateError(f"{source}: variable '{name}' declared twice")
        seen.add(name)
    for name in optional:
        if name not in seen:
            raise PromptTemplateError(f"{source}: optional variable '{name}' is not declared in variables")

    sections = _split_sections(body, source)
    used = _used_placeholders(sections)
    for name in used:
        if name not in seen:
            raise PromptTemplateError(
                f"{source}: placeholder {{{name}}} is used but not declared in variables"
            )
    for name in variables:
        if name not in used:
            raise PromptTemplateError(f"{source}: variable '{name}' is declared but never used in the body")

    return PromptTemplate(
        id=template_id,
        version=version,
        variables=tuple(variables),
        optional=frozenset(optional),
        sections=sections,
        description=front.get("description", ""),
        output=output,
        source=source,
    )


class PromptRegistry:
    """All templates of one folder, indexed by id and version."""

    def __init__(self, templates: Iterable[PromptTemplate] = (), *, pins: Mapping[str, int] | None = None) -> None:
        self._pins: dict[str, int] = dict(pins or {})
        self._by_id: dict[str, dict[int, PromptTemplate]] = {}
        for template in templates:
            versions = self._by_id.setdefault(template.id, {})
            if template.version in versions:
                raise PromptTemplateError(
                    f"{template.source}: {template.key} already loaded from {versions[template.version].source}"
                )
            versions[template.version] = template

    @classmethod
    def load(cls, folder: Path | Traversable | None = None) -> PromptRegistry:
        """Load every ``*.vN.md`` of ``folder`` (default: the installed ``prompts`` package)."""
        root: Path | Traversable = resources.files("prompts") if folder is None else folder
        templates: list[PromptTemplate] = []
        entries = sorted((e for e in root.iterdir() if e.is_file()), key=lambda e: e.name)
        for entry in entries:
            match = _FILE_NAME.match(entry.name)
            if match is None:
                continue
            source = str(entry) if isinstance(entry, Path) else f"prompts/{entry.name}"
            try:
                text = entry.read_bytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise PromptTemplateError(f"{source}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
            templates.append(
                parse_template(
                    text, source, expected_id=match.group("id"), expected_version=int(match.group("version"))
                )
            )
        return cls(templates)

    def with_pins(self, pins: Mapping[str, int]) -> PromptRegistry:
        """The same templates, with `get(id)` answering the pinned versions (unpinned ids: the latest)."""
        pinned = PromptRegistry(pins=pins)
        pinned._by_id = self._by_id
        return pinned

    @property
    def pins(self) -> dict[str, int]:
        return dict(self._pins)

    def missing_pins(self) -> list[tuple[str, int]]:
        """(id, version) of every pin whose template is not loaded."""
        return [(pid, v) for pid, v in sorted(self._pins.items()) if v not in self._by_id.get(pid, {})]

    def check_pins(self) -> None:
        """Raise PinnedPromptMissingError for the first pin whose file is gone."""
        for pid, version in self.missing_pins():
            raise PinnedPromptMissingError(pid, version, self._by_id.get(pid, {}))

    def latest(self, template_id: str) -> PromptTemplate:
        """The newest loaded version, whatever the pins say."""
        versions = self._by_id.get(template_id)
        if not versions:
            raise PromptNotFoundError(f"no prompt template '{template_id}' (known: {', '.join(self.ids())})")
        return versions[max(versions)]

    def ids(self) -> list[str]:
        return sorted(self._by_id)

    def versions(self, template_id: str) -> list[int]:
        return sorted(self._by_id.get(template_id, {}))

    def __contains__(self, template_id: object) -> bool:
        return template_id in self._by_id

    def __iter__(self) -> Iterator[PromptTemplate]:
        for template_id in self.ids():
            yield from (self._by_id[template_id][v] for v in self.versions(template_id))

    def get(self, template_id: str, version: int | None = None) -> PromptTemplate:
        """The template ``template_id`` at ``version``; when ``version`` is None, the pinned version (a pin
        whose file is gone raises PinnedPromptMissingError), else the latest."""
        pinned = self._pins.get(template_id)
        if version is None and pinned is not None:
            versions = self._by_id.get(template_id, {})
            if pinned not in versions:
                raise PinnedPromptMissingError(template_id, pinned, versions)
            return versions[pinned]
        versions = self._by_id.get(template_id, {})
        if not versions:
            raise PromptNotFoundError(f"no prompt template '{template_id}' (known: {', '.join(self.ids())})")
        if version is None:
            return versions[max(versions)]
        if version not in versions:
            known = ", ".join(f"v{v}" for v in sorted(versions))
            raise PromptNotFoundError(f"no version v{version} of prompt '{template_id}' (known: {known})")
        return versions[version]


# ----------------------------------------------------------------------------------------- project pins


@lru_cache(maxsize=4)
def _load(folder: Path | None) -> PromptRegistry:
    return PromptRegistry.load(folder)


def installed_registry() -> PromptRegistry:
    """The installed prompts (`studio.prompt_pins.PROMPTS_FOLDER`), loaded and checked once per process (no
    pins)."""
    return _load(prompt_pins.PROMPTS_FOLDER)


@dataclass(frozen=True)
class PinOutcome:
    """What `ensure_pins` found or wrote. `first`: the project had no pins and was pinned now; `from_logs`:
    the part of those first pins read from its chapter logs; `added`: prompts newly pinned at their latest
    version (a first pin's others, or prompts a newer novel-studio added)."""

    pins: dict[str, int]
    first: bool = False
    from_logs: dict[str, int] = field(default_factory=dict)
    added: dict[str, int] = field(default_factory=dict)
    comments_lost: bool = False

    @property
    def wrote(self) -> bool:
        return self.first or bool(self.added)


def _installed(registry: PromptRegistry) -> dict[str, list[int]]:
    return {pid: registry.versions(pid) for pid in registry.ids()}


def ensure_pins(root: Path, registry: PromptRegistry | None = None, *, write: bool = True) -> PinOutcome:
    """Pin a project that has no `[prompts]` table yet to what it has been using (its chapter logs, else the
    latest), and pin prompts it has never pinned at their latest version. Writes only when something is new,
    and never with `write=False` (a read-only preview gets the pins a run would write)."""
    registry = registry or installed_registry()
    paths = ProjectPaths(Path(root))
    installed = _installed(registry)
    pins = read_pins(paths)
    if pins is None:
        first, from_logs = first_pins(paths, installed)
        lost = write_pins(paths, first).comments_lost if write else False
        added = {pid: v for pid, v in first.items() if pid not in from_logs}
        return PinOutcome(first, first=True, from_logs=from_logs, added=added, comments_lost=lost)
    new = missing_ids(pins, installed)
    if not new:
        return PinOutcome(pins)
    merged = {**pins, **new}
    lost = write_pins(paths, merged).comments_lost if write else False
    return PinOutcome(merged, added=new, comments_lost=lost)


def pin_notice(outcome: PinOutcome, lang: Lang = "zh") -> str | None:
    """What the author is told once, when `ensure_pins` wrote something; None when it wrote nothing."""
    if not outcome.wrote:
        return None
    if outcome.first:
        text = tr(MESSAGES, "first_pin", lang, n=len(outcome.pins), logs=len(outcome.from_logs),
                  latest=len(outcome.pins) - len(outcome.from_logs))
    else:
        names = ", ".join(f"{pid} v{v}" for pid, v in sorted(outcome.added.items()))
        text = tr(MESSAGES, "new_pins", lang, names=names)
    if outcome.comments_lost:
        text += tr(MESSAGES, "comments_lost", lang)
    return text


def project_registry(root: Path, registry: PromptRegistry | None = None, *, write: bool = True) -> PromptRegistry:
    """The registry every prompt of the project at `root` is built from: pinned (pinning the project first if
    it has no pins) and checked, so a pinned file that is gone stops the run before any call."""
    registry = registry or installed_registry()
    outcome = ensure_pins(root, registry, write=write)
    pinned = registry.with_pins(outcome.pins)
    pinned.check_pins()
    return pinned


@dataclass(frozen=True)
class SectionChange:
    """One cache tier of a prompt that differs between two versions, with a short unified diff."""

    tier: str
    diff: list[str]
    truncated: int = 0  # diff lines left out


def section_changes(old: PromptTemplate, new: PromptTemplate, *, max_lines: int = DIFF_LINES) -> list[SectionChange]:
    """The tiers whose template text differs between `old` and `new` (declared variables count as a change of
    the `variables` pseudo-tier), each with at most `max_lines` lines of diff."""
    changes: list[SectionChange] = []
    if old.variables != new.variables:
        changes.append(SectionChange("variables", [f"- {', '.join(old.variables)}", f"+ {', '.join(new.variables)}"]))
    before, after = dict(old.sections), dict(new.sections)
    for tier in CACHE_TIERS:
        a, b = before.get(tier, ""), after.get(tier, "")
        if a == b:
            continue
        lines = [
            line.rstrip("\n")
            for line in difflib.unified_diff(
                a.splitlines(), b.splitlines(), f"{old.key} {tier}", f"{new.key} {tier}", n=1, lineterm=""
            )
        ]
        changes.append(SectionChange(tier, lines[:max_lines], max(0, len(lines) - max_lines)))
    return changes
