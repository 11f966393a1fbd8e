r"""The "people" world: a generated knowledge graph of families, companies and places.

A second graph besides MetaQA that the search was never tuned on. Pure and deterministic: the same
seed gives the same triples, byte for byte, with no network and no file read. Its ontology, with
relation phrases written for this graph, is `data/people_ontology.yaml`.

What is in it (default scale 1.0: 2,625 entities, 11,866 relationships):

- three generations of families: married couples (`married_to`), their children (`parent_of`,
  stored parent -> child only) and the children's siblings (`sibling_of`), children married to
  newcomers or to a child of another family, with children of their own;
- friendships (`friend_of`) and mentors (`mentor_of`) between people;
- people born in and living in cities, studying at universities, working for companies, some of
  which they founded or run (`ceo_of`);
- companies with a head office (`headquartered_in`), products (`makes`), an industry, takeovers
  (`acquired`) and partnerships (`partners_with`);
- cities in countries (`located_in`, one `capital_of` per country), universities in cities.

Symmetric relationships (`married_to`, `sibling_of`, `friend_of`, `partners_with`) are stored ONCE
per pair, from the entity whose name sorts first (`symmetric="both"` stores both directions).
Names are invented from syllables and name lists and are unique across the whole graph, so a
question can name any entity and a triple file row means one node.

Example:
    >>> w = generate(seed=1, scale=0.1)
    >>> w == generate(seed=1, scale=0.1)
    True
    >>> sorted(w.relation_counts())[:3]
    ['acquired', 'born_in', 'campus_in']
    >>> w.walk(w.entities_of("Country")[0], [("located_in", "in")]) != set()
    True
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pathrag_gds.datasets.metaqa_questions import ChainStep
from pathrag_gds.datasets.ontology_files import DATA_DIR, read_ontology
from pathrag_gds.datasets.people_names import (
    COMPANY_END,
    FIRST_F,
    FIRST_M,
    INDUSTRIES,
    PRODUCT_WORDS,
    Names,
    last_name,
)
from pathrag_gds.datasets.people_questions import (
    PickedQuestion,
    QuestionSpec,
    pick_questions,
    read_specs,
    topic_label,
    write_questions,
)

__all__ = [
    "PEOPLE_ONTOLOGY",
    "SYMMETRIC",
    "PeopleTriple",
    "PeopleWorld",
    "PickedQuestion",
    "QuestionSpec",
    "Step",
    "generate",
    "main",
    "pick_questions",
    "read_specs",
    "topic_label",
    "write_questions",
]

#: The ontology of this graph (hand-written phrases).
PEOPLE_ONTOLOGY = DATA_DIR / "people_ontology.yaml"

#: Relationship types stored once per unordered pair (their phrase reads the same both ways).
SYMMETRIC = frozenset({"married_to", "sibling_of", "friend_of", "partners_with"})

#: One hop of a chain: relationship type and walk direction, `out` (along the stored arrow), `in`
#: (against it) or `both` (either way: symmetric types).
Step = ChainStep


@dataclass(frozen=True, slots=True)
class PeopleTriple:
    """One stored relationship (names, as in the TSV file) with its optional year."""

    subject: str
    relation: str
    object: str
    year: int | None = None


@dataclass
class PeopleWorld:
    """The generated graph: typed entities by name and the stored triples."""

    seed: int
    scale: float
    symmetric: str
    labels: dict[str, str] = field(default_factory=dict)  #: name -> entity type label
    triples: list[PeopleTriple] = field(default_factory=list)
    _adj: dict[tuple[str, str, str], set[str]] = field(default_factory=dict, repr=False, compare=False)

    def entities_of(self, label: str) -> list[str]:
        """Names of one entity type, sorted."""
        return sorted(n for n, lab in self.labels.items() if lab == label)

    def relation_counts(self) -> dict[str, int]:
        """Stored triples per relationship type."""
        return dict(sorted(Counter(t.relation for t in self.triples).items()))

    def label_counts(self) -> dict[str, int]:
        """Entities per type."""
        return dict(sorted(Counter(self.labels.values()).items()))

    def _adjacency(self) -> dict[tuple[str, str, str], set[str]]:
        if not self._adj:
            for t in self.triples:
                self._adj.setdefault((t.subject, t.relation, "out"), set()).add(t.object)
                self._adj.setdefault((t.object, t.relation, "in"), set()).add(t.subject)
        return self._adj

    def walk(self, topic: str, chain: Sequence[Step]) -> set[str]:
        """The entities at the end of `chain` from `topic`, on simple walks (no entity visited twice).

        `both` follows the relationship in either direction. The topic is never an answer.

        >>> w = generate(seed=0, scale=0.1)
        >>> city = w.entities_of("City")[0]
        >>> w.walk(city, [("located_in", "out")]) <= set(w.entities_of("Country"))
        True
        """
        adj = self._adjacency()
        frontier: set[tuple[str, ...]] = {(topic,)}
        for rel, direction in chain:
            dirs = ("out", "in") if direction == "both" else (direction,)
            nxt: set[tuple[str, ...]] = set()
            for walk in frontier:
                for d in dirs:
                    for n in adj.get((walk[-1], rel, d), ()):
                        if n not in walk:
                            nxt.add((*walk, n))
            frontier = nxt
        return {w[-1] for w in frontier}

    def tsv(self) -> str:
        """The triples as a TSV file for `load triples --format tsv` (header with a `year` column)."""
        lines = ["subject\trelation\tobject\tyear"]
        lines += [f"{t.subject}\t{t.relation}\t{t.object}\t{t.year or ''}" for t in self.triples]
        return "\n".join(lines) + "\n"


@dataclass
class _Person:
    name: str
    last: str
    female: bool
    generation: int
    born: int


def generate(seed: int = 0, scale: float = 1.0, symmetric: str = "once") -> PeopleWorld:
    """Generate the world.

    Args:
        seed: the random seed (same seed, same world).
        scale: size factor; 1.0 gives about 2,600 entities, 0.1 a few hundred (for tests).
        symmetric: `once` (one triple per pair, default) or `both` (both directions stored).

    Raises:
        ValueError: `scale` not positive or `symmetric` unknown.
    """
    if scale <= 0:
        raise ValueError(f"scale must be positive (got {scale})")
    if symmetric not in ("once", "both"):
        raise ValueError(f"symmetric must be 'once' or 'both' (got {symmetric!r})")
    r = random.Random(seed)
    names = Names(r)
    w = PeopleWorld(seed=seed, scale=scale, symmetric=symmetric)
    triples: list[PeopleTriple] = []

    def n(x: float) -> int:
        return max(2, round(x * scale))

    def add(label: str, name: str) -> str:
        w.labels[name] = label
        return name

    def rel(s: str, t: str, o: str, year: int | None = None) -> None:
        if t in SYMMETRIC:
            a, b = sorted((s, o))
            triples.append(PeopleTriple(a, t, b, year))
            if symmetric == "both":
                triples.append(PeopleTriple(b, t, a, year))
        else:
            triples.append(PeopleTriple(s, t, o, year))

    # --- places ---------------------------------------------------------------------------------
    countries = [add("Country", names.take(names.country())) for _ in range(n(30))]
    cities: list[str] = []
    for country in countries:
        local = [
            add("City", names.take(names.place())) for _ in range(r.randint(4, 9) if scale >= 0.5 else 2)
        ]
        rel(local[0], "capital_of", country)
        for c in local:
            rel(c, "located_in", country)
        cities += local
    city_weight = [r.paretovariate(2.0) for _ in cities]
    universities = []
    for _ in range(n(45)):
        city = r.choices(cities, city_weight)[0]
        styles = [f"University of {city}", f"{city} Institute of Technology", f"{city} State University"]
        if r.random() < 0.4:
            styles.insert(0, f"{next(names.place())} College")
        uni = add("University", names.take(itertools.chain(styles, (f"{x} College" for x in names.place()))))
        rel(uni, "campus_in", city)
        universities.append(uni)
    industries = [add("Industry", names.take([i])) for i in INDUSTRIES]

    # --- companies --------------------------------------------------------------------------------
    companies = []
    for _ in range(n(300)):
        co = add("Company", names.take(f"{x} {r.choice(COMPANY_END)}" for x in names.place()))
        companies.append(co)
        rel(co, "headquartered_in", r.choices(cities, city_weight)[0])
        rel(co, "in_industry", r.choice(industries))
        for _ in range(r.choice((0, 1, 1, 1, 2, 2, 3))):
            word = r.choice(PRODUCT_WORDS)
            stem = f"{co.split()[0]} {word}"
            product = add("Product", names.take(f"{stem} {k}" if k else stem for k in range(99)))
            rel(co, "makes", product)
    company_weight = [r.paretovariate(1.6) for _ in companies]
    for _ in range(n(45)):
        buyer, target = r.sample(companies, 2)
        rel(buyer, "acquired", target, r.randint(1995, 2024))
    seen_pairs: set[tuple[str, str]] = set()
    for _ in range(n(90)):
        a, b = sorted(r.sample(companies, 2))
        if (a, b) not in seen_pairs:
            seen_pairs.add((a, b))
            rel(a, "partners_with", b, r.randint(2005, 2025))

    # --- families --------------------------------------------------------------------------------
    people: list[_Person] = []

    def person(last: str, female: bool, generation: int, born: int, avoid: Iterable[str] = ()) -> _Person:
        taken = set(avoid)
        first = r.choice([f for f in (FIRST_F if female else FIRST_M) if f not in taken])
        p = _Person(add("Person", names.take(names.person(first, last))), last, female, generation, born)
        people.append(p)
        return p

    def family(a: _Person, b: _Person, kids: int, generation: int) -> list[_Person]:
        rel(a.name, "married_to", b.name, max(a.born, b.born) + r.randint(20, 35))
        last = r.choice((a.last, b.last))
        children: list[_Person] = []
        for _ in range(kids):  # no two siblings share a first name
            born = max(a.born, b.born) + r.randint(22, 40)
            avoid = [c.name.split()[0] for c in children]
            children.append(person(last, r.random() < 0.5, generation, born, avoid))
        for c in children:
            rel(a.name, "parent_of", c.name)
            rel(b.name, "parent_of", c.name)
        for i, c in enumerate(children):
            for d in children[i + 1 :]:
                rel(c.name, "sibling_of", d.name)
        return children

    second: list[_Person] = []
    for _ in range(n(240)):
        born = r.randint(1935, 1960)
        husband = person(last_name(r), False, 0, born)
        wife = person(last_name(r), True, 0, born + r.randint(-4, 4))
        second += family(husband, wife, r.choice((0, 1, 2, 2, 2, 3, 3, 4)), 1)
    single = [k for k in second if r.random() < 0.15]  # some children of two families marry each other
    spouses: dict[str, _Person] = {}
    for p1, p2 in zip(single[::2], single[1::2], strict=False):
        if p1.female != p2.female and p1.last != p2.last:
            spouses[p1.name], spouses[p2.name] = p2, p1
    third: list[_Person] = []
    for kid in second:
        if kid.name in spouses:
            if kid.name < spouses[kid.name].name:
                third += family(kid, spouses[kid.name], r.choice((0, 1, 2, 2, 3)), 2)
        elif r.random() < 0.55:
            partner = person(last_name(r), not kid.female, 1, kid.born + r.randint(-5, 5))
            third += family(kid, partner, r.choice((0, 1, 1, 2, 2, 3)), 2)
    grown = [g for g in third if g.born < 1998 and r.random() < 0.3]  # a few grandchildren married
    for p1, p2 in zip(grown[::2], grown[1::2], strict=False):
        if p1.last != p2.last:
            rel(p1.name, "married_to", p2.name, max(p1.born, p2.born) + r.randint(22, 30))

    # --- where people come from, what they do ------------------------------------------------------
    names_of = [p.name for p in people]
    for p in people:
        home = r.choices(cities, city_weight)[0]
        rel(p.name, "born_in", home)
        rel(p.name, "lives_in", home if r.random() < 0.35 else r.choices(cities, city_weight)[0])
        if p.born < 2003 and r.random() < 0.55:
            for uni in r.sample(universities, 1 if r.random() < 0.85 else 2):
                rel(p.name, "studied_at", uni, p.born + r.randint(21, 26))
    adults = [p for p in people if p.born < 2004]
    employees: dict[str, list[str]] = defaultdict(list)
    for p in adults:
        if r.random() < 0.75:
            co = r.choices(companies, company_weight)[0]
            rel(p.name, "works_for", co, min(2025, p.born + r.randint(22, 40)))
            employees[co].append(p.name)
    for co in companies:
        for founder in r.sample(adults, r.choice((1, 1, 1, 2, 2, 3))):
            rel(founder.name, "founded", co, r.randint(1970, 2020))
        if employees[co] and r.random() < 0.8:
            rel(r.choice(employees[co]), "ceo_of", co)
        elif r.random() < 0.6:
            rel(r.choice(adults).name, "ceo_of", co)
    for staff in employees.values():  # mentors mostly work at the same company
        for mentee in staff:
            if len(staff) > 1 and r.random() < 0.3:
                mentor = r.choice([s for s in staff if s != mentee])
                rel(mentor, "mentor_of", mentee)
    friends: set[tuple[str, str]] = set()
    for _ in range(n(1400)):
        a, b = sorted(r.sample(names_of, 2))
        if (a, b) not in friends:
            friends.add((a, b))
            rel(a, "friend_of", b)

    uniq: dict[tuple[str, str, str], PeopleTriple] = {}
    for t in triples:
        uniq.setdefault((t.subject, t.relation, t.object), t)
    w.triples = list(uniq.values())
    used = {t.subject for t in w.triples} | {t.object for t in w.triples}
    w.labels = {name: label for name, label in w.labels.items() if name in used}  # as the TSV holds them
    return w


def main(argv: Sequence[str] | None = None) -> int:
    """Write the world as a TSV triple file, or pick topics and gold answers for the question specs.

    `python -m pathrag_gds.datasets.people triples --out people.tsv`
    `python -m pathrag_gds.datasets.people questions tests/data/people/questions.tsv`
    """
    ap = argparse.ArgumentParser(prog="python -m pathrag_gds.datasets.people", description=main.__doc__)
    ap.add_argument("what", choices=("triples", "questions"))
    ap.add_argument("spec", nargs="?", type=Path, default=None, help="questions: the spec TSV")
    ap.add_argument("--out", type=Path, default=None, help="triples: the TSV file; questions: the folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--symmetric", choices=("once", "both"), default="once")
    args = ap.parse_args(argv)
    w = generate(args.seed, args.scale, args.symmetric)
    if args.what == "triples":
        out = args.out or Path("people.tsv")
        out.write_text(w.tsv(), encoding="utf-8")
        print(
            f"{out}: {len(w.labels):,} entities {w.label_counts()}, {len(w.triples):,} triples; load it:\n"
            f"  python -m pathrag_gds load triples {out} --format tsv --ontology {PEOPLE_ONTOLOGY} "
            "--community people",
            file=sys.stderr,
        )
        return 0
    if args.spec is None:
        ap.error("questions needs the spec file")
    specs = read_specs(args.spec)
    picked, dropped = pick_questions(w, specs, read_ontology(PEOPLE_ONTOLOGY), seed=args.seed)
    files = write_questions(picked, args.out or args.spec.parent)
    for spec in dropped:
        print(f"{args.spec}:{spec.line}: no topic with 1-20 answers: {spec.wording}", file=sys.stderr)
    print(f"{len(picked)} questions written to {', '.join(map(str, files))}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
