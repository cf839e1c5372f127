"""The reference plugin's file shapes (DankerMu/novel-writer-plugin), issue 11: each model reads them as an
accepted input variant and writes back what it read; changelog lines without state versions are history;
and item 19: evaluations written by the pipeline state the seed's eight weights.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.replies import JudgeReply
from studio.cli.main import main
from studio.errors import FormatError
from studio.models.blacklist import AiBlacklist
from studio.models.changelog import ChangelogEntry
from studio.models.checkpoint import Checkpoint, PipelineStage
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.patch import StatePatch
from studio.models.state import CurrentState
from studio.models.style_profile import StyleProfile
from studio.outline import parse_outline
from studio.paths import ProjectPaths
from studio.recovery import RecoveryKind, decide_recovery
from studio.state_engine import load_changelog, merge_patch, replay, validate_ops

# ------------------------------------------------------------------------------- the accepted variants


def test_style_profile_accepts_the_plugin_object_shapes() -> None:
    profile = StyleProfile.parse_data(
        {
            "source_type": "write_then_extract",
            "rhetoric_preferences": [{"type": "短句切换", "frequency": "high"}, "白描"],
            "writing_directives": [{"directive": "用短动作句推进", "do": "他撑篙。", "dont": "他缓缓地撑起了竹篙。"}, "少用比喻"],
        }
    )
    assert profile.directive_lines() == ["用短动作句推进（这样写：他撑篙。；不要写：他缓缓地撑起了竹篙。）", "少用比喻"]
    out = profile.to_data()
    assert out["rhetoric_preferences"] == [{"type": "短句切换", "frequency": "high"}, "白描"]
    assert out["writing_directives"][1] == "少用比喻"
    with pytest.raises(FormatError) as err:
        StyleProfile.parse_data({"writing_directives": [{"do": "x"}]})
    assert "$.writing_directives[0]" in str(err.value)


def test_foreshadowing_ids_like_f_001() -> None:
    ledger = ForeshadowingLedger.parse_data({"foreshadowing": [{"id": "F-001"}, {"id": "ancient_prophecy"}]})
    assert [i.id for i in ledger.foreshadowing] == ["F-001", "ancient_prophecy"]
    for bad in ("F 001", "F.001", "../x", "伏笔一", "F--1"):
        with pytest.raises(FormatError):
            ForeshadowingLedger.parse_data({"foreshadowing": [{"id": bad}]})
    valid, warnings = validate_ops([{"op": "foreshadow", "path": "F-001", "value": "advanced"}])
    assert len(valid) == 1 and warnings == []
    valid, warnings = validate_ops([{"op": "foreshadow", "path": "F.001", "value": "advanced"}])
    assert valid == [] and len(warnings) == 1


def test_checkpoint_quick_start_volume_and_plugin_stages(tmp_path: Path) -> None:
    assert Checkpoint.parse_data({"current_volume": 0}).current_volume == 1
    with pytest.raises(FormatError):
        Checkpoint.parse_data({"current_volume": -1})
    for stage in ("summarized", "refining"):
        cp = Checkpoint.parse_data({"last_completed_chapter": 2, "pipeline_stage": stage, "inflight_chapter": 3})
        assert cp.pipeline_stage is PipelineStage.DRAFTED
        # the stage is a lower bound: with no staged draft the chapter is written again
        assert decide_recovery(cp, ProjectPaths(tmp_path)).kind is RecoveryKind.RESTART_CHAPTER
    with pytest.raises(FormatError):
        Checkpoint.parse_data({"pipeline_stage": "dreaming"})


def test_blacklist_whitelist_variants() -> None:
    as_object = AiBlacklist.parse_data({"words": ["不禁", "顿时"], "whitelist": {"_comment": "豁免", "words": ["顿时"]}})
    assert as_object.effective_words() == ["不禁"]
    assert as_object.to_data()["whitelist"] == {"_comment": "豁免", "words": ["顿时"]}
    as_map = AiBlacklist.parse_data({"words": ["顿时"], "whitelist": {"顿时": "口头禅", "_c": "x"}})
    assert as_map.effective_words() == []
    assert as_map.to_data()["whitelist"] == {"_c": "x", "words": [{"word": "顿时", "reason": "口头禅"}]}
    phrases = AiBlacklist.parse_data({"words": ["顿时"], "whitelist": [{"phrase": "顿时", "examples": ["a"]}]})
    assert phrases.effective_words() == [] and phrases.to_data()["whitelist"] == [{"word": "顿时", "examples": ["a"]}]
    assert AiBlacklist.parse_data({"words": ["a"], "whitelist": ["a"]}).to_data()["whitelist"] == ["a"]
    with pytest.raises(FormatError):
        AiBlacklist.parse_data({"whitelist": {"words": "顿时"}})


def test_outline_keys_in_bold_or_code() -> None:
    text = "## 第 1 卷大纲\n\n### 第 1 章: 灯\n- **Storyline**: main-arc\n- **POV:** shen-zhao\n- `Location`: 渡口\n- **Phase**: 期待\n"
    outline = parse_outline(text)
    assert outline.title == "第 1 卷大纲" and outline.synopsis == ""
    chapter = outline.chapters[0]
    assert (chapter.title, chapter.storyline, chapter.pov, chapter.location) == ("灯", "main-arc", "shen-zhao", "渡口")
    assert chapter.extra == {"Phase": "期待"} and chapter.notes == []
    with pytest.raises(FormatError) as err:
        parse_outline("### 第 1 章: 灯\n- **Storyline**: 主线\n", "o.md")
    assert err.value.problems[0].line == 2


def test_evaluation_check_names_and_recommendation_aliases() -> None:
    scores = {name: {"score": 3} for name in DIMENSION_WEIGHTS}
    evaluation = Evaluation.parse_data(
        {
            "chapter": 2,
            "eval_used": {
                "scores": scores,
                "recommendation": "pause_for_user",
                "contract_verification": {"ls_checks": [{"rule_id": "LS-001", "status": "violation"}]},
            },
        }
    )
    assert evaluation.recommendation == "review"
    assert [c.id for c in evaluation.high_confidence_violations()] == ["LS-001"]


# --------------------------------------------------------------------------------- changelog without versions

PLUGIN_LOG = (
    '{"chapter":1,"base_state_version":0,"storyline_id":"main-arc","ops":[{"op":"foreshadow","path":"F-001",'
    '"value":"planted","detail":"灯芯被剪"}]}\n'
    '{"chapter":1,"op":"canon_upgrade","target":"W-002","from":"planned","to":"established"}\n'
)


def test_foreign_changelog_lines_are_history_kept_byte_for_byte(tmp_path: Path) -> None:
    line = {"chapter": 1, "op": "canon_upgrade", "target": "W-002", "from": "planned", "to": "established"}
    entry = ChangelogEntry.parse_data(line)
    assert entry.kind == "foreign" and entry.to_data() == line
    with pytest.raises(FormatError):  # our own kind without a version is still broken
        ChangelogEntry.parse_data({"kind": "patch", "chapter": 1, "base_state_version": 0})

    paths = ProjectPaths(tmp_path)
    paths.changelog.parent.mkdir(parents=True)
    paths.changelog.write_text(PLUGIN_LOG, encoding="utf-8")
    state = CurrentState(state_version=1, last_updated_chapter=1, active_foreshadowing=["F-001"])
    state.save(paths.current_state)
    with pytest.raises(FormatError) as err:
        replay(load_changelog(paths.changelog))  # nothing to rebuild the plugin's state from: say so
    assert "another tool" in str(err.value)

    patch = StatePatch(chapter=2, base_state_version=1, storyline_id="main-arc",
                       ops=[{"op": "foreshadow", "path": "F-001", "value": "advanced"}])
    entry = merge_patch(paths, patch)
    assert (entry.base_state_version, entry.state_version, len(entry.ops)) == (1, 2, 1)
    assert paths.changelog.read_text(encoding="utf-8").startswith(PLUGIN_LOG)
    assert [e.kind for e in load_changelog(paths.changelog)] == ["foreign", "foreign", "init", "patch"]
    assert replay(load_changelog(paths.changelog)).to_data() == CurrentState.load(paths.current_state).to_data()


def test_merge_after_foreign_lines_on_an_empty_state_logs_a_snapshot(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path)
    paths.changelog.parent.mkdir(parents=True)
    paths.changelog.write_text(PLUGIN_LOG.splitlines(keepends=True)[1], encoding="utf-8")  # only a canon record
    merge_patch(paths, StatePatch(chapter=1, base_state_version=0, storyline_id="main-arc", ops=[]))
    entries = load_changelog(paths.changelog)
    assert [e.kind for e in entries] == ["foreign", "init", "patch"]
    assert replay(entries).state_version == 1


# ------------------------------------------------------------------------------------------------ item 19


def test_judge_reply_without_weights_writes_the_seed_weights() -> None:
    reply = JudgeReply.model_validate({"scores": {name: {"score": 4, "reason": "r"} for name in DIMENSION_WEIGHTS}})
    data = reply.to_evaluation(5).to_data()
    assert {name: s["weight"] for name, s in data["scores"].items()} == DIMENSION_WEIGHTS
    written = Evaluation.parse_data(
        {"chapter": 1, "scores": {name: {"score": 4, "weight": None} for name in DIMENSION_WEIGHTS}}
    )
    assert written.scores.pacing.weight == DIMENSION_WEIGHTS["pacing"]
    judged = Evaluation.parse_data(
        {"chapter": 1, "scores": {name: {"score": 4, "weight": 0.5} for name in DIMENSION_WEIGHTS}}
    )
    assert judged.scores.pacing.weight == 0.5  # the judge's own words are recorded, not replaced


def test_commit_after_a_foreign_line_in_our_own_log(sample: Path) -> None:
    """A line the plugin appended to a log novel-studio started: the next commit completes (today it fails
    half way, chapter moved, checkpoint behind) and the log still replays to the state."""
    paths = ProjectPaths(sample)
    foreign = '{"chapter":2,"op":"canon_upgrade","target":"W-001","from":"planned","to":"established"}\n'
    with open(paths.changelog, "a", encoding="utf-8") as fh:
        fh.write(foreign)
    last = Checkpoint.load(paths.checkpoint).last_completed_chapter
    assert main(["continue", "--offline", "--project", str(sample), "--yes"]) == 0
    cp = Checkpoint.load(paths.checkpoint)
    assert cp.last_completed_chapter == last + 1 and cp.inflight_chapter is None
    entries = load_changelog(paths.changelog)
    assert [e.kind for e in entries[-3:]] == ["foreign", "init", "patch"]
    assert foreign in paths.changelog.read_text(encoding="utf-8")
    assert replay(entries).to_data() == CurrentState.load(paths.current_state).to_data()
