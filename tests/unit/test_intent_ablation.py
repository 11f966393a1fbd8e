"""`scripts/intent_ablation.py`: it knows every rule `infer_intent` applies and passes one over."""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

from pathrag_gds.intent import infer
from pathrag_gds.intent.rules import Draft, read_question
from pathrag_gds.paths import EntityRecord

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "intent_ablation.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("intent_ablation", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_lists_the_rules_infer_intent_applies() -> None:
    applied = set(re.findall(r"\b(\w+_rule)\(", inspect.getsource(infer.infer_intent)))
    assert set(load_script().RULES) == applied


def test_a_rule_switched_off_passes_the_draft_on(monkeypatch: pytest.MonkeyPatch) -> None:
    script = load_script()
    for name in script.RULES:  # restored after the test
        monkeypatch.setattr(infer, name, getattr(infer, name))
    r = read_question("Where does Bob live?", [EntityRecord("bob", ("Animal",), "Bob")])
    asked = Draft(kind="definition", noun="")
    assert infer.named_answer_rule(r, asked).scores == {"Animal": 1.0}
    script.switch_off(["named_answer_rule", "unknown_rule"])
    assert infer.named_answer_rule(r, asked) is asked
    unsure = Draft(noun="")
    assert infer.unknown_rule(unsure) is unsure


def test_an_unknown_rule_name_says_which_exist() -> None:
    with pytest.raises(SystemExit, match=r"no such rule: nope; the rules are: .*noun_rule"):
        load_script().switch_off(["nope"])
