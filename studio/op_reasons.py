"""Why a state op was dropped or noted (`OpWarning`, issue 11): one catalog, Chinese by default, English on request.
The state engine's problems with the changelog and the state (`PROBLEMS`: torn lines, versions that do not
follow, a logged op that no longer applies) come from here too, built by `problem` / `mismatch` with both
languages (`studio.errors`: `str()` is English, `text(lang)` / `describe(lang)` what the author reads).

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

from studio.errors import Problem, StateVersionMismatch
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
    # `error_zh` since issue 11's last stop: an older line without it shows its stored English reason
    "character_field": ("角色字段 {where} 不合规：{error_zh}", "{where}: {error}"),
    # foreshadowing ops against the ledger
    "never_planted": ("伏笔 {id!r} 从未埋下；已按「{action}」新建", "{id!r} was never planted; created as {action}"),
    "already_planted": (
        "伏笔 {id!r} 已在第 {chapter} 章埋下；本次记入历史",
        "{id!r} is already planted (chapter {chapter}); kept as history",
    ),
    "reopened": ("伏笔 {id!r} 已回收；重新标为推进中", "{id!r} was resolved; reopened as advanced"),
    "already_resolved": ("伏笔 {id!r} 早已回收", "{id!r} was already resolved"),
    # a logged op that no longer applies, moved to its line's warnings by `repair` (studio.stale_ops)
    "marked_by_repair": (
        "这条操作已无法应用（{why_zh}）；novel-studio repair 于 {date} 把它移到这里，重放时跳过",
        "no longer applies ({why}); moved here by novel-studio repair on {date}, skipped on replay",
    ),
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


REPAIR_HINT = "novel-studio repair"

PROBLEMS: Catalog = {
    "line_not_utf8": ("不是 UTF-8（这一行被截断或被手动改过？）；请运行 {repair}", "not UTF-8 (torn or edited line?); run {repair}"),
    "line_not_json": (
        "不是有效的 JSON：{error}（这一行被截断或被手动改过？）；请运行 {repair}",
        "invalid JSON: {error} (torn or edited line?); run {repair}",
    ),
    "line_repeats": ("第 {line} 行与上一行重复；请运行 {repair}", "line {line} repeats the line before it; run {repair}"),
    "init_not_first": (
        "init 条目只能是第一行，或紧跟在其他工具写的行之后",
        "an init entry may only be the first line or follow another tool's lines",
    ),
    "last_not_utf8": (
        "最后一行不是 UTF-8（被截断或被手动改过？）；请运行 {repair}",
        "the last line is not UTF-8 (torn or edited?); run {repair}",
    ),
    "last_not_json": (
        "最后一行不是有效的 JSON（被截断或被手动改过？）：{error}；请运行 {repair}",
        "invalid JSON in the last line (torn or edited?): {error}; run {repair}",
    ),
    "last_repeats": ("最后一行与上一行重复；请运行 {repair}", "the last line repeats the line before it; run {repair}"),
    "op_stale": ("记录在案的状态操作已无法应用：{reason}", "logged op no longer applies: {reason}"),
    "foreign_no_base": (
        "日志开头是其他工具写的行（没有状态版本号），其后没有快照，无法据此重建状态；"
        "current-state.json 是这段状态唯一的记录",
        "the log starts with lines written by another tool (no state versions) and no snapshot follows them, "
        "so the state cannot be rebuilt from it; current-state.json is the only record of that state",
    ),
    "log_gap": (
        "这一条从版本 {base} 开始，但日志此时在版本 {at}",
        "entry starts from version {base} but the log is at version {at}",
    ),
    "replay_gap": (
        "这一条从版本 {base} 开始，但重放此时在版本 {at}",
        "entry starts from version {base} but the replay is at version {at}",
    ),
    "no_version": (
        "{source} 中没有状态版本 {version}（它覆盖版本 {first}-{last}）",
        "{source} has no state version {version} (it covers versions {first}-{last})",
    ),
    "no_version_after": (
        "{source}：版本 {base} 之后没有状态版本 {version}",
        "{source}: no state version {version} after version {base}",
    ),
    "merge_interrupted": (
        "{changelog} 记录到版本 {last}，但 {state} 停在版本 {at}：上一次合并被中断了；请运行 {repair} 完成它",
        "{changelog} records version {last} but {state} is at {at}: the last merge was interrupted; "
        "run {repair} to finish it",
    ),
    "state_behind": (
        "{state} 在版本 {at}，但 {changelog} 结束于版本 {last}；请运行 {repair}（它按日志重建状态并保留备份），"
        "或找回缺失的日志行",
        "{state} is at version {at} but {changelog} ends at {last}; run {repair} (it rebuilds the state from the "
        "changelog, keeping a backup) or restore the missing changelog lines",
    ),
    "patch_behind": (
        "第 {chapter} 章的状态补丁基于版本 {base}，但 {state} 已在版本 {at}；需要重新生成补丁",
        "patch for chapter {chapter} was made against state version {base}, but {state} is at version {at}; "
        "regenerate the patch",
    ),
    "rewrite_behind": (
        "这次改写基于状态版本 {base}，但 {state} 已在版本 {at}",
        "the rewrite was made against state version {base}, but {state} is at version {at}",
    ),
}


def _both(key: str, params: Mapping[str, Any]) -> tuple[str, str]:
    """The catalog text in Chinese and in English; an `OpWarning` param is its reason in each language."""
    def render(lang: Lang) -> str:
        values = {k: reason_text(v, lang) if isinstance(v, OpWarning) else v for k, v in params.items()}
        return tr(PROBLEMS, key, lang, **values)

    return render("zh"), render("en")


def problem(
    path: Any, key: str, *, json_path: str = "", line: int | None = None, column: int | None = None, **params: Any
) -> Problem:
    """A `Problem` whose reason is `PROBLEMS[key]`: English in `reason`, Chinese in `zh`. `{repair}`, `{line}` and
    `{column}` are filled in."""
    zh, en = _both(key, {"repair": REPAIR_HINT, "line": line, "column": column, **params})
    return Problem(path, en, json_path=json_path, line=line, column=column, zh=zh)


def mismatch(key: str, **params: Any) -> StateVersionMismatch:
    """A `StateVersionMismatch` with its `PROBLEMS[key]` message in both languages."""
    zh, en = _both(key, {"repair": REPAIR_HINT, **params})
    error = StateVersionMismatch(en)
    error.zh = zh
    return error
