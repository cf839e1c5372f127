"""`novel-studio check [--from N] [--to M] [--json] [--quick] [--fail-on SEVERITY]`: the checks that cost no tokens.

Read-only (no lock: it may run beside a run; nothing in the project is written). Exit 0 when it ran, whatever it
found; with `--fail-on SEVERITY`, exit 1 when a finding of that severity or higher remains after the allow
list (`checks-allow.json`). `--json` prints `{"findings": [...], "stats": {...}}` (`studio.models.findings`).

`check --fix-punctuation [--from N] [--to M] [--yes]` is the one form that writes: the punctuation fixes of the
chapters in range (`studio.checks.punctuation_fix`: waived marks left alone), shown as a diff, applied after a
"y" (`--yes`: without asking; no terminal and no `--yes`: exit 3 with the question), under the project lock
(a running pipeline holds it: exit 4). Each fixed chapter's saved report is rewritten. `--json` prints
`{"fixed": [N, ...], "diff": {N: [lines]}}`.
"""

from __future__ import annotations

import argparse
import json

from studio.checks.finding_text import KIND_LABELS as KIND_LABELS
from studio.checks.finding_text import kind_label
from studio.checks.registry import default_checks, is_expensive
from studio.checks.run import project_context, run_checks
from studio.cli.common import ExitCode, add_common_arguments, emit, help_lang, require_project, resolve_lang
from studio.cli.confirmed_change import confirmed, locked, yes_command
from studio.config import load_settings
from studio.errors import UsageError
from studio.i18n import Catalog, Lang, chars_text, tr, tr_count
from studio.models.check_allow import CheckAllowList
from studio.models.findings import SEVERITIES, ChecksReport, Finding, severity_rank
from studio.project import Project

MESSAGES: Catalog = {
    "help": (
        "不花 token 的检查：人名笔误、标点、AI 腔黑名单、句式习惯、章节字数、连续性、串线、伏笔、风格偏移、结构（只读）",
        "checks that cost no tokens: name typos, punctuation, AI-phrase blacklist, tics, chapter length, continuity, "
        "storyline leaks, foreshadowing, style drift, structure (read-only)",
    ),
    "opt_from": ("从第 N 章开始（默认：第一章）", "first chapter to check (default: the first)"),
    "opt_to": ("到第 M 章为止（默认：最后一章）", "last chapter to check (default: the last)"),
    "opt_fail_on": (
        "有该级别或更高级别的问题时以状态 1 退出（info/low/medium/high）",
        "exit with status 1 when a finding of this severity or higher remains (info/low/medium/high)",
    ),
    "opt_quick": (
        "跳过较慢的检查（新人名识别需要分词，首次全书运行较慢，之后有缓存）",
        "skip the slow checks (new names need segmentation: slow on a first whole-book run, cached after)",
    ),
    "bad_range": ("--from {first} 大于 --to {last}", "--from {first} is after --to {last}"),
    "bad_chapter": ("章节号必须是正整数：{value}", "a chapter number must be a positive integer: {value}"),
    "header": (
        "检查了 {chapters} 章（{chars}），发现 {n} 处问题",
        "Checked {chapters} chapters ({chars}): {n} findings",
    ),
    "waived": ("（另有 {n} 处已被作者忽略）", "({n} more waived by the author)"),
    "nothing": ("没有可检查的章节", "no chapters to check"),
    "chapter": ("第 {n} 章", "Chapter {n}"),
    "book": ("全书", "Whole book"),
    "where": ("第 {p} 段第 {o} 字", "paragraph {p}, character {o}"),
    "suggest": ("建议：{s}", "suggestion: {s}"),
    "times": ("{n} 次", "{n} times"),
    "skipped_names": (
        "单字名不参与匹配（太容易误报）：{names}",
        "one-character names are not matched (too many false alarms): {names}",
    ),
    "registry_problem": ("名字登记冲突：{problem}", "name registry clash: {problem}"),
    "silence": (
        "误报？在 checks-allow.json 里加一条 here（只忽略这一处）或 deliberate（写明理由，全书忽略）",
        "A false alarm? Add a 'here' entry (this place) or a 'deliberate' one (with a reason, everywhere) to "
        "checks-allow.json",
    ),
    "opt_fix": (
        "修正标点（半角标点、直引号、...），先显示差异再确认；被忽略的不改",
        "fix the punctuation (half-width marks, straight quotes, ...): shows the diff, then asks; waived marks stay",
    ),
    "opt_yes": ("不询问，直接修正", "fix without asking"),
    "fix_none": ("没有可自动修正的标点", "no punctuation to fix"),
    "fix_confirm": ("修正以上 {n} 章的标点？", "Fix the punctuation of the {n} chapters above?"),
    "fix_confirm_one": ("修正以上 {n} 章的标点？", "Fix the punctuation of the chapter above?"),
    "fix_cancelled": ("已取消，没有改动", "cancelled: nothing changed"),
    "fix_done": ("已修正 {n} 章的标点：{chapters}", "fixed the punctuation of {n} chapters: {chapters}"),
    "fix_done_one": ("已修正 {n} 章的标点：{chapters}", "fixed the punctuation of chapter {chapters}"),
    "fix_stale": ("项目锁已过期，接管后修正？", "The project lock is stale: take it over and fix?"),
    "sev_info": ("提示", "info"),
    "sev_low": ("低", "low"),
    "sev_medium": ("中", "medium"),
    "sev_high": ("高", "high"),
}



