"""Style drift with known answers: every 5th chapter the last five are measured against the style profile;
`style-drift.json` gets concrete corrections, is cleared when back on the baseline, and the writer's reader
(`StyleDrift.injected_directives`) sees them; `novel-studio check` only reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.checks.run import check_after_commit, project_context, run_checks
from studio.checks.style_drift import StyleDriftCheck, window_of
from studio.init_project import init_project
from studio.models.style_drift import StyleDrift
from studio.models.style_profile import StyleProfile
from studio.paths import ProjectPaths
from studio.project import Project

SHORT = "沈照推门进去。灯还亮着。他坐下来，算了一笔账。"  # sentences of 6, 4, 9 字: about 6
LONG = "沈照推开那扇被夜雾泡得发胀的旧木门走进灯铺，在那盏据说已经亮了七十年的长明灯前慢慢坐了下来。"
DIALOGUE = "“行吧。”沈照说。“按规矩。”许青禾说。"


def _write(paths: ProjectPaths, chapters: range, para: str, times: int = 20) -> None:
    for n in chapters:
        body = "\n\n".join(f"　　{para}" for _ in range(times))
        paths.chapter(n).write_text(f"# 第{n}章\n\n{body}\n", encoding="utf-8")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    StyleProfile(avg_sentence_length=8, dialogue_ratio=0.1, forbidden_words=["不禁"]).save(paths.style_profile)
    StyleDrift(directives=["作者自己的要求：少用成语"], active=False).save(paths.style_drift)
    return root


def test_windows_end_on_every_fifth_chapter() -> None:
    assert [window_of(n) for n in (4, 5, 9, 10)] == [None, (1, 5), None, (6, 10)]


def test_a_drifting_window_writes_corrections_and_a_baseline_window_clears_them(root: Path) -> None:
    paths = ProjectPaths(root)
    _write(paths, range(1, 6), LONG + "他不禁叹了口气。")
    check_after_commit(Project.open(root), 4)
    assert not StyleDrift.load(paths.style_drift).active  # not a window's end: nothing written
    report = check_after_commit(Project.open(root), 5)
    drift = StyleDrift.load(paths.style_drift)
    assert drift.active and drift.generated_at_chapter == 5 and drift.window == (1, 5)
    # 不禁 is in the sample's AI blacklist too: twenty times a chapter is far over 3 per 千字
    assert [d.metric for d in drift.drifts] == ["avg_sentence_length", "forbidden_words", "blacklist_hits_per_1k"]
    assert drift.drifts[0].baseline == 8 and float(drift.drifts[0].current or 0) > 20
    assert "拆开长句" in drift.drifts[0].directive and "「不禁」（100 次）" in drift.drifts[1].directive
    assert "「不禁」" in drift.drifts[2].directive
    # the writer's reader: the author's directive first, then the corrections
    injected = Project.open(root).style_drift.injected_directives()
    assert injected[0] == "作者自己的要求：少用成语" and "拆开长句" in injected[1]
    assert report is not None and [f.text for f in report.findings if f.kind == "style_drift"] == [
        "avg_sentence_length", "forbidden_words", "blacklist_hits_per_1k"
    ]

    _write(paths, range(1, 6), SHORT)
    check_after_commit(Project.open(root), 5)
    cleared = StyleDrift.load(paths.style_drift)
    assert not cleared.active and cleared.drifts == [] and cleared.directives == ["作者自己的要求：少用成语"]
    assert Project.open(root).style_drift.injected_directives() == []


def test_dialogue_drift_both_ways(root: Path) -> None:
    paths = ProjectPaths(root)

    def dialogue_findings() -> list[str]:
        ctx, _ = project_context(Project.open(root), 1, 5, lang="zh")
        found = run_checks(ctx, checks=[StyleDriftCheck()]).findings
        assert {f.chapter for f in found} <= {5}
        return [f.message for f in found if f.text == "dialogue_ratio"]

    _write(paths, range(1, 6), DIALOGUE)
    (more,) = dialogue_findings()
    assert "对话占比偏高" in more
    StyleProfile(dialogue_ratio=0.3).save(paths.style_profile)
    _write(paths, range(1, 6), SHORT)
    (less,) = dialogue_findings()
    assert "对话占比偏低" in less
    assert "dialogue" not in paths.style_drift.read_text(encoding="utf-8")  # `check` writes nothing


def test_no_profile_values_no_drift_and_no_file(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    StyleProfile().save(paths.style_profile)
    _write(paths, range(1, 6), LONG)
    check_after_commit(Project.open(root), 5)
    assert not paths.style_drift.exists()
