"""`status` after only chapter text and evaluations changed: the report the last full run kept
(`studio.status_memo`, layout key) is recounted, rescored and rendered without the full report
(`studio.cli.status_cmd._refreshed`; pydantic only for an evaluation whose score is not cached), and prints
exactly what a run without any memo prints, on the sample novel and on broken files (which always take the full
run)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

import studio.status as status_module
import studio.status_memo as memo_module
from studio.cli.main import main
from studio.init_project import init_project
from studio.paths import ProjectPaths
from studio.status_memo import MEMO_FILE, StatusMemo, cache_file, variant
from tests.status_child import ChildInfo, status_child

VARIANTS: tuple[tuple[str, ...], ...] = ((), ("--lang", "en"), ("--json",))


def _child(root: Path, *extra: str) -> tuple[str, str]:
    """`status` in a fresh interpreter (`tests.status_child`): its stdout, and "<pydantic imported> <full report
    imported> <exit code>"."""
    out, info = status_child(root, *extra)
    return out, f"{info['pydantic']} {info['full']} {info['rc']}"


def _model_names(info: ChildInfo) -> str:
    """The studio's model classes the child built, by class name, comma-separated."""
    return ",".join(sorted({m.split(":")[1] for m in info["models"]}))


def _grow(paths: ProjectPaths, n: int = 1) -> None:
    chapter = paths.chapter(n)
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n\n又写了一段，整整二十个字的新段落在这里结束。\n", encoding="utf-8")


def test_chapter_text_alone_is_recounted_without_pydantic(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    for extra in VARIANTS:
        _, loaded = _child(root, *extra)
        assert loaded == "True True 0"  # the full report, kept for each variant
    _grow(paths)
    lights = []
    for extra in VARIANTS:
        light, loaded = _child(root, *extra)
        assert loaded == "False False 0"  # recounted: no pydantic, no report module
        again, loaded = _child(root, *extra)
        assert again == light and loaded == "False False 0"  # and then the memo's output
        lights.append(light)
    cache_file(root, MEMO_FILE).unlink()
    for extra, light in zip(VARIANTS, lights, strict=True):
        full, loaded = _child(root, *extra)
        assert loaded == "True True 0"
        assert light == full, extra  # what a run without any memo prints
    assert "字数" in lights[0] and json.loads(lights[2])["total_chars"] > 0


def test_a_rejudged_evaluation_builds_only_its_own_models(tmp_path: Path) -> None:
    """The first `status` after a judge ran again on one chapter validates that evaluation alone: no report
    module, no project model, only the evaluation's model classes (the full report builds over 60)."""
    root = init_project(tmp_path / "novel", sample=True)
    _child(root)
    _rejudge(ProjectPaths(root))
    _, info = status_child(root)
    assert (info["pydantic"], info["full"], info["rc"]) == (True, False, 0)  # the evaluation validated; no full report
    names = _model_names(info).split(",")
    assert "Evaluation" in names and "Checkpoint" not in names and "StatusReport" not in names
    assert len(names) <= 12, names


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each `status` in this process was answered: "full" (the report built) or "light" (recounted), with
    the racy window shut."""
    monkeypatch.setattr(memo_module, "RACY_NS", 0)
    seen: list[str] = []
    real_build = status_module.build_status

    def build(*args: object, **kwargs: object) -> status_module.StatusReport:
        seen.append("full")
        return real_build(*args, **kwargs)  # type: ignore[arg-type]

    import studio.status_words as words_module

    real_recount = words_module.recount

    def recount(root: Path) -> tuple[int, int] | None:
        seen.append("light")
        return real_recount(root)

    monkeypatch.setattr(status_module, "build_status", build)
    monkeypatch.setattr(words_module, "recount", recount)
    return seen


def _status(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[int, str]:
    rc = main(["status", "--project", str(root), *extra])
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def _outputs(capsys: pytest.CaptureFixture[str], root: Path) -> list[tuple[int, str]]:
    return [_status(capsys, root, *extra) for extra in VARIANTS]


def _bytes(data: bytes) -> Callable[[ProjectPaths], object]:
    return lambda p: p.chapter(2).write_bytes(data)


def _two_grow(paths: ProjectPaths) -> None:
    _grow(paths, 1)
    _grow(paths, 2)


def _rejudge(paths: ProjectPaths, **fields: object) -> None:
    """Chapter 1's evaluation with other scores (and `fields`), as a judge run again would write it."""
    path = paths.evaluation(1)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["scores"]["plot_logic"]["score"] = 2
    data["scores"]["immersion"]["score"] = 3
    path.write_text(json.dumps({**data, **fields}, ensure_ascii=False), encoding="utf-8")


def _touch_evaluation(paths: ProjectPaths) -> None:
    path = paths.evaluation(2)
    path.write_bytes(path.read_bytes())
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns - 5_000_000_000))  # another mtime, in the past