def _chapter_number(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(tr(MESSAGES, "bad_chapter", help_lang(), value=value))
    return n


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = yes_command(subparsers, "check", MESSAGES)
    parser.add_argument(
        "--from", dest="first", metavar="N", type=_chapter_number, help=tr(MESSAGES, "opt_from", lang)
    )
    parser.add_argument(
        "--to", dest="last", metavar="M", type=_chapter_number, help=tr(MESSAGES, "opt_to", lang)
    )
    parser.add_argument("--quick", action="store_true", help=tr(MESSAGES, "opt_quick", lang))
    parser.add_argument(
        "--fix-punctuation", dest="fix_punctuation", action="store_true", help=tr(MESSAGES, "opt_fix", lang)
    )
    parser.add_argument(
        "--fail-on", choices=SEVERITIES, metavar="SEVERITY", help=tr(MESSAGES, "opt_fail_on", lang)
    )
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def render_report(report: ChecksReport, lang: Lang) -> str:
    stats = report.stats
    if not stats.get("chapters") and not report.findings:
        return tr(MESSAGES, "nothing", lang)
    lines = [
        tr(
            MESSAGES,
            "header",
            lang,
            chapters=stats.get("chapters", 0),
            chars=chars_text(int(stats.get("chars", 0)), lang),
            n=len(report.findings),
        )
    ]
    if stats.get("waived"):
        lines[0] += tr(MESSAGES, "waived", lang, n=stats["waived"])
    current: int | None | str = "-"
    for f in report.findings:
        if f.chapter != current:
            current = f.chapter
            lines.append("")
            lines.append(
                tr(MESSAGES, "chapter", lang, n=f.chapter) if f.chapter else tr(MESSAGES, "book", lang)
            )
        lines.append("  " + _line(f, lang))
    for name in [", ".join(stats.get("skipped_short_names") or [])]:
        if name:
            lines.append(tr(MESSAGES, "skipped_names", lang, names=name))
    for problem in stats.get("registry_problems") or []:
        lines.append(tr(MESSAGES, "registry_problem", lang, problem=problem))
    if report.findings:
        lines += ["", tr(MESSAGES, "silence", lang)]
    return "\n".join(lines)


def _line(f: Finding, lang: Lang) -> str:
    parts = [f"[{tr(MESSAGES, 'sev_' + f.severity, lang)}] {kind_label(f.kind, lang)}"]
    if f.paragraph is not None:
        parts.append(tr(MESSAGES, "where", lang, p=f.paragraph, o=(f.offset or 0) + 1))
    parts.append(f.message or f.text)
    if f.suggestion and f.suggestion not in f.message:
        parts.append(tr(MESSAGES, "suggest", lang, s=f.suggestion))
    return "  ".join(parts)


def run(args: argparse.Namespace) -> int:
    root = require_project(args)
    lang = resolve_lang(args, root)
    first, last = getattr(args, "first", None), getattr(args, "last", None)
    if first is not None and last is not None and first > last:
        raise UsageError(tr(MESSAGES, "bad_range", lang, first=first, last=last))
    project = Project.open(root, lang=lang)
    if getattr(args, "fix_punctuation", False):
        return fix_punctuation_command(args, project, first, last, lang)
    settings = load_settings(root)
    ctx, unreadable = project_context(
        project,
        first,
        last,
        min_chars=settings.writing.chapter_min_chars,
        max_chars=settings.writing.chapter_max_chars,
        lang=lang,
    )
    allow = CheckAllowList.load_or_default(project.paths.check_allow)
    checks = default_checks()
    if getattr(args, "quick", False):
        checks = [c for c in checks if not is_expensive(c)]
    report = run_checks(ctx, checks=checks, allow=allow, extra=unreadable)
    if getattr(args, "json", False):
        print(json.dumps(report.to_data(), ensure_ascii=False, indent=2))
    else:
        print(render_report(report, lang))
    fail_on = getattr(args, "fail_on", None)
    if fail_on and any(severity_rank(f.severity) >= severity_rank(fail_on) for f in report.findings):
        return int(ExitCode.ERROR)
    return int(ExitCode.OK)


def fix_punctuation_command(
    args: argparse.Namespace, project: Project, first: int | None, last: int | None, lang: Lang
) -> int:
    from studio.checks.punctuation_fix import diff_lines, plan_fixes, recheck_chapter, write_fixed

    chapters = [n for n in project.committed_chapters() if (first or 1) <= n <= (last or n)]
    stale, cancelled = tr(MESSAGES, "fix_stale", lang), tr(MESSAGES, "fix_cancelled", lang)
    with locked(args, project.paths, lang, stale=stale, cancelled=cancelled) as ok:
        if not ok:
            return int(ExitCode.LOCKED)
        fixes = plan_fixes(project, chapters, lang)
        diffs = {
            f.chapter: diff_lines(str(f.path.relative_to(project.paths.root)), f.old, f.new) for f in fixes
        }
        if not fixes:
            emit(args, {"fixed": [], "diff": {}}, tr(MESSAGES, "fix_none", lang))
            return int(ExitCode.OK)
        if not getattr(args, "json", False):
            print("\n".join(line for f in fixes for line in diffs[f.chapter]))
        if not confirmed(args, tr_count(MESSAGES, "fix_confirm", lang, len(fixes), n=len(fixes)), cancelled):
            return int(ExitCode.OK)
        for fix in fixes:
            write_fixed(fix, lang)
            recheck_chapter(project, fix.chapter, lang)
    done = [f.chapter for f in fixes]
    text = tr_count(MESSAGES, "fix_done", lang, len(done), n=len(done),
                    chapters=("、" if lang == "zh" else ", ").join(str(n) for n in done))
    emit(args, {"fixed": done, "diff": diffs}, text)
    return int(ExitCode.OK)
