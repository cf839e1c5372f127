"""`novel-studio import SOURCE [DIR] [--append] [--split headings|size|blank] [--target-chars N] [--yes]
[--skip-checks] [--full [--to M] [--max-cost USD]] [--json]`: bring an existing manuscript in (issue 10), and `novel-studio import --names [DIR]`:
the name question again, later.

Steps (nothing is written before the author confirms the preview):
1. read SOURCE (`studio.importing.source`: a TXT file or a folder; the encoding detected and said), check the
   target (a new or empty folder; a project only with `--append`), split (`studio.importing.split`);
2. (`--append`) `check_append`: a chapter in progress or an inconsistent project is refused before the preview;
   the preview (`studio.importing.preview`); the author answers `y` (import), `n` (stop, nothing written),
   `headings`, `blank` or `size:4000` (split again that way and show the new preview). Without a terminal and
   without `--yes`: the preview is printed and the command exits 3 (paused, like every other question);
3. write the project under the lock (`studio.importing.build.write_project`; a stale lock is taken over after
   asking, `--yes` takes it), 字数 and the candidate names (`studio.importing.deterministic.overview`);
4. the names: all (`a`), by number (`1,3,5-7`), or none (`n`); `--yes` and `--json` register none and say how to
   do it later (`import --names`);
5. the prose metrics and the checks over the imported chapters (`check_book`), after the 5-second part: the
   CLI says so, `--skip-checks` leaves them to `novel-studio check`; the new-name check is always left to it;
6. the report, the full depth's estimate (`pipeline.importing.extract.estimate_extraction`, no call) and the
   next step (`novel-studio extract`); with `--full` the extraction runs right away through `extract`'s own front
   (`studio.cli.extract_cmd.run_extract`: its estimate and question first, `--to`, `--max-cost`).

DIR: the given folder, else `--project`, else (a new import) a folder named after the book in the current
folder, (`--append`) the current folder. Errors (`ImportSourceError`, `ImportRefused`, a held lock) are the
author's messages through `studio.cli.main` (exit 1, 4), never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import time
from pathlib import Path
from typing import Any

from pipeline.importing.extract import estimate_extraction
from pipeline.providers.factory import is_offline
from studio.checks.finding_text import kind_label
from studio.cli.common import (
    ExitCode,
    JsonOut,
    add_common_arguments,
    help_lang,
    is_interactive,
    resolve_lang,
    take_project_lock,
)
from studio.cli.extract_cmd import add_extract_arguments, run_extract
from studio.config import load_settings
from studio.errors import ProjectNotFoundError, StudioError, UsageError
from studio.i18n import Catalog, Lang, chars_text, tr
from studio.importing.build import book_title, check_append, check_target, write_project
from studio.importing.deterministic import check_book, load_report, overview, report_path
from studio.importing.names import NameCandidate, preload, register_names
from studio.importing.preview import preview_data, preview_lines
from studio.importing.source import SourceText, read_source
from studio.importing.split import DEFAULT_TARGET_CHARS, split_manuscript
from studio.lock import ProjectLock
from studio.models.checkpoint import Checkpoint
from studio.models.import_report import ImportReport
from studio.models.manuscript import Manuscript, SplitMode
from studio.paths import ProjectPaths

MESSAGES: Catalog = {
    "help": (
        "导入已有书稿（TXT 文件或章节文件夹），建成项目后接着写",
        "bring an existing manuscript in (a TXT file or a folder of chapter files) and write on from it",
    ),
    "opt_source": ("书稿：TXT 文件或章节文件夹", "the manuscript: a TXT file or a folder of chapter files"),
    "opt_dir": (
        "项目文件夹（默认：--project；新导入时为当前文件夹下以书名命名的新文件夹）",
        "project folder (default: --project; a new import: a new folder named after the book here)",
    ),
    "opt_append": ("把这些章节接在已有项目的最后一章之后", "add the chapters after the project's last chapter"),
    "opt_split": ("切分方式：headings（章节标题）、size（字数）、blank（空行）",
                  "how to split: headings, size or blank (lines)"),
    "opt_target": ("按字数切分时每章约多少字（默认 {n}）", "characters per chapter when splitting by size (default {n})"),
    "opt_yes": ("不提问：确认预览、不登记人名（之后用 import --names）、接管失效的锁",
                "ask nothing: confirm the preview, register no names (later: import --names), take over a stale lock"),
    "opt_skip_checks": ("导入后不跑全书检查（之后用 novel-studio check）",
                        "do not run the whole-book checks after the import (later: novel-studio check)"),
    "opt_names": ("重新回答导入时的人名登记问题", "answer the import's name question again"),
    "opt_full": (
        "导入后接着做完整提取（调用模型，先给出费用估算；等于之后运行 novel-studio extract）",
        "go on with the full extraction after the import (the model; an estimate first; the same as "
        "novel-studio extract later)",
    ),
    "estimate": (
        "完整提取（novel-studio extract）预计：{chapters} 章，输入约 {tokens_in} tokens（其中缓存 {cached}），"
        "输出约 {tokens_out} tokens，约 ${cost:.2f}",
        "The full extraction (novel-studio extract) is estimated at {chapters} chapters, about {tokens_in} input "
        "tokens ({cached} from the cache), {tokens_out} output tokens, about ${cost:.2f}",
    ),
    "estimate_offline": ("（离线模式不计费）", " (offline: no cost)"),
    "bad_target": ("--target-chars 必须是 500 到 100000 之间的整数：{value}",
                   "--target-chars must be a whole number from 500 to 100000: {value}"),
    "no_source": ("请给出要导入的书稿（TXT 文件或文件夹）", "give the manuscript to import (a TXT file or a folder)"),
    "target": ("导入到：{path}", "Importing into: {path}"),
    "append_to": ("追加到项目：{path}（接在第 {last} 章之后）", "Appending to the project {path} (after chapter {last})"),
    "ask": (
        "确认导入？y 导入 / n 取消 / headings 按标题 / blank 按空行 / size:4000 按字数切分",
        "Import this? y import / n cancel / headings / blank / size:4000 (split again)",
    ),
    "bad_answer": ("没看懂“{answer}”：请回答 y、n、headings、blank 或 size:字数",
                   "not understood: {answer!r}; answer y, n, headings, blank or size:N"),
    "cancelled": ("已取消，什么都没有写入", "Cancelled; nothing was written"),
    "paused": (
        "以上是导入预览，什么都还没写入。确认无误后加 --yes 重新运行（或在终端里运行以便回答）",
        "This is the import preview; nothing is written yet. Rerun with --yes to import (or run it in a terminal "
        "to answer)",
    ),
    "lock_question": ("接管这把失效的锁并继续导入？", "Take over this stale lock and go on with the import?"),
    "lock_cancelled": ("未接管锁，什么都没有写入", "The lock was not taken over; nothing was written"),
    "written": (
        "已写入 {chapters} 章（第 {first}-{last} 章，{chars}），原稿原样保存在 {copy}",
        "Wrote {chapters} chapters ({first}-{last}, {chars}); the original is kept unchanged in {copy}",
    ),
    "timing": ("读取、切分、写入与人名：{seconds:.1f} 秒", "Reading, splitting, writing and names: {seconds:.1f} s"),
    "names_none": ("没有找到候选人名或地名", "No candidate names found"),
    "names_head": (
        "候选名字 {n} 个（按出现次数排序），登记后检查能认出它们、发现笔误：",
        "{n} candidate names (most frequent first); once registered the checks know them and catch their typos:",
    ),
    "name_line": ("  {i:>2}. {name}（{kind}，{count} 次，始见第 {first} 章）",
                  "  {i:>2}. {name} ({kind}, {count} times, first in chapter {first})"),
    "kind_person": ("人名", "person"),
    "kind_place": ("地名/势力", "place"),
    "names_ask": ("登记哪些？a 全部 / 编号如 1,3,5-7 / n 都不登记", "Register which? a all / numbers like 1,3,5-7 / n none"),
    "names_bad": ("没看懂“{answer}”：请回答 a、n 或编号（如 1,3,5-7）",
                  "not understood: {answer!r}; answer a, n or numbers (1,3,5-7)"),
    "names_added": ("已登记 {n} 个名字到 world/names.json", "Registered {n} names in world/names.json"),
    "names_later": (
        "人名暂不登记；之后运行 novel-studio import --names --project {path} 再选",
        "No names registered now; run `novel-studio import --names --project {path}` to pick them later",
    ),
    "checks_running": (
        "正在计算文风指标并检查全书（{chars}，不花 token；每百万字几秒，可按 Ctrl-C 跳过，之后运行 novel-studio check）…",
        "Measuring the prose and checking the book ({chars}, no tokens; seconds per million characters; Ctrl-C "
        "skips it, run novel-studio check later)…",
    ),
    "checks_skipped": ("全书检查留待之后：novel-studio check --project {path}",
                       "Whole-book checks left for later: novel-studio check --project {path}"),
    "checks_done": ("检查完成（{seconds:.1f} 秒）：{findings}", "Checked ({seconds:.1f} s): {findings}"),
    "no_findings": ("没有发现问题", "nothing found"),
    "metrics": (
        "文风：对话占比 {dialogue:.0%}，平均句长 {sentence:.1f} 字，AI 腔黑名单 {blacklist:.2f} 次/千字，破折号 {dash:.2f} 个/千字",
        "Prose: dialogue {dialogue:.0%}, mean sentence {sentence:.1f} characters, blacklisted phrases {blacklist:.2f}/1k, "
        "dashes {dash:.2f}/1k",
    ),
    "deferred": ("新人名检查（需要逐章分词，较慢）留给 novel-studio check", "The new-name check (slow segmentation) is left to novel-studio check"),
    "next": (
        "下一步：\n"
        "  1. novel-studio extract --project {path}：用模型提取人物、设定、伏笔、摘要与文风（先给出费用估算）\n"
        "  2. novel-studio status --project {path}：查看这本书\n"
        "  3. 提取完成后 novel-studio plan / continue 接着写第 {next} 章",
        "Next:\n"
        "  1. novel-studio extract --project {path}: extract characters, world, threads, summaries and style with "
        "the model (an estimate first)\n"
        "  2. novel-studio status --project {path}: see the book\n"
        "  3. once extracted, novel-studio plan / continue writes chapter {next}",
    ),
    "no_report": (
        "{path} 没有导入报告（logs/import-report.json）：这个项目不是导入的，或导入还没完成",
        "{path} has no import report (logs/import-report.json): it was not imported, or the import did not finish",
    ),
}

_SIZE_ANSWER = re.compile(r"^size\s*[:：]\s*(\d+)$")
_RANGE = re.compile(r"^(\d+)(?:\s*-\s*(\d+))?$")
MIN_TARGET, MAX_TARGET = 500, 100_000


def _target_chars(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if not MIN_TARGET <= n <= MAX_TARGET:
        raise argparse.ArgumentTypeError(tr(MESSAGES, "bad_target", help_lang(), value=value))
    return n


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lang = help_lang()
    parser = subparsers.add_parser("import", help=tr(MESSAGES, "help", lang), description=tr(MESSAGES, "help", lang))
    parser.add_argument("source", nargs="?", type=Path, metavar="SOURCE", help=tr(MESSAGES, "opt_source", lang))
    parser.add_argument("dir", nargs="?", type=Path, metavar="DIR", help=tr(MESSAGES, "opt_dir", lang))
    parser.add_argument("--append", action="store_true", help=tr(MESSAGES, "opt_append", lang))
    parser.add_argument("--split", choices=["headings", "size", "blank"], default="headings",
                        help=tr(MESSAGES, "opt_split", lang))
    parser.add_argument("--target-chars", type=_target_chars, default=DEFAULT_TARGET_CHARS, metavar="N",
                        help=tr(MESSAGES, "opt_target", lang, n=DEFAULT_TARGET_CHARS))
    parser.add_argument("--yes", "-y", action="store_true", help=tr(MESSAGES, "opt_yes", lang))
    parser.add_argument("--skip-checks", action="store_true", help=tr(MESSAGES, "opt_skip_checks", lang))
    parser.add_argument("--names", action="store_true", help=tr(MESSAGES, "opt_names", lang))
    parser.add_argument("--full", action="store_true", help=tr(MESSAGES, "opt_full", lang))
    add_extract_arguments(parser)  # --to, --max-cost of the full depth
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def _root(args: argparse.Namespace, source: Path | None) -> Path:
    if args.dir is not None:
        return Path(args.dir).expanduser()
    if getattr(args, "project", None):
        return Path(args.project).expanduser()
    if args.append or source is None:
        return Path.cwd()
    return Path.cwd() / (book_title(source) or "novel")


def parse_answer(answer: str, target: int) -> tuple[str, SplitMode, int] | None:
    """('yes' | 'no' | 'split', mode, target chars) for a preview answer; None when not understood."""
    a = answer.strip().lower()
    if a in ("y", "yes", "是", "好"):
        return "yes", "headings", target
    if a in ("n", "no", "否", "q"):
        return "no", "headings", target
    if a in ("headings", "blank", "size"):
        return "split", a, target  # type: ignore[return-value]
    m = _SIZE_ANSWER.match(a)
    if m and MIN_TARGET <= int(m.group(1)) <= MAX_TARGET:
        return "split", "size", int(m.group(1))
    return None


def parse_picks(answer: str, count: int) -> list[int] | None:
    """Indexes (0-based) picked by `a`, `n` or `1,3,5-7` among `count` candidates; None when not understood."""
    a = answer.strip().lower().replace("，", ",").replace("、", ",")
    if a in ("a", "all", "全部"):
        return list(range(count))
    if a in ("", "n", "none", "no"):
        return []
    picked: list[int] = []
    for part in a.split(","):
        m = _RANGE.match(part.strip())
        if not m:
            return None
        lo = int(m.group(1))
        hi = int(m.group(2) or lo)
        if not 1 <= lo <= hi <= count:
            return None
        picked += [i - 1 for i in range(lo, hi + 1) if i - 1 not in picked]
    return picked


def _confirm(args: argparse.Namespace, out: JsonOut, source: SourceText, lang: Lang) -> Manuscript | None:
    """Split and preview until the author says yes (the manuscript) or no (None). Raises nothing to pause:
    returns the manuscript with `out.data["paused"]` set when there is nobody to ask."""
    mode: SplitMode = args.split
    target: int = args.target_chars
    while True:
        manuscript = split_manuscript(source, mode=mode, target_chars=target)
        out.data["preview"] = preview_data(manuscript)
        for line in preview_lines(manuscript, lang):
            out.say(line)
        if args.yes:
            return manuscript
        if out.json_mode or not is_interactive():
            out.data["paused"] = True
            out.say("")
            out.say(tr(MESSAGES, "paused", lang))
            return None
        while True:
            answer = input(tr(MESSAGES, "ask", lang) + " ").strip()
            parsed = parse_answer(answer, target)
            if parsed is not None:
                break
            print(tr(MESSAGES, "bad_answer", lang, answer=answer))
        what, new_mode, target = parsed
        if what == "yes":
            return manuscript
        if what == "no":
            out.data["cancelled"] = True
            out.say(tr(MESSAGES, "cancelled", lang))
            return None
        mode = new_mode


def _names(args: argparse.Namespace, out: JsonOut, paths: ProjectPaths, candidates: list[NameCandidate],
           lang: Lang) -> list[str]:
    """Show the candidates and register what the author picks (none with --yes / --json / no terminal)."""
    if not candidates:
        out.say(tr(MESSAGES, "names_none", lang))
        return []
    out.say(tr(MESSAGES, "names_head", lang, n=len(candidates)))
    for i, c in enumerate(candidates, start=1):
        kind = tr(MESSAGES, f"kind_{c.kind}", lang)
        out.say(tr(MESSAGES, "name_line", lang, i=i, name=c.name, kind=kind, count=c.count, first=c.first_chapter))
    if args.yes or out.json_mode or not is_interactive():
        out.say(tr(MESSAGES, "names_later", lang, path=paths.root))
        return []
    while True:
        answer = input(tr(MESSAGES, "names_ask", lang) + " ")
        picks = parse_picks(answer, len(candidates))
        if picks is not None:
            break
        print(tr(MESSAGES, "names_bad", lang, answer=answer))
    added = register_names(paths, [candidates[i] for i in picks])
    if added:
        out.say(tr(MESSAGES, "names_added", lang, n=len(added)))
    return added


def findings_summary(findings: dict[str, int], lang: Lang) -> str:
    """`跨章重复用语 27，标点 3`: the finding kinds by the names `novel-studio check` shows (one catalog)."""
    if not findings:
        return tr(MESSAGES, "no_findings", lang)
    return ("，" if lang == "zh" else ", ").join(f"{kind_label(kind, lang)} {n}" for kind, n in findings.items())


def _checks(args: argparse.Namespace, out: JsonOut, root: Path, report: ImportReport, lang: Lang) -> ImportReport:
    if args.skip_checks:
        out.say(tr(MESSAGES, "checks_skipped", lang, path=root))
        return report
    out.say(tr(MESSAGES, "checks_running", lang, chars=chars_text(report.chars, lang)))
    try:
        report = check_book(root, report, lang=lang)
    except KeyboardInterrupt:
        out.say(tr(MESSAGES, "checks_skipped", lang, path=root))
        return report
    m = report.metrics
    out.say(tr(MESSAGES, "checks_done", lang, seconds=report.seconds.get("checks", 0.0),
               findings=findings_summary(report.findings, lang)))
    out.say(tr(MESSAGES, "metrics", lang, dialogue=m.get("dialogue_ratio", 0.0), sentence=m.get("avg_sentence_length", 0.0),
               blacklist=m.get("blacklist_hits_per_1k", 0.0), dash=m.get("dash_per_1k", 0.0)))
    out.say(tr(MESSAGES, "deferred", lang))
    return report


def _report_data(report: ImportReport) -> dict[str, Any]:
    data = report.to_data()
    data.pop("chapter_chars", None)  # one line per chapter: in logs/import-report.json
    return data


def run(args: argparse.Namespace) -> int:
    lang = resolve_lang(args)
    out = JsonOut(bool(getattr(args, "json", False)))
    if args.names:
        return _run_names(args, out, lang)
    if args.source is None:
        raise UsageError(tr(MESSAGES, "no_source", lang))
    started = time.perf_counter()
    source_path = Path(args.source).expanduser()
    root = _root(args, source_path)
    source = read_source(source_path, lang=lang)
    has_project = check_target(root, args.append, lang)
    if args.append:  # a chapter in progress or an inconsistent project: said before the preview, not after it
        check_append(root, lang)
    paths = ProjectPaths(root)
    if has_project:
        last = Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
        out.say(tr(MESSAGES, "append_to", lang, path=root, last=last))
    else:
        out.say(tr(MESSAGES, "target", lang, path=root))
    out.data["project"] = str(root)
    confirm_started = time.perf_counter()
    manuscript = _confirm(args, out, source, lang)
    waited = time.perf_counter() - confirm_started
    if manuscript is None:
        code = ExitCode.PAUSED if out.data.get("paused") else ExitCode.OK
        return out.finish(int(code))

    root.mkdir(parents=True, exist_ok=True)
    lock = ProjectLock(paths)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "lock_question", lang),
                             tr(MESSAGES, "lock_cancelled", lang)):
        return out.finish(int(ExitCode.LOCKED))
    try:
        preload()
        record = write_project(manuscript, source_path, root, append=args.append, lang=lang, locked=True)
        imported = record.sources[-1]
        report, candidates = overview(root, imported.first_chapter, imported.last_chapter, lang=lang)
        out.say(tr(MESSAGES, "written", lang, chapters=report.chapters, first=imported.first_chapter,
                   last=imported.last_chapter, chars=chars_text(report.chars, lang), copy=paths.import_dir / imported.stored_as))
        out.say(tr(MESSAGES, "timing", lang, seconds=time.perf_counter() - started - waited))
        out.data["import"] = imported.model_dump(mode="json")
        out.data["names"] = [c.as_dict() for c in candidates]
        added = _names(args, out, paths, candidates, lang)
        report.registered = added
        report.save(report_path(paths.root))
        out.data["registered"] = added
        report = _checks(args, out, root, report, lang)
    finally:
        lock.release()
    out.data["report"] = _report_data(report)
    out.say("")
    _estimate(args, out, root, imported.last_chapter, lang)
    if args.full:
        return _full(args, out, root)
    out.say(tr(MESSAGES, "next", lang, path=root, next=record.last_chapter + 1))
    return out.finish(int(ExitCode.OK))


def _estimate(args: argparse.Namespace, out: JsonOut, root: Path, last: int, lang: Lang) -> None:
    """The full depth's estimate (no model call); nothing when it cannot be made (a broken settings file ...)."""
    try:
        settings = load_settings(root)
        offline = is_offline(settings, bool(getattr(args, "offline", False)))
        est = estimate_extraction(root, settings, last=last, offline=offline, lang=lang)
    except (StudioError, OSError):
        return
    out.data["extract_estimate"] = {
        "chapters": est.chapters, "input_tokens": est.input_tokens, "cached_input_tokens": est.cached_input_tokens,
        "output_tokens": est.output_tokens, "cost_usd": round(est.cost_usd, 4), "offline": est.offline,
    }
    text = tr(MESSAGES, "estimate", lang, chapters=est.chapters, tokens_in=f"{est.input_tokens:,}",
              cached=f"{est.cached_input_tokens:,}", tokens_out=f"{est.output_tokens:,}", cost=est.cost_usd)
    out.say(text + (tr(MESSAGES, "estimate_offline", lang) if est.offline else ""))