def _rejudge_and_grow(paths: ProjectPaths) -> None:
    _rejudge(paths)
    _grow(paths)


def _chapter_folder(paths: ProjectPaths) -> None:
    paths.chapter(2).unlink()
    paths.chapter(2).mkdir()


# change -> whether the kept report may answer (only chapter text changed, and nothing is wrong)
CHANGES: dict[str, tuple[Callable[[ProjectPaths], object], bool]] = {
    "a chapter grows": (_grow, True),
    "two chapters change": (_two_grow, True),
    "a chapter shrinks to one line": (_bytes("# 第2章 短\n\n只剩一句。\n".encode()), True),
    "a chapter emptied": (_bytes(b""), False),  # the cold-start check refuses: the layout differs
    "a chapter not UTF-8": (_bytes(b"\xff\xfe\x00 broken"), False),  # a problem only the full run words
    "a chapter removed": (lambda p: p.chapter(2).unlink(), False),
    "a chapter added": (lambda p: p.chapter(3).write_text("# 第3章 新\n\n正文。\n", encoding="utf-8"), False),
    "a chapter made a folder": (_chapter_folder, False),
    "an evaluation broken": (lambda p: p.evaluation(1).write_text("{oops", encoding="utf-8"), False),
    "an evaluation rejudged": (_rejudge, True),
    "an evaluation rejudged, the plugin's words": (lambda p: _rejudge(p, recommendation="pause_for_user"), True),
    "an evaluation force-passed": (lambda p: _rejudge(p, force_passed=True, recommendation="revise"), True),
    "an evaluation touched": (_touch_evaluation, True),
    "an evaluation and a chapter change": (_rejudge_and_grow, True),
    "an evaluation without a dimension": (lambda p: _rejudge(p, scores={"plot_logic": {"score": 3}}), False),
    "an evaluation removed": (lambda p: p.evaluation(2).unlink(), False),
    "an evaluation added": (lambda p: p.evaluation(3).write_bytes(p.evaluation(1).read_bytes()), False),
    "world rules broken": (lambda p: p.world_rules.write_text('{"rules": 3}', encoding="utf-8"), False),
    "a summary changed": (lambda p: p.summary(1).write_text("新的摘要。\n", encoding="utf-8"), False),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_light_and_full_answers_are_the_same(change: str, tmp_path: Path, runs: list[str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    _outputs(capsys, root)
    assert runs == ["full"] * len(VARIANTS)
    runs.clear()

    apply, light = CHANGES[change]
    apply(paths)
    answered = _outputs(capsys, root)
    if light:
        assert runs == ["light"] * len(VARIANTS)
    else:  # each answered in full (or refused: a broken file Project.open reports, exit 1)
        assert runs.count("full") == len(VARIANTS) or all(rc == 1 for rc, _ in answered)
    runs.clear()
    cache_file(root, MEMO_FILE).unlink(missing_ok=True)
    assert _outputs(capsys, root) == answered  # a run without any memo prints the same, exit status too
    assert "light" not in runs


def test_a_kept_report_with_problems_or_of_another_shape_is_not_believed(
    tmp_path: Path, runs: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    paths.evaluation(1).write_text("{oops", encoding="utf-8")  # a problem the report lists
    _status(capsys, root)
    _grow(paths)
    rc, text = _status(capsys, root)
    assert rc == 0 and runs == ["full", "full"] and "chapter-001-eval.json" in text

    paths.evaluation(1).unlink()
    _status(capsys, root)
    memo = cache_file(root, MEMO_FILE)
    data = json.loads(memo.read_text(encoding="utf-8"))
    for kept in data["reports"].values():
        del kept["data"]["lock"]  # a memo edited by hand
    memo.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    _grow(paths)
    runs.clear()
    rc, text = _status(capsys, root)
    assert rc == 0 and runs == ["light", "full"] and "锁" in text


def test_the_layout_key_leaves_out_chapter_text_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo_module, "RACY_NS", 0)
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    key = variant(None, False)
    before = StatusMemo.probe(root, key)
    _grow(paths)
    grown = StatusMemo.probe(root, key)
    assert grown.key != before.key and grown.layout == before.layout
    paths.chapter(1).write_bytes(b"")
    assert StatusMemo.probe(root, key).layout != before.layout  # empty is part of the layout
    _grow(paths)
    paths.summary(1).write_text("新的摘要。\n", encoding="utf-8")
    assert StatusMemo.probe(root, key).layout != before.layout  # any other file is the full key's


def test_json_names_the_project_folder_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The memo is kept per resolved folder; `--json` prints the folder as given, so that is part of its
    variant (a memo of `--project .` is never replayed for `--project /abs/path`)."""
    monkeypatch.setattr(memo_module, "RACY_NS", 0)
    root = init_project(tmp_path / "novel", sample=True)
    monkeypatch.chdir(tmp_path)
    assert main(["status", "--json", "--project", "novel"]) == 0
    assert json.loads(capsys.readouterr().out)["root"] == "novel"
    assert main(["status", "--json", "--project", str(root)]) == 0
    assert json.loads(capsys.readouterr().out)["root"] == str(root)


def test_only_a_changed_evaluation_is_rescored(tmp_path: Path, runs: list[str], monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A chapter edit alone reads no evaluation and no score cache: the kept report's scores were read under the
    same evaluations (`KeptReport.scores`); an evaluation's change rescores."""
    import studio.status_scores as scores_module

    rescored: list[Path] = []
    real = scores_module.rescore

    def rescore(root: Path) -> dict[str, object] | None:
        rescored.append(root)
        return real(root)

    monkeypatch.setattr(scores_module, "rescore", rescore)
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    _status(capsys, root)
    _grow(paths)
    _status(capsys, root)
    _grow(paths, 2)
    _status(capsys, root)
    assert runs == ["full", "light", "light"] and rescored == []
    _rejudge(paths)
    _status(capsys, root)
    _grow(paths)
    _, grown = _status(capsys, root)
    assert runs[3:] == ["light", "light"] and len(rescored) == 1
    cache_file(root, MEMO_FILE).unlink()
    assert _status(capsys, root)[1] == grown  # what a run without any memo prints


def test_a_rejudge_the_commit_recorded_builds_no_model(tmp_path: Path) -> None:
    """The commit keeps the score of the evaluation it moved into place (`record_score`): the next `status`
    imports no pydantic at all, and prints what a run without any memo or score cache prints."""
    from studio.status_scores import EVALUATION_CACHE, record_score

    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    for extra in VARIANTS:
        _child(root, *extra)
    _rejudge(paths, force_passed=True)
    assert record_score(root, paths.evaluation(1))
    lights = []
    for extra in VARIANTS:
        out, info = status_child(root, *extra)
        seen = (_model_names(info), info["pydantic"], info["full"], info["rc"])
        assert seen == ("", False, False, 0), extra  # no model class, no pydantic, no full report
        lights.append(out)
    cache_file(root, MEMO_FILE).unlink()
    cache_file(root, EVALUATION_CACHE).unlink()
    for extra, light in zip(VARIANTS, lights, strict=True):
        full, loaded = _child(root, *extra)
        assert loaded == "True True 0" and light == full, extra


def test_a_recorded_score_is_not_believed_once_the_file_changes(tmp_path: Path, runs: list[str],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A hand edit after the commit's record: the new bytes are scored, as without the record."""
    from studio.status_scores import EVALUATION_CACHE, record_score


    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    _outputs(capsys, root)
    _rejudge(paths)
    assert record_score(root, paths.evaluation(1))
    recorded = _outputs(capsys, root)
    data = json.loads(paths.evaluation(1).read_text(encoding="utf-8"))
    data["scores"]["pacing"]["score"] = 1
    paths.evaluation(1).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    answered = _outputs(capsys, root)
    assert runs == ["full"] * len(VARIANTS) + ["light"] * len(VARIANTS) * 2
    assert all(a != r for a, r in zip(answered, recorded, strict=True))  # the edit shows
    cache_file(root, MEMO_FILE).unlink()
    cache_file(root, EVALUATION_CACHE).unlink()
    assert _outputs(capsys, root) == answered  # what a run without memo and score cache prints
