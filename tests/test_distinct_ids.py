"""The one "distinct ids" check of the reply models (`studio.models.distinct`): the import survey, the quick
start's world and cast replies and CharacterWeaver's characters refuse a repeated id or name with the same
message, which the repair loop sends back to the model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.importing.replies import ImportSurveyReply
from studio.models.distinct import require_distinct
from studio.models.woven_character import WovenCharacter
from studio.planning.quick_start_replies import CastReply, LightWorldReply


def _character(slug: str, name: str) -> dict[str, Any]:
    return {"id": slug, "display_name": name, "contracts": [{"id": f"C-{slug.upper()}-001", "rule": "从不说谎"}]}


def test_require_distinct() -> None:
    require_distinct("ids", ["a", "b"])
    require_distinct("ids", [])
    with pytest.raises(ValueError, match=r"^rule ids must be distinct: \['R1', 'R1'\]$"):
        require_distinct("rule ids", ["R1", "R1"])


@pytest.mark.parametrize(
    ("model", "data", "message"),
    [
        (ImportSurveyReply, {"characters": [_character("lin", "林枫"), _character("lin", "林峰")],
                             "storylines": [{"id": "x", "name": "主线", "type": "main_arc"}]}, "character ids"),
        (ImportSurveyReply, {"characters": [_character("lin", "林枫"), _character("su", "林枫")],
                             "storylines": [{"id": "x", "name": "主线", "type": "main_arc"}]}, "display names"),
        (ImportSurveyReply, {"characters": [_character("lin", "林枫")],
                             "storylines": [{"id": "x", "name": "主线", "type": "main_arc"},
                                            {"id": "y", "name": "支线", "type": "subplot"},
                                            {"id": "y", "name": "支线二", "type": "subplot"}]}, "storyline ids"),
        (CastReply, {"characters": [_character("lin", "林枫"), _character("lin", "林峰")]}, "character ids"),
        (CastReply, {"characters": [_character("lin", "林枫"), _character("su", "林枫")]}, "display names"),
        (LightWorldReply, {"rules": [{"id": "W-001", "rule": "甲"}, {"id": "W-001", "rule": "乙"}]}, "rule ids"),
        (WovenCharacter, {"id": "lin", "display_name": "林枫",
                          "contracts": [{"id": "C-1", "rule": "甲"}, {"id": "C-1", "rule": "乙"}]},
         "contract ids of lin"),
    ],
)
def test_every_reply_refuses_a_repeat(model: Any, data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=f"{message} must be distinct"):
        model.model_validate(data)
