"""Quote lookup for the judge's evidence: normalised, abridged, near misses, and inventions."""

from __future__ import annotations

from studio.checks.quotes import QuoteIndex, normalise

CHAPTER = "# 第1章 雾港\n\n　　沈照推开门，屋里没有人。\n　　“你来晚了。”许青禾说，“船已经走了。”\n"


def test_normalise_ignores_space_punctuation_and_width() -> None:
    assert normalise("“你 来晚了！”ＡＢ１")[0] == "你来晚了ab1"


def test_exact_quotes_with_other_punctuation_are_found_with_their_place() -> None:
    index = QuoteIndex(CHAPTER)
    found = index.find("你来晚了，许青禾说")
    assert found is not None and found.exact
    assert CHAPTER[found.start : found.end] == "你来晚了。”许青禾说"
    assert index.locate("屋里没有人") == (1, 6)


def test_abridged_quotes_need_their_pieces_in_order() -> None:
    index = QuoteIndex(CHAPTER)
    assert index.find("沈照推开门……船已经走了") is not None
    assert index.find("船已经走了……沈照推开门") is None


def test_near_misses_are_found_but_not_exact_and_inventions_are_not_found() -> None:
    index = QuoteIndex(CHAPTER)
    near = index.find("你来晚了许青禾道船已经走了")
    assert near is not None and not near.exact
    assert index.find("沈照拔出长剑，一剑斩下") is None
    assert index.find("雾港") is None  # the title is not chapter text
    assert index.find("，。") is None


def test_judge_evidence_check_reports_only_invented_quotes() -> None:
    from studio.checks.evidence import JudgeQuoteCheck
    from studio.checks.matcher import Matcher
    from studio.checks.names import NameRegistry
    from studio.checks.registry import ChapterText, CheckContext
    from studio.models.evaluation import Evaluation

    dims = ["plot_logic", "character", "immersion", "foreshadowing", "pacing", "style_naturalness"]
    scores = {d: {"score": 4, "evidence": "沈照推开门"} for d in dims}
    scores["emotional_impact"] = {"score": 4, "evidence": "他说“你来晚了”，又补了一句“船已经走了”"}
    scores["storyline_coherence"] = {"score": 5, "evidence": "许青禾拔剑而起"}
    evaluation = Evaluation.parse_data({"chapter": 1, "scores": scores})
    ctx = CheckContext([ChapterText(1, CHAPTER)], NameRegistry([]), Matcher([]), evaluations={1: evaluation})
    found = list(JudgeQuoteCheck().run(ctx))
    assert [(f.kind, f.text) for f in found] == [("judge_quote_missing", "许青禾拔剑而起")]