def _full(args: argparse.Namespace, out: JsonOut, root: Path) -> int:
    """`--full`: the extraction right after the import, through `extract`'s own front (it takes the lock again,
    asks before spending unless `--yes`). With `--json` its object is nested under "extract"."""
    if not out.json_mode:
        out.say("")
        return run_extract(root, args)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = run_extract(root, args)
    try:
        out.data["extract"] = json.loads(buffer.getvalue())
    except ValueError:
        out.data["extract"] = {"output": buffer.getvalue()}
    return out.finish(code)


def _run_names(args: argparse.Namespace, out: JsonOut, lang: Lang) -> int:
    """`import --names [DIR]`: the saved candidates of the last import, asked again."""
    root = Path(args.dir or args.source or getattr(args, "project", None) or Path.cwd()).expanduser()
    report = load_report(root) if root.is_dir() else None
    if report is None:
        raise ProjectNotFoundError(tr(MESSAGES, "no_report", lang, path=root))
    paths = ProjectPaths(root)
    registered = set(report.registered)
    candidates = [
        NameCandidate(str(n["name"]), "person" if n.get("kind") == "person" else "place", int(n.get("count", 0)),
                      int(n.get("first_chapter", 1)))
        for n in report.names if n.get("name") not in registered
    ]
    lock = ProjectLock(paths)
    if not take_project_lock(args, lock, lang, tr(MESSAGES, "lock_question", lang),
                             tr(MESSAGES, "lock_cancelled", lang)):
        return out.finish(int(ExitCode.LOCKED))
    try:
        added = _names(args, out, paths, candidates, lang)
        if added:
            report.registered = [*report.registered, *added]
            report.save(report_path(paths.root))
    finally:
        lock.release()
    return out.finish(int(ExitCode.OK), names=[c.as_dict() for c in candidates], registered=added)
