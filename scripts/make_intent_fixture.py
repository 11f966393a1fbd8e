"""Write tests/fixtures/intent_cases.yaml: the inferred intent of the Bob questions and 30 MetaQA dev ones.

Gold types: the label of a Bob question's first answer entity (bob_eval.yaml / bob.yaml); for MetaQA
the last element of the question's qtype (`..._to_director` -> Person). No database: the ontologies
come from the YAML files, named entities from bob.yaml (MetaQA marks them in brackets).

Usage:
    python scripts/make_intent_fixture.py [--per-hop 10]
"""

from __future__ import annotations

import argparse
import random
from importlib import resources
from pathlib import Path

import yaml

from pathrag_gds.config import METAQA_DIR, get_settings
from pathrag_gds.encoders import get_embedder
from pathrag_gds.intent import infer_intent
from pathrag_gds.ontology import Ontology
from pathrag_gds.paths import EntityRecord

ROOT = Path(__file__).resolve().parent.parent
DATA = resources.files("pathrag_gds.datasets") / "data"
METAQA = METAQA_DIR
OUT = ROOT / "tests" / "fixtures" / "intent_cases.yaml"
#: MetaQA qtype ends -> entity type of the answer (metaqa_ontology.yaml).
QTYPE_TYPES = {
    "movie": "Movie", "actor": "Person", "director": "Person", "writer": "Person", "year": "Year",
    "language": "Language", "genre": "Genre", "tags": "Tag", "imdbrating": "Rating", "imdbvotes": "Votes",
}  # fmt: skip


def main() -> int:
    """Build the fixture."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--per-hop", type=int, default=10)
    args = p.parse_args()
    enc = get_embedder(get_settings())
    bob = yaml.safe_load((DATA / "bob.yaml").read_text(encoding="utf-8"))
    ev = yaml.safe_load((DATA / "bob_eval.yaml").read_text(encoding="utf-8"))
    meta = yaml.safe_load((DATA / "metaqa_ontology.yaml").read_text(encoding="utf-8"))
    bob_ont, meta_ont = Ontology.from_mapping(bob["ontology"]), Ontology.from_mapping(meta["ontology"])
    labels = {e["id"]: e["label"] for e in bob["entities"]}
    cases = []
    for suite in ("spec", "fresh"):
        for q in ev[suite]:
            cases.append({"set": f"bob-{suite}", "question": q["query"], "gold_type": labels[q["answer"][0]]})
    for hop in (1, 2, 3):
        qs = (METAQA / f"{hop}-hop" / "qa_dev.txt").read_text(encoding="utf-8").splitlines()
        ts = (METAQA / f"{hop}-hop" / "qa_dev_qtype.txt").read_text(encoding="utf-8").splitlines()
        for i in sorted(random.Random(hop).sample(range(len(qs)), args.per_hop)):
            cases.append(
                {
                    "set": f"metaqa-{hop}hop",
                    "question": qs[i].split("\t")[0],
                    "qtype": ts[i],
                    "gold_type": QTYPE_TYPES[ts[i].rsplit("_", 1)[-1]],
                }
            )
    ents = [
        EntityRecord(e["id"], (e["label"],), e["name"], e.get("description", ""), e.get("attributes") or {})
        for e in bob["entities"]
    ]
    for c in cases:
        bob_case = c["set"].startswith("bob")
        it = infer_intent(c["question"], bob_ont if bob_case else meta_ont, enc, ents if bob_case else ())
        c["inferred"] = {
            "kind": it.kind,
            "expected_types": it.expected_types,
            "noun": it.noun,
            "hinted_relations": it.hinted_relations[:3],
            "named": list(it.named) or list(it.mentions),
        }
    header = (
        "# Intent of the Bob questions (spec 10 + fresh 10) and 30 MetaQA dev questions (10 per hop).\n"
        "# gold_type: the answer's entity type (Bob: label of the first answer entity; MetaQA: the qtype's\n"
        "# last element). inferred: what pathrag_gds.intent.infer_intent returns (regenerate with\n"
        "# `python scripts/make_intent_fixture.py`); tests/unit/test_intent.py checks both.\n"
    )
    OUT.write_text(
        header + yaml.safe_dump({"cases": cases}, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    ok = sum(c["inferred"]["expected_types"][:1] == [c["gold_type"]] for c in cases)
    print(f"wrote {OUT}: {len(cases)} cases, expected type right at #1 for {ok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
