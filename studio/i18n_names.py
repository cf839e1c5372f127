"""Display names of the pipeline's words: one catalog for the studio and the CLI (no Textual here).

The files and the pipeline speak in identifiers (`WRITING`, `committed`, `judge`, `gate_low`, `polish`); the
author reads them in the UI's language through these functions. An unknown identifier is shown as it is, so a
newer state never disappears from the screen.

- `state_name`: orchestrator states (checkpoint `orchestrator_state`) and the studio's own idle/running/paused.
- `stage_name`: the running stage of an event (`draft`, `summarize` ...) and the checkpoint's `pipeline_stage`
  (`drafted`, `committed` ...).
- `storyline_role_name`: a storyline's role in a volume (`primary`, `secondary`, `seasoning`).
- `gate_action_name`: the gate's decision (`pass`, `polish`, `pause_low` ...); `recommendation_name`: the judge's.
- `question_kind_name`: what a pending decision is about (`gate_low` ...).
- `error_kind_name` / `error_text`: a failed model call by its stable `kind` (the provider's English detail
  kept after it); `describe_error`: any error the studio shows (a lock held by another process in the author's
  language, a model error by kind, a StudioError by its message).
- `gate_reason`: why the gate decided, from (action, overall, revisions), with the band the score is really in:
  the overall is rounded to 2 decimals and a band's upper end is exclusive, so 2.92 is "2.00-2.99", never
  "2.0-2.9".
"""

from __future__ import annotations

from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr

STATES: Catalog = {
    "INIT": ("初始化", "init"),
    "QUICK_START": ("快速起步", "quick start"),
    "VOL_PLANNING": ("卷规划", "volume planning"),
    "WRITING": ("写作", "writing"),
    "CHAPTER_REWRITE": ("重写章节", "chapter rewrite"),
    "VOL_REVIEW": ("卷末回顾", "volume review"),
    "ERROR_RETRY": ("出错待重试", "error, to retry"),
    "idle": ("空闲", "idle"),
    "running": ("运行中", "running"),
    "paused": ("等待作者", "paused"),
}

STAGES: Catalog = {
    # a stage that runs (events)
    "draft": ("起草", "draft"),
    "summarize": ("摘要", "summarize"),
    "refine": ("润色", "refine"),
    "judge": ("评审", "judge"),
    "polish": ("精修", "polish"),
    "revise": ("修订", "revise"),
    "rewrite": ("重写", "rewrite"),
    "commit": ("提交", "commit"),
    "checks": ("检查", "checks"),
    "rebuild": ("重建", "rebuild"),
    "import-cast": ("导入：角色与设定", "import: cast"),
    "import-summarize": ("导入：逐章提取", "import: chapter extraction"),
    # where a chapter stands (checkpoint pipeline_stage)
    "drafting": ("起草中", "drafting"),
    "drafted": ("已起草", "drafted"),
    "refined": ("已润色", "refined"),
    "judged": ("已评审", "judged"),
    "revising": ("修订中", "revising"),
    "committed": ("已提交", "committed"),
}

GATE_ACTIONS: Catalog = {
    "pass": ("通过", "pass"),
    "polish": ("精修后提交", "polish, then commit"),
    "revise": ("修订", "revise"),
    "rewrite": ("重写", "rewrite"),
    "force_pass": ("强制通过", "force-pass"),
    "pause_low": ("分数偏低，等作者决定", "low score, the author decides"),
    "pause_exhausted": ("修订用完，等作者决定", "revisions used up, the author decides"),
    "pause_hard": ("硬性规则仍被违反，等作者决定", "a hard rule is still broken, the author decides"),
}

STORYLINE_ROLES: Catalog = {
    "primary": ("主线", "primary"),
    "secondary": ("穿插", "secondary"),
    "seasoning": ("点缀", "seasoning"),
}

RECOMMENDATIONS: Catalog = {
    "pass": ("通过", "pass"),
    "polish": ("润色", "polish"),
    "revise": ("修订", "revise"),
    "review": ("待作者审阅", "author review"),
    "rewrite": ("重写", "rewrite"),
}

