"""`studio.models.aliases`: the one definition of reading another writer's field names (`renamed`) and looser
words (`lowered`), as the evaluation, schedule, blacklist and relationship models use them."""

from __future__ import annotations

from studio.models.aliases import lowered, renamed
from studio.models.evaluation import ContractCheck, PlatformGate
from studio.models.relationships import Relationship


def test_renamed_reads_the_first_alias_present_and_never_changes_the_input() -> None:
    given = {"rule_id": "W-001", "check_id": "X", "status": "pass"}
    out = renamed(given, "id", ("contract_id", "rule_id", "check_id"))
    assert out == {"check_id": "X", "status": "pass", "id": "W-001"}
    assert given == {"rule_id": "W-001", "check_id": "X", "status": "pass"}  # a copy was changed


def test_renamed_leaves_the_field_given_a_value_of_the_wrong_kind_and_what_is_no_dict() -> None:
    assert renamed({"id": "a", "rule_id": "b"}, "id", ("rule_id",)) == {"id": "a", "rule_id": "b"}
    assert renamed({"rule_id": 7}, "id", ("rule_id",), only=str) == {"rule_id": 7}  # pydantic reports it
    assert renamed({"rule_id": 7, "gate_id": "G"}, "id", ("rule_id", "gate_id"), only=str) == {"rule_id": 7, "id": "G"}
    assert renamed(["rule_id"], "id", ("rule_id",)) == ["rule_id"]
    assert renamed({"x": 1}, "id", ("rule_id",)) == {"x": 1}


def test_lowered_maps_strings_only() -> None:
    assert lowered("  Failed ", {"failed": "violation"}) == "violation"
    assert lowered(" HIGH ") == "high"
    assert lowered("pass", {"failed": "violation"}) == "pass"
    assert lowered(3, {"3": "x"}) == 3


def test_the_models_read_through_them() -> None:
    check = ContractCheck.model_validate({"contract_id": "C-1", "status": " Failed", "confidence": "HIGH"})
    assert (check.id, check.status, check.confidence) == ("C-1", "violation", "high")
    gate = PlatformGate.model_validate({"id": "hook", "status": "Failure"})
    assert (gate.gate_id, gate.status) == ("hook", "fail")
    rel = Relationship.model_validate({"from": "shen", "to": "lin", "value": 30, "note": "旧友"})
    assert (rel.score, rel.description) == (30, "旧友")
