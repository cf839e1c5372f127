"""The reference plugin's file shapes (DankerMu/novel-writer-plugin), issue 11: each model reads them as an
accepted input variant and writes back what it read; changelog lines without state versions are history;
and item 19: evaluations written by the pipeline state the seed's eight weights.
"""

from __future__ import annotations

from pipeline.replies import JudgeReply
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation

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