QUESTION_KINDS: Catalog = {
    "gate_low": ("评分偏低", "low score"),
    "gate_hard": ("硬性规则违反", "hard-rule violation"),
    "quality_brief": ("阶段质量回顾", "quality brief"),
    "volume_end": ("卷末", "volume end"),
    "interrupted": ("中断的章节", "interrupted chapter"),
    "stale_lock": ("残留的锁", "stale lock"),
    "missing_key": ("缺少 API key", "missing API key"),
    "stop_running": ("停止运行", "stop the run"),
    "plan_approval": ("批准卷计划", "plan approval"),
    "trial_confirm": ("确认试写", "trial confirmation"),
    "review_cleanup": ("卷末清理", "review clean-up"),
    "import_extract": ("导入的完整提取", "import extraction"),
    "plan_unreviewed": ("未回顾就规划下一卷", "planning before the review"),
    "error_retry": ("出错待重试", "error, to retry"),
}

ERROR_KINDS: Catalog = {
    "missing_api_key": ("没有设置 API key", "no API key"),
    "unusable_api_key": ("API key 无法使用", "unusable API key"),
    "auth": ("API key 被拒绝", "API key rejected"),
    "rate_limited": ("请求太频繁，服务商限流", "rate limited"),
    "overloaded": ("服务商过载", "provider overloaded"),
    "server": ("服务商出错", "provider error"),
    "connection": ("连不上服务商（网络、代理或地址）", "cannot reach the provider (network, proxy or address)"),
    "stream_interrupted": ("回复中途断开", "the reply broke off"),
    "timeout": ("请求超时", "timed out"),
    "unfinished": ("回复没有写完", "unfinished reply"),
    "unexpected_reply": ("回复格式不对", "unexpected reply"),
    "truncated": ("回复被截断", "truncated reply"),
    "refusal": ("模型拒绝回答", "the model refused"),
    "moderation": ("内容被服务商拦截", "blocked by content moderation"),
    "bad_request": ("请求无效", "bad request"),
    "empty_reply": ("回复为空", "empty reply"),
    "provider": ("模型调用失败", "model call failed"),
}

LOCK_MESSAGES: Catalog = {
    "stale": ("{describe}（可以接管）", "{describe} (it can be taken over)"),
}

REASONS: Catalog = {
    "pass": ("综合 {score} ≥ 4.00，无高置信违规：通过", "overall {score} >= 4.00, no high-confidence violation: pass"),
    "polish": ("综合 {score} 在 3.50-3.99：精修一遍后提交", "overall {score} in 3.50-3.99: a polish pass"),
    "rewrite": ("综合 {score} < 2.00：整章重写", "overall {score} < 2.00: full rewrite"),
    "low": ("综合 {score} 在 2.00-2.99：请作者决定", "overall {score} in 2.00-2.99: the author decides"),
    "exhausted_low": (
        "综合 {score} < 2.00，已修订 {count} 次：请作者决定",
        "overall {score} < 2.00 after {count} revisions: the author decides",
    ),
    "exhausted": (
        "综合 {score}，已修订 {count} 次仍不足 3.00：请作者决定",
        "overall {score} still below 3.00 after {count} revisions: the author decides",
    ),
    "revise_band": (
        "综合 {score} 在 3.00-3.49：第 {next}/{max} 次修订",
        "overall {score} in 3.00-3.49: revision {next}/{max}",
    ),
    "revise_violation": (
        "有高置信度的契约违规（综合 {score}）：第 {next}/{max} 次修订",
        "a high-confidence contract violation (overall {score}): revision {next}/{max}",
    ),
    "force": (
        "已修订 {count} 次（综合 {score}）：强制通过",
        "{count} revisions done (overall {score}): force-passed",
    ),
    "hard": (
        "已修订 {count} 次，硬性规则仍被违反（综合 {score}）",
        "a hard rule is still broken after {count} revisions (overall {score})",
    ),
}


def _name(catalog: Catalog, key: str | None, lang: Lang) -> str:
    if key is None:
        return "-"
    key = str(getattr(key, "value", key))
    return tr(catalog, key, lang) if key in catalog else key


