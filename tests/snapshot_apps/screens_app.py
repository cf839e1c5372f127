"""Deterministic data for the snapshots of `tests/test_screen_snapshots.py`: the screens and dialogs that need a
project on disk (search, findings, blacklist proposals, volume end, trial confirm, the import extraction) get a
fresh copy of the sample novel (or of the generated imported book) in the test's own tmp_path, and everything
they show comes from fixed files: no clock, no random, no tmp path on screen.

`snapshot_sample(root)` is the sample plus a third chapter (the quick start's trial has three), saved check
reports for chapters 1 and 2, and two pending blacklist proposals. `SnapServices` is the small
`studio.tui.host.StudioServices` the extraction screen needs (offline provider, default settings)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.decisions import Option, Question, QuestionKind
from studio.errors import FormatError
from studio.init_project import init_project
from studio.models.blacklist_proposals import BlacklistProposal, BlacklistProposals
from studio.models.findings import ChecksReport, Finding
from studio.paths import ProjectPaths
from studio.project import Project

FIXED = Path("/novel/雾港守灯人")  # the folder shown on screen where a screen shows one

FINDINGS: dict[int, list[Finding]] = {
    1: [
        Finding(kind="punctuation", chapter=1, text=",", suggestion="，", count=3, severity="low", paragraph=4,
                offset=11, message="中文句子里用了半角逗号", context="灯笼挂在檐下,风一吹"),
        Finding(kind="blacklist", chapter=1, text="嘴角微微上扬", count=2, severity="medium", paragraph=9,
                offset=2, message="AI 腔黑名单词（限用，本章 2 次）", context="沈照嘴角微微上扬"),
    ],
    2: [
        Finding(kind="name_variant", chapter=2, text="许清禾", suggestion="许青禾", severity="high", paragraph=6,
                offset=0, message="疑似人名写错：许清禾 → 许青禾", context="许清禾把灯账合上"),
        Finding(kind="structural_tic", chapter=2, text="不是……而是……", count=4, severity="medium",
                paragraph=12, offset=5, message="句式重复：本章 4 次“不是……而是……”"),
        Finding(kind="chapter_length", chapter=2, count=1, severity="info",
                message="本章 2747字，少于目标下限 3000字"),
    ],
}

PROPOSALS = [
    BlacklistProposal(id=1, phrase="眸光微闪", tier="banned", count=3, chapters=[1, 2],
                      examples=["她眸光微闪，没有说话。"]),
    BlacklistProposal(id=2, phrase="心下一沉", tier="limited", count=2, chapters=[2],
                      examples=["沈照心下一沉，手里的灯差点没拿稳。"]),
]


def long_question() -> Question:
    """A quality-gate question as long as they come: a two-line title, eight facts, four long options; at
    80x24 it does not fit, and the facts (which scroll) must give way to the options and the keys line."""
    return Question(
        kind=QuestionKind.GATE_LOW,
        chapter=12,
        title_zh="本章评分 2.6，低于通过线 3.0；已经自动修订两次仍未通过，接下来怎么处理这一章？",
        title_en="Chapter scored 2.6, under the 3.0 pass mark after two automatic revisions: what now?",
        facts=[f"必须修改 {i}：第三段视角跳到了反派；结尾的伏笔“玉佩”没有回收，节奏拖沓，人物动机不清楚" for i in range(1, 9)],
        options=[
            Option("revise", "再自动修订一次（约 0.3 美元，预计 2 分钟）", "Revise once more (about $0.30)"),
            Option("edit_by_hand", "我自己改（在编辑器里打开本章，改完后重新评分）", "Edit it by hand"),
            Option("accept", "就这样通过（评分记录会标明是强制通过的）", "Accept as is (marked forced)"),
            Option("pause", "暂停，稍后再决定（流水线停在这一章）", "Pause and decide later"),
        ],
        recommended="revise",
    )


def snapshot_sample(root: Path) -> Path:
    """The sample novel in `root` (a new folder) with a third chapter, saved check reports and proposals."""
    init_project(root, sample=True)
    paths = ProjectPaths(root)
    shutil.copyfile(paths.chapter(2), paths.chapter(3))  # a third (trial) chapter: the text is what counts here
    for n, found in FINDINGS.items():
        ChecksReport(findings=found).save(paths.checks_log(n))
    BlacklistProposals(next_id=3, proposals=PROPOSALS).save(paths.blacklist_proposals)
    return root


def broken_project_message(root: Path) -> str:
    """What the studio says about a project with a broken file (the sample with its rules not JSON), the tmp
    folder replaced by `FIXED`."""
    from studio.tui.app import describe_error

    init_project(root, sample=True)
    ProjectPaths(root).world_rules.write_text("{不是 JSON", encoding="utf-8")
    try:
        Project.open(root)
    except FormatError as exc:
        return describe_error(exc, "zh").replace(str(root), str(FIXED))
    raise AssertionError("the broken sample opened")
