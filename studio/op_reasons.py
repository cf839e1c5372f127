"""Why a state op was dropped or noted (`OpWarning`, issue 11): one catalog, Chinese by default, English on request.

Stored form (the changelog's `warnings`, `studio.models.changelog.OpWarning`): `reason` is the English text, as
every line has always held it (older lines and other tools read only that), plus `code` (a key of `REASONS`) and
`params` (plain JSON: the path, the value, ...). The text the author sees is rendered at display time from the
code and params in the author's language (`reason_text`); a warning without a code (older lines) shows its
stored `reason`, and so does one whose code or params this version does not know.

Templates use `str.format` fields; `{x!r}` quotes a path or value as Python shows it (the English wording of
the stored `reason` is unchanged from before the catalog).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from studio.i18n import DEFAULT_LANG, Catalog, Lang, tr
from studio.models.changelog import OpWarning

REASONS: Catalog = {
    # an ops entry that is not a valid op (seed 003 10.6)
    "not_object": ("这条操作不是 JSON 对象", "ops entry is not a JSON object"),
    "no_op": ("这条操作没有字符串类型的 'op'", "ops entry has no string 'op'"),
    "unknown_op": ("未知的操作 {op!r}；只允许：{allowed}", "unknown op {op!r}; allowed: {allowed}"),
    "no_path": ("这条操作没有字符串类型的 'path'", "ops entry has no string 'path'"),
    "path_text": ("路径不是有效的文本", "path is not valid text"),
    "detail_text": ("detail 必须是字符串", "detail must be a string"),
    "not_json": (
        "这条操作含有不是普通 JSON 的值（NaN、无穷大或无效文本）",
        "ops entry holds a value that is not plain JSON (NaN, infinity or invalid text)",
    ),
    "foreshadow_path": (
        "伏笔操作的路径 {path!r} 必须是一个伏笔 id（例如 F-001 或 slug，不含点）",
        "foreshadow path {path!r} must be one foreshadowing id (e.g. F-001 or a slug, no dots)",
    ),
    "foreshadow_value": (
        "伏笔操作的值 {value!r} 必须是以下之一：{allowed}",
        "foreshadow value {value!r} must be one of {allowed}",
    ),
    "path_parts": (
        "路径 {path!r} 应由 2 到 4 段组成，以点分隔（例如 characters.lin-feng.location）",
        "path {path!r} must have 2-4 dot-separated parts (e.g. characters.lin-feng.location)",
    ),
    "path_blank_part": ("路径 {path!r} 有空的或带空格的一段", "path {path!r} has an empty or space-padded part"),
    "path_top": ("路径 {path!r} 以 {top!r} 开头；只允许：{allowed}", "path {path!r} starts with {top!r}; allowed: {allowed}"),
    "active_foreshadowing": (
        "active_foreshadowing 由伏笔操作维护（{{op: foreshadow, path: <伏笔 id>, value: planted}}）",
        "active_foreshadowing is maintained by foreshadow ops ({{op: foreshadow, path: <id>, value: planted}})",
    ),
    "entity_slug": (
        "路径 {path!r}：实体 id {id!r} 必须是 slug（例如 lin-feng），不能是显示名",
        "path {path!r}: entity id {id!r} must be a slug (e.g. lin-feng), not a display name",
    ),
    "relationship_slug": (
        "路径 {path!r}：关系对象 {target!r} 必须是角色的 slug",
        "path {path!r}: relationship target {target!r} must be a character slug",
    ),
    "no_value": ("{op} 操作没有 'value'", "{op} op has no 'value'"),
    "inc_number": ("inc 的值必须是数字，实际是 {value!r}", "inc value must be a number, got {value!r}"),
    "null_value": ("{op} 的值不能为 null", "{op} value must not be null"),
    "invalid": ("操作格式不对：{error}", "{error}"),
    # a valid op that does not fit the state
    "not_an_object": ("{where} 是 {type}，不是对象", "{where} is a {type}, not an object"),
    "inc_not_number": (
        "无法对 {path} 做 inc：它的值是 {type} {value!r}，不是数字",
        "cannot inc {path}: it holds {type} {value!r}, not a number",
    ),
    "inc_overflow": ("{path} 的 inc 溢出", "inc of {path} overflows"),
    "add_not_list": ("无法向 {path} 添加：它是 {type}，不是列表", "cannot add to {path}: it holds {type}, not a list"),
    "remove_not_list": (
        "无法从 {path} 移除：它是 {what}，不是列表",
        "cannot remove from {path}: it holds {what}, not a list",
    ),
    "remove_missing": ("无法从 {path} 移除 {value!r}：列表里没有它", "cannot remove {value!r} from {path}: not in the list"),
    "entity_object": ("{top}.{slug} 必须保持为对象，实际是 {type}", "{top}.{slug} must stay an object, got {type}"),
    "character_field": ("角色字段 {where} 不合规：{error}", "{where}: {error}"),
    # foreshadowing ops against the ledger
    "never_planted": ("伏笔 {id!r} 从未埋下；已按「{action}」新建", "{id!r} was never planted; created as {action}"),
    "already_planted": (
        "伏笔 {id!r} 已在第 {chapter} 章埋下；本次记入历史",
        "{id!r} is already planted (chapter {chapter}); kept as history",
    ),
    "reopened": ("伏笔 {id!r} 已回收；重新标为推进中", "{id!r} was resolved; reopened as advanced"),
    "already_resolved": ("伏笔 {id!r} 早已回收", "{id!r} was already resolved"),
}

LINES: Catalog = {
    "dropped_op": ("第 {chapter} 章：丢弃了一条状态操作（{reason}）", "chapter {chapter}: dropped op ({reason})"),
    "foreshadowing": ("第 {chapter} 章：伏笔：{reason}", "chapter {chapter}: foreshadowing: {reason}"),
}


@dataclass(frozen=True)
class Reason:
    """A reason before it is stored: a `REASONS` code and its plain-JSON params."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def text(self, lang: Lang = "en") -> str:
        return _render(self.code, lang, self.params)


def _render(code: str, lang: Lang, params: Mapping[str, Any]) -> str:
    zh, en = REASONS[code]
    return (zh if lang == "zh" else en).format(**params)  # always formatted: `{{` in a template is a brace


def reason(code: str, **params: Any) -> Reason:
    return Reason(code, params)


def op_warning(entry: Any, why: Reason) -> OpWarning:
    """The warning as stored: the English text in `reason`, the code and params to render it later."""
    return OpWarning(entry=entry, reason=why.text("en"), code=why.code, params=dict(why.params))


def reason_text(warning: OpWarning, lang: Lang = DEFAULT_LANG) -> str:
    """The warning's reason in `lang`; its stored English `reason` when it has no known code."""
    if warning.code is None or warning.code not in REASONS:
        return warning.reason
    try:
        return _render(warning.code, lang, warning.params)
    except (KeyError, IndexError, ValueError):  # params from another version: the stored text still reads
        return warning.reason


def warning_line(kind: str, chapter: int, warning: OpWarning, lang: Lang = DEFAULT_LANG) -> str:
    """A commit's notice about a warning: `kind` "dropped_op" or "foreshadowing"."""
    return tr(LINES, kind, lang, chapter=chapter, reason=reason_text(warning, lang))