def state_name(state: str | None, lang: Lang) -> str:
    return _name(STATES, state, lang)


def stage_name(stage: str | None, lang: Lang) -> str:
    return _name(STAGES, stage, lang)


def gate_action_name(action: str | None, lang: Lang) -> str:
    return _name(GATE_ACTIONS, action, lang)


def storyline_role_name(role: str | None, lang: Lang) -> str:
    return _name(STORYLINE_ROLES, role, lang)


def recommendation_name(recommendation: str | None, lang: Lang) -> str:
    return _name(RECOMMENDATIONS, recommendation, lang)


def question_kind_name(kind: str | None, lang: Lang) -> str:
    return _name(QUESTION_KINDS, kind, lang)


def error_kind_name(kind: str | None, lang: Lang) -> str:
    return _name(ERROR_KINDS, kind, lang)


def error_text(kind: str | None, message: str, lang: Lang) -> str:
    """`连不上服务商（网络、代理或地址）：<detail>` for a known kind; the message alone for an unknown one."""
    if kind is None or str(kind) not in ERROR_KINDS:
        return message
    name = error_kind_name(kind, lang)
    if not message or message == name:
        return name
    return f"{name}：{message}" if lang == "zh" else f"{name}: {message}"


def describe_error(exc: BaseException, lang: Lang) -> str:
    """What the author reads about `exc`: a held or stale project lock in the UI's language (who holds it,
    since when), a model call's error by its kind, another StudioError by its message, anything else with its
    class name."""
    # imported here: the names above stay light (`status` renders with them and reads no lock model)
    from studio.lock import LockBusyError, StaleLockError

    if isinstance(exc, StaleLockError):
        return tr(LOCK_MESSAGES, "stale", lang, describe=exc.status.describe(lang))
    if isinstance(exc, LockBusyError):
        return exc.status.describe(lang)
    kind = getattr(exc, "kind", None)
    if isinstance(exc, StudioError) and isinstance(kind, str) and kind in ERROR_KINDS:
        return error_text(kind, str(getattr(exc, "message", None) or exc), lang)
    if isinstance(exc, StudioError):
        return exc.text(lang)
    return f"{type(exc).__name__}: {exc}"


def gate_reason(action: str, overall: float, revision_count: int, lang: Lang, *, max_revisions: int = 2) -> str:
    """Why the gate took `action` (seed 002's table), in the UI's language. `revision_count` is the revisions
    done before this judgement (the `GateDecided` event's count)."""
    score = f"{round(overall, 2):.2f}"
    action = str(getattr(action, "value", action))
    if action == "pass":
        return tr(REASONS, "pass", lang, score=score)
    if action == "polish":
        return tr(REASONS, "polish", lang, score=score)
    if action == "rewrite":
        return tr(REASONS, "rewrite", lang, score=score)
    if action == "pause_low":
        return tr(REASONS, "low", lang, score=score)
    if action == "pause_exhausted":
        key = "exhausted_low" if round(overall, 2) < 2.0 else "exhausted"
        return tr(REASONS, key, lang, score=score, count=revision_count)
    if action == "revise":
        key = "revise_band" if 3.0 <= round(overall, 2) < 3.5 else "revise_violation"
        return tr(REASONS, key, lang, score=score, next=revision_count + 1, max=max_revisions)
    if action == "force_pass":
        return tr(REASONS, "force", lang, score=score, count=revision_count)
    if action == "pause_hard":
        return tr(REASONS, "hard", lang, score=score, count=revision_count)
    return f"{gate_action_name(action, lang)} ({score})"


__all__ = [
    "ERROR_KINDS",
    "GATE_ACTIONS",
    "QUESTION_KINDS",
    "RECOMMENDATIONS",
    "STAGES",
    "STATES",
    "STORYLINE_ROLES",
    "describe_error",
    "error_kind_name",
    "error_text",
    "gate_action_name",
    "gate_reason",
    "question_kind_name",
    "recommendation_name",
    "stage_name",
    "state_name",
    "storyline_role_name",
]
