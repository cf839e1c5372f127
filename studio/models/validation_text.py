"""What the author reads about a file that does not fit its model, in the author's language (issue 11).

Two kinds of problem come from the models:

- pydantic validation errors (a field missing, a number where text belongs, an unknown choice...): rendered by
  their error `type` from `ZH` (Chinese templates filled from the error's `ctx`), where the location is the
  file's field path (`$.contracts[0].rule`, the `Problem`'s `json_path`). English is pydantic's own message,
  which is what every English caller has always shown; a type missing from `ZH` (or a template whose fields
  this pydantic's `ctx` lacks) shows the English message in the Chinese UI too. A `value_error` raised by a
  validator shows the raiser's Chinese text when the exception carries one (`StudioError.zh`, e.g. an unsafe
  id; `value_error(catalog, key)` builds such a `ValueError` from a model's own catalog), else its English text
  behind a Chinese label.
- the models' own cross-reference checks (`problems()` of characters, storylines, world rules, schedules):
  `FieldProblem`s built from the model module's own catalog with both languages; `str()` stays
  `"$.path: English reason"` (logs, the pipeline's repair notes to the model).

`problems_from(exc, path)` is the one conversion of a `ValidationError` into `Problem`s; `FileModel.parse_data`,
the state engine and the settings loader use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from studio.errors import Problem
from studio.i18n import Catalog, Lang, tr

ZH: dict[str, str] = {
    "missing": "缺少必填字段",
    "extra_forbidden": "不允许出现这个字段",
    "json_invalid": "不是有效的 JSON：{error}",
    "json_type": "应为 JSON 文本",
    "string_type": "应为文本（字符串）",
    "string_unicode": "应为有效的文本（无法按 Unicode 解读）",
    "string_too_short": "文本太短：至少要 {min_length} 个字符",
    "string_too_long": "文本太长：最多 {max_length} 个字符",
    "string_pattern_mismatch": "文本格式不对：应匹配 {pattern}",
    "int_type": "应为整数",
    "int_parsing": "应为整数（这段文字无法解读为整数）",
    "int_from_float": "应为整数，不能带小数",
    "int_parsing_size": "整数太大，无法解读",
    "float_type": "应为数字",
    "float_parsing": "应为数字（这段文字无法解读为数字）",
    "finite_number": "应为有限的数字（不能是 NaN 或无穷大）",
    "bool_type": "应为 true 或 false",
    "bool_parsing": "应为 true 或 false（无法解读这个值）",
    "list_type": "应为列表（JSON 数组）",
    "tuple_type": "应为列表（JSON 数组）",
    "set_type": "应为列表（JSON 数组）",
    "dict_type": "应为对象（JSON 对象）",
    "model_type": "应为对象（JSON 对象）",
    "model_attributes_type": "应为对象（JSON 对象）",
    "mapping_type": "应为对象（JSON 对象）",
    "none_required": "应为 null",
    "literal_error": "取值应为以下之一：{expected}",
    "enum": "取值应为以下之一：{expected}",
    "greater_than": "应大于 {gt}",
    "greater_than_equal": "应大于或等于 {ge}",
    "less_than": "应小于 {lt}",
    "less_than_equal": "应小于或等于 {le}",
    "multiple_of": "应为 {multiple_of} 的倍数",
    "too_short": "至少要有 {min_length} 项，实际 {actual_length} 项",
    "too_long": "最多 {max_length} 项，实际 {actual_length} 项",
    "date_type": "应为日期",
    "date_parsing": "应为 YYYY-MM-DD 格式的日期",
    "datetime_type": "应为日期时间",
    "datetime_parsing": "应为有效的日期时间（例如 2026-01-31T20:00:00+08:00）",
    "url_parsing": "应为有效的网址",
    "url_scheme": "网址应以 {expected_schemes} 开头",
    "union_tag_invalid": "类型标记 {tag!r} 不是以下之一：{expected_tags}",
    "union_tag_not_found": "缺少类型标记字段 {discriminator}",
    "recursion_loop": "数据嵌套成环",
    "value_error": "取值不合规：{error}",
    "assertion_error": "取值不合规：{error}",
}


def _ctx_value(value: Any, lang: Lang) -> Any:
    """A ctx value as the template shows it: an exception as its text in `lang`."""
    if isinstance(value, BaseException):
        zh = getattr(value, "zh", "")
        return zh if lang == "zh" and zh else str(value)
    return value


def error_text(err: ErrorDetails | Mapping[str, Any], lang: Lang) -> str:
    """One pydantic error's reason in `lang` (pydantic's English message for English and unknown types)."""
    msg = str(err.get("msg", ""))
    if lang != "zh":
        return msg
    template = ZH.get(str(err.get("type", "")))
    if template is None:
        return msg
    raw = err.get("ctx") or {}
    own = getattr(raw.get("error"), "zh", "")
    if err.get("type") in ("value_error", "assertion_error") and own:
        return str(own)  # the raiser's own Chinese sentence needs no label
    ctx = {k: _ctx_value(v, lang) for k, v in raw.items()}
    try:
        return template.format(**ctx)
    except (KeyError, IndexError, ValueError):  # a ctx this pydantic does not give: English still reads
        return msg


class LocalizedValueError(ValueError):
    """A validator's `ValueError` that also carries its Chinese text (`zh`, which `error_text` shows)."""

    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.zh = zh


def value_error(catalog: Catalog, key: str, /, **params: object) -> LocalizedValueError:
    """The error a model validator raises, `catalog[key]` in both languages."""
    return LocalizedValueError(tr(catalog, key, "en", **params), tr(catalog, key, "zh", **params))


def json_path(loc: Sequence[int | str]) -> str:
    """Render a pydantic error location as a JSON path: ('stages', 0, 'name') -> '$.stages[0].name'."""
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def problems_from(
    exc: ValidationError, path: Path | str, *, prefix: Sequence[int | str] = (), line: int | None = None
) -> list[Problem]:
    """Every error of `exc` as a `Problem` at its field path (after `prefix`), English and Chinese."""
    return [
        Problem(
            path,
            error_text(err, "en"),
            json_path=json_path((*prefix, *err["loc"])),
            line=line,
            zh=error_text(err, "zh"),
        )
        for err in exc.errors()
    ]


@dataclass(frozen=True)
class FieldProblem:
    """A model's cross-reference problem: where in the file (`json_path`) and why, in both languages."""

    json_path: str
    reason: str
    zh: str

    def text(self, lang: Lang) -> str:
        return self.zh if lang == "zh" else self.reason

    def at(self, path: Path | str) -> Problem:
        """The problem as found in the file at `path`."""
        return Problem(path, self.reason, json_path=self.json_path, zh=self.zh)

    def __str__(self) -> str:
        return f"{self.json_path}: {self.reason}"


def field_problem(catalog: Catalog, key: str, json_path: str, /, **params: object) -> FieldProblem:
    """A `FieldProblem` whose reason is `catalog[key]` rendered in both languages."""
    return FieldProblem(json_path, tr(catalog, key, "en", **params), tr(catalog, key, "zh", **params))
