"""Chapter ids, entity slugs and volume ids: the only places where names become paths."""

from __future__ import annotations

import re
from pathlib import Path

from studio.errors import UnsafeIdError

_SLUG = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_CHAPTER = re.compile(r"^chapter-(\d{3,})$")
_VOLUME = re.compile(r"^vol-(\d{2,})$")


def chapter_id(n: int) -> str:
    """`chapter-{n:03d}`; keeps working past 999 (`chapter-1000`)."""
    if n < 1:
        raise UnsafeIdError(f"chapter number must be >= 1, got {n}")
    return f"chapter-{n:03d}"


def parse_chapter_id(text: str) -> int:
    m = _CHAPTER.match(text)
    if not m:
        raise UnsafeIdError(f"not a chapter id: {text!r} (expected chapter-NNN)")
    return int(m.group(1))


def volume_id(n: int) -> str:
    if n < 1:
        raise UnsafeIdError(f"volume number must be >= 1, got {n}")
    return f"vol-{n:02d}"


def parse_volume_id(text: str) -> int:
    m = _VOLUME.match(text)
    if not m:
        raise UnsafeIdError(f"not a volume id: {text!r} (expected vol-NN)")
    return int(m.group(1))


def is_slug(text: str) -> bool:
    return bool(_SLUG.match(text))


def check_slug(text: str, what: str = "id") -> str:
    """Return `text` if it is a safe slug (lowercase ASCII, digits, '-' or '_'); raise otherwise.

    Underscores are accepted because the seeds' own examples use them (`ancient_prophecy`, `jinghai_plan`).
    Anything with '/', '..', whitespace, upper case or non-ASCII is rejected: ids become file names.
    """
    if not isinstance(text, str) or not text:
        raise _unsafe(f"{what} is empty", "id 不能为空")
    if "/" in text or "\\" in text or ".." in text or text.startswith("."):
        raise _unsafe(f"{what} {text!r} could leave the project folder", f"id {text!r} 可能指向项目文件夹之外")
    if not _SLUG.match(text):
        raise _unsafe(
            f"{what} {text!r} is not a slug (lowercase letters, digits and hyphens, e.g. lin-feng)",
            f"id {text!r} 不是合规的 slug（只能用小写字母、数字和连字符，例如 lin-feng）",
        )
    return text


def _unsafe(en: str, zh: str) -> UnsafeIdError:
    """The error in both languages (`StudioError.zh`): a model's validator shows the Chinese one to the author."""
    error = UnsafeIdError(en)
    error.zh = zh
    return error


def safe_join(root: Path, *parts: str) -> Path:
    """Join `parts` under `root` and refuse a result outside it (defence in depth behind check_slug)."""
    for part in parts:
        if not part or Path(part).is_absolute() or ".." in Path(part).parts:
            raise UnsafeIdError(f"path part {part!r} could leave the project folder")
    path = root.joinpath(*parts)
    root_resolved = root.resolve()
    resolved = path.resolve()
    if resolved != root_resolved and root_resolved not in resolved.parents:
        raise UnsafeIdError(f"{path} is outside {root}")
    return path


def slugify(name: str) -> str:
    """A slug from a display name: pinyin for Chinese (林枫 -> lin-feng), lowercase ASCII otherwise."""
    from pypinyin import lazy_pinyin  # local import: only init and model-output repair need it

    # non-Chinese runs are kept as they are ("default" errors mode), then reduced to ASCII below
    words = lazy_pinyin(name, errors="default")
    tokens: list[str] = []
    for word in words:
        token = re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")
        if token:
            tokens.append(token)
    slug = "-".join(tokens)
    slug = re.sub(r"-{2,}", "-", slug)
    if not slug:
        raise UnsafeIdError(f"cannot make a slug from {name!r}")
    return slug
