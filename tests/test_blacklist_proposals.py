"""The judge proposes blacklist entries, the author approves or rejects them (issue 9 item 5): the reply field, the
pending file, the `blacklist` command, and the offline judge proposing one now and then."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.providers.offline import judge_reply
from pipeline.replies import JudgeReply
from studio import own_writes
from studio.blacklist_review import add_entry, approve, record_suggestions, reject
from studio.cli.main import main
from studio.errors import StudioError
from studio.init_project import init_project
from studio.models.blacklist import AiBlacklist
from studio.models.blacklist_proposals import BlacklistProposals, SuggestedEntry
from studio.paths import ProjectPaths

TEXT = "她眸光微闪，没有说话。\n\n他眸光微闪地看着她，心下一沉。窗外眸光微闪的是灯。\n"


def _reply(**extra: Any) -> dict[str, Any]:
    data = judge_reply({"chapter": 4, "quotes": ["她眸光微闪，没有说话"]})
    data.pop("blacklist_suggestions", None)
    return {**data, **extra}


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    return ProjectPaths(init_project(tmp_path / "novel"))


def test_the_judge_reply_keeps_usable_suggestions_and_drops_the_rest() -> None:
    reply = JudgeReply.model_validate(
        _reply(
            blacklist_suggestions=[
                {"phrase": "眸光微闪", "count_in_chapter": 3, "examples": ["她眸光微闪"], "tier": "banned", "note": "套话"},
                {"phrase": "这一句太长了根本不是一个短语而是一整段话", "count_in_chapter": 1},
                {"phrase": "x"},
                "不是对象",
            ]
        )
    )
    assert [s.phrase for s in reply.blacklist_suggestions] == ["眸光微闪"]
    assert JudgeReply.model_validate(_reply()).blacklist_suggestions == []


def test_the_plugins_anti_ai_suggestions_are_read() -> None:
    anti_ai = {"blacklist_update_suggestions": [{"phrase": "值得一提的是", "count_in_chapter": 3, "confidence": "high"}]}
    reply = JudgeReply.model_validate(_reply(anti_ai=anti_ai))
    assert [(s.phrase, s.confidence) for s in reply.blacklist_suggestions] == [("值得一提的是", "high")]


def test_suggestions_are_kept_pending_only_when_quoted_and_not_yet_caught(paths: ProjectPaths) -> None:
    blacklist = AiBlacklist.load(paths.ai_blacklist)
    suggestions = [
        SuggestedEntry(phrase="眸光微闪", count_in_chapter=3, examples=["编造的例句"]),
        SuggestedEntry(phrase="不在正文里", count_in_chapter=2),
        SuggestedEntry(phrase="深吸一口气", count_in_chapter=2),  # already listed
    ]
    text = TEXT + "他深吸一口气。\n"
    kept = record_suggestions(paths, blacklist, 4, text, suggestions)
    assert [(p.id, p.phrase, p.status, p.chapters) for p in kept] == [(1, "眸光微闪", "pending", [4])]
    assert kept[0].examples == ["她眸光微闪，没有说话。"]  # an invented example is replaced by the real sentence
    written = paths.blacklist_proposals
    assert own_writes.is_own(written, written.read_bytes())
    assert AiBlacklist.load(paths.ai_blacklist) == blacklist  # never applied by itself
    # proposed again from another chapter: one proposal, both chapters
    record_suggestions(paths, blacklist, 6, TEXT, [SuggestedEntry(phrase="眸光微闪", count_in_chapter=5)])
    proposals = BlacklistProposals.load(written)
    assert [(p.phrase, p.chapters, p.count) for p in proposals.proposals] == [("眸光微闪", [4, 6], 5)]
    assert record_suggestions(paths, blacklist, 6, TEXT, [SuggestedEntry(phrase="眸光微闪")]) == []


def test_approve_puts_the_entry_in_the_blacklist_and_reject_keeps_it_out(paths: ProjectPaths) -> None:
    blacklist = AiBlacklist.load(paths.ai_blacklist)
    record_suggestions(
        paths,
        blacklist,
        4,
        TEXT,
        [SuggestedEntry(phrase="眸光微闪", tier="limited"), SuggestedEntry(phrase="心下一沉")],
    )
    [decision] = approve(paths, [1], lang="en")
    assert decision.added and decision.proposal.status == "approved"
    entry = AiBlacklist.load(paths.ai_blacklist).to_data()["words"][-1]
    assert entry == {"word": "眸光微闪", "category": "评审建议", "added_by": "quality-judge", "tier": "limited"}
    assert own_writes.is_own(paths.ai_blacklist, paths.ai_blacklist.read_bytes())
    reject(paths, [2], lang="en")
    # a rejected phrase proposed again stays rejected
    record_suggestions(paths, AiBlacklist.load(paths.ai_blacklist), 5, TEXT, [SuggestedEntry(phrase="心下一沉")])
    assert [(p.phrase, p.status) for p in BlacklistProposals.load(paths.blacklist_proposals).proposals] == [
        ("眸光微闪", "approved"),
        ("心下一沉", "rejected"),
    ]


def test_bad_ids_and_phrases_are_clear_errors_that_write_nothing(paths: ProjectPaths) -> None:
    record_suggestions(paths, AiBlacklist.load(paths.ai_blacklist), 4, TEXT, [SuggestedEntry(phrase="眸光微闪")])
    before = (paths.ai_blacklist.read_bytes(), paths.blacklist_proposals.read_bytes())
    with pytest.raises(StudioError, match="no blacklist proposal 9"):
        approve(paths, [1, 9], lang="en")
    approve(paths, [1], lang="en")
    with pytest.raises(StudioError, match="already approved"):
        reject(paths, [1], lang="en")
    after_approve = (paths.ai_blacklist.read_bytes(), paths.blacklist_proposals.read_bytes())
    assert after_approve != before
    for phrase, says in (("  ", "empty"), ("***", "only gap marks"), ("眸光微闪", "already on the blacklist")):
        with pytest.raises(StudioError, match=says):
            add_entry(paths, phrase, lang="en")
    with pytest.raises(StudioError, match="greater than 0"):
        add_entry(paths, "心下一沉", tier="limited", rate=0, lang="en")
    assert (paths.ai_blacklist.read_bytes(), paths.blacklist_proposals.read_bytes()) == after_approve


def test_the_blacklist_command(paths: ProjectPaths, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(paths.root)
    assert main(["blacklist", "proposals", "--project", root]) == 0
    assert "没有待审核的建议" in capsys.readouterr().out
    record_suggestions(paths, AiBlacklist.load(paths.ai_blacklist), 4, TEXT, [SuggestedEntry(phrase="眸光微闪", count_in_chapter=3)])
    assert main(["blacklist", "proposals", "--project", root]) == 0
    out = capsys.readouterr().out
    assert "1. “眸光微闪”（禁用，第 4 章，本章 3 次）" in out and "例：她眸光微闪，没有说话。" in out
    assert main(["blacklist", "proposals", "--project", root, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["proposals"][0]["phrase"] == "眸光微闪"
    assert main(["blacklist", "approve", "1", "--project", root]) == 0
    assert "已加入黑名单：“眸光微闪”" in capsys.readouterr().out
    assert main(["blacklist", "approve", "1", "--project", root]) == 1
    assert "已经批准" in capsys.readouterr().err
    assert main(["blacklist", "add", "他*了一声", "--limited", "--rate", "1.5", "--project", root]) == 0
    words = AiBlacklist.load(paths.ai_blacklist).to_data()["words"]
    assert words[-1] == {"word": "他*了一声", "added_by": "author", "tier": "limited", "rate": 1.5}
    assert main(["blacklist", "show", "--project", root, "--lang", "en"]) == 0
    assert "限用（每个每千字最多 1.5 次，按本章 2500 字算，每个全章最多 3 次）：他*了一声" in capsys.readouterr().out


def test_the_offline_judge_proposes_now_and_then() -> None:
    quiet = judge_reply({"chapter": 3, "repeated_phrases": {"等天亮再说": 5}})
    assert quiet["blacklist_suggestions"] == []
    proposing = judge_reply({"chapter": 4, "repeated_phrases": {"等天亮再说": 5, "山路很长了": 2}})
    assert [s["phrase"] for s in proposing["blacklist_suggestions"]] == ["等天亮再说"]
    assert JudgeReply.model_validate(proposing).blacklist_suggestions[0].tier == "limited"


def test_an_offline_run_of_the_sample_leaves_a_proposal_for_the_author(tmp_path: Path) -> None:
    root = init_project(tmp_path / "sample", sample=True)
    assert main(["continue", "2", "--offline", "--yes", "--project", str(root)]) == 0
    proposals = BlacklistProposals.load(ProjectPaths(root).blacklist_proposals)
    assert [(p.chapters, p.status, p.proposed_by) for p in proposals.proposals] == [([4], "pending", "quality-judge")]
    assert proposals.proposals[0].phrase in (root / "chapters" / "chapter-004.md").read_text(encoding="utf-8")
    assert proposals.proposals[0].phrase not in AiBlacklist.load(ProjectPaths(root).ai_blacklist).listed_words()
