"""Questions over the people world: hand-written specs, a topic and gold answers for each, the files.

A spec is a wording with `[X]` for the topic and its gold chain; :func:`pick_questions` gives it a
topic whose chain reaches a few answers in the generated world, and :func:`write_questions` writes
them in the MetaQA format.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pathrag_gds.datasets.metaqa_questions import ChainStep, format_chain, parse_chain
from pathrag_gds.ontology import Ontology

if TYPE_CHECKING:
    from pathrag_gds.datasets.people import PeopleWorld

#: One hop of a chain (see :data:`pathrag_gds.datasets.people.Step`).
Step = ChainStep


@dataclass(frozen=True, slots=True)
class QuestionSpec:
    """A hand-written question: its wording with `[X]` for the topic, and the gold chain."""

    hop: int
    chain: tuple[Step, ...]
    wording: str
    line: int = 0

    @property
    def chain_text(self) -> str:
        """`rel:dir,rel:dir`: the chain as in the chains file."""
        return format_chain(self.chain)


@dataclass(frozen=True, slots=True)
class PickedQuestion:
    """A spec with its topic entity and the gold answers from walking the chain."""

    spec: QuestionSpec
    topic: str
    answers: tuple[str, ...]

    def line(self) -> str:
        """`question with [topic]<TAB>a1|a2`, the MetaQA format."""
        return f"{self.spec.wording.replace('[X]', f'[{self.topic}]')}\t{'|'.join(self.answers)}"


def read_specs(path: str | Path) -> list[QuestionSpec]:
    """Read `hop<TAB>chain<TAB>wording` lines (`#` comments and the header skipped).

    Raises:
        ValueError: a malformed line, a hop count that is not the chain's length, or no `[X]`.
    """
    out = []
    for i, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip() or raw.startswith("#") or raw.startswith("hop\t"):
            continue
        parts = raw.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{path}:{i}: expected hop<TAB>chain<TAB>wording")
        chain = parse_chain(parts[1])
        if int(parts[0]) != len(chain) or parts[2].count("[X]") != 1:
            raise ValueError(f"{path}:{i}: hop must equal the chain length and [X] appear once")
        out.append(QuestionSpec(int(parts[0]), chain, parts[2].strip(), i))
    return out


def topic_label(chain: Sequence[Step], ontology: Ontology) -> str:
    """The entity type a chain starts from (source of an `out`/`both` step, target of an `in` step)."""
    rel, d = chain[0]
    rt = ontology.relation(rel)
    labels = rt.target_labels if d == "in" else rt.source_labels
    if not labels:
        raise ValueError(f"relation {rel!r} has no source/target type in ontology {ontology.id}")
    return labels[0]


def pick_questions(
    world: PeopleWorld,
    specs: Sequence[QuestionSpec],
    ontology: Ontology,
    seed: int = 0,
    max_answers: int = 20,
) -> tuple[list[PickedQuestion], list[QuestionSpec]]:
    """Give each spec a topic whose chain reaches 1..`max_answers` entities, each topic used once.

    Topics with at most 10 answers are preferred. Returns the picked questions and the specs that
    found no topic. Deterministic for a world and seed.
    """
    used: set[str] = set()
    picked: list[PickedQuestion] = []
    dropped: list[QuestionSpec] = []
    for spec in specs:
        rng = random.Random(f"{seed}:{spec.hop}:{spec.line}:{spec.wording}")
        pool = world.entities_of(topic_label(spec.chain, ontology))
        rng.shuffle(pool)
        choice: PickedQuestion | None = None
        for cap in (10, max_answers):
            for topic in pool:
                if topic in used:
                    continue
                answers = world.walk(topic, spec.chain)
                if 1 <= len(answers) <= cap:
                    choice = PickedQuestion(spec, topic, tuple(sorted(answers)))
                    break
            if choice is not None:
                break
        if choice is None:
            dropped.append(spec)
            continue
        used.add(choice.topic)
        picked.append(choice)
    return picked, dropped


def write_questions(picked: Sequence[PickedQuestion], out_dir: Path) -> list[Path]:
    """Write `N-hop.txt` and `N-hop_chains.txt` per hop count into `out_dir`; returns the question files."""
    by_hop: dict[int, list[PickedQuestion]] = defaultdict(list)
    for q in picked:
        by_hop[q.spec.hop].append(q)
    files = []
    for hop, qs in sorted(by_hop.items()):
        qf = out_dir / f"{hop}-hop.txt"
        qf.write_text("".join(q.line() + "\n" for q in qs), encoding="utf-8")
        (out_dir / f"{hop}-hop_chains.txt").write_text(
            "".join(q.spec.chain_text + "\n" for q in qs), encoding="utf-8"
        )
        files.append(qf)
    return files
