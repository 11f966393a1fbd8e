"""The ontology a Thalabus graph stores for a community, and the relationships it is read through.

Thalabus keeps its ontology as nodes: `Ontology`, `EntityOntology` (an entity type) and
`RelationshipOntology` (a relation type). Which relationships join them is read from the graph,
not assumed (`adopt_thalabus_ontology.cypher` returns every relationship it finds):

- community -> ontology: any relationship between the `Community` and an `Ontology` (Thalabus:
  `BASED_ON`), or the community's `ontology_id`, or `--ontology ID`; `--ontology-rel TYPE` keeps
  only that type;
- ontology -> types: any relationship between the `Ontology` and its `EntityOntology` /
  `RelationshipOntology` nodes (Thalabus: `CONTAINS`), or their `ontology_id`; `--type-rel TYPE`
  keeps only that type;
- a relation type's ends: the `entity_source_labels` / `entity_target_labels` properties where a
  `RelationshipOntology` has them; else the relationships between it and `EntityOntology` nodes.
  Which of those is the source end is told by `--source-rel` / `--target-rel`, else by the type
  names (`SOURCE`, `FROM`, `DOMAIN`, `HEAD`, `SUBJECT` against `TARGET`, `TO`, `RANGE`, `TAIL`,
  `OBJECT`), else by one type's direction (`(source)-[:T]->(rel type)-[:T]->(target)`), else by
  which reading agrees with the ends observed on the relationships themselves.

A type named in an option that the graph lacks is an error naming what the graph has.

Example:
    >>> links = [{"type": "HAS_DOMAIN", "out": True, "label": "person"},
    ...          {"type": "HAS_RANGE", "out": True, "label": "animal"}]
    >>> _by_name({"HAS_DOMAIN:out", "HAS_RANGE:out"})
    ('HAS_DOMAIN:out', 'HAS_RANGE:out')
    >>> _ends(links, "HAS_DOMAIN:out", "HAS_RANGE:out")
    (['person'], ['animal'])
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pathrag_gds.adopt.values import clean
from pathrag_gds.errors import InvalidInput
from pathrag_gds.graph import Graph, quote_identifier
from pathrag_gds.ontology import Ontology

_SOURCE_WORDS = frozenset({"SOURCE", "FROM", "DOMAIN", "HEAD", "SUBJECT", "START", "SRC"})
_TARGET_WORDS = frozenset({"TARGET", "TO", "RANGE", "TAIL", "OBJECT", "END", "DST", "DEST"})
_NAMED_BY = {"ontology_id": "the community's ontology_id", "--ontology": "--ontology"}


@dataclass(frozen=True)
class OntologyLinks:
    """How to find a Thalabus community's ontology; None: read it from the graph."""

    #: the `Ontology` node's id (for a community that does not point to its ontology)
    ontology: str | None = None
    #: the relationship type between the community and its ontology
    ontology_rel: str | None = None
    #: the relationship type between the ontology and its type nodes
    type_rel: str | None = None
    #: the relationship types between a `RelationshipOntology` and its source / target `EntityOntology`
    source_rel: str | None = None
    target_rel: str | None = None

    def check(self) -> None:
        """Refuse a name that cannot be a relationship type."""
        for name in (self.ontology_rel, self.type_rel, self.source_rel, self.target_rel):
            if name is not None:
                quote_identifier(name)
        if (self.source_rel is None) != (self.target_rel is None):
            raise InvalidInput("--source-rel and --target-rel go together: name both ends")


@dataclass(frozen=True)
class Declared:
    """What a graph's own ontology says of its types."""

    #: the ontology nodes read
    ids: tuple[str, ...]
    #: label -> description
    entity_types: dict[str, str] = field(default_factory=dict)
    #: type -> {description, source: [labels], target: [labels], phrase, inverse_phrase, ends} (all optional)
    relation_types: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: how the ontology was reached, for `--dry-run`
    read_through: tuple[str, ...] = ()


def read_declared(graph: Graph, source: str, links: OntologyLinks, source_label: str) -> Declared | None:
    """The ontology stored for the Thalabus community `source`, or None when it names none.

    Raises:
        InvalidInput: an option names an ontology or a relationship type the graph does not have
            there (the message lists what it has).
    """
    links.check()
    rows = graph.read(
        "adopt_thalabus_ontology",
        extra={"source_label": source_label},
        source=source,
        ontology=links.ontology,
    )
    if links.ontology is not None and not rows:
        raise InvalidInput(f"no (:Ontology {{id: {links.ontology!r}}}) in the graph: check --ontology")
    if links.ontology_rel is not None:
        found = Counter(v for r in rows for v in r["via"])
        rows = [r for r in rows if any(_is_type(v, links.ontology_rel) for v in r["via"])]
        if not rows:
            raise InvalidInput(
                f"no {links.ontology_rel} relationship joins the Thalabus community {source!r} to an "
                f"(:Ontology): it is joined by {_listed(found)}; check --ontology-rel (types are "
                "case-sensitive)"
            )
    if not rows:
        return None
    ets = [(r["id"], et) for r in rows for et in r["entity_types"]]
    rts = [(r["id"], rt) for r in rows for rt in r["relation_types"]]
    if links.type_rel is not None:
        found = Counter(v for _, t in ets + rts for v in t["via"])
        ets = [(o, t) for o, t in ets if links.type_rel in t["via"]]
        rts = [(o, t) for o, t in rts if links.type_rel in t["via"]]
        if not ets and not rts:
            raise InvalidInput(
                f"no {links.type_rel} relationship joins the ontology of {source!r} to its "
                f"EntityOntology / RelationshipOntology nodes: they are joined by {_listed(found)}; "
                "check --type-rel (types are case-sensitive)"
            )
    entity_types: dict[str, str] = {}
    for _, et in ets:
        if et.get("label"):
            desc = et.get("entity_description") or et.get("description") or ""
            entity_types[str(et["label"])] = clean(str(desc))
    relation_types: dict[str, dict[str, Any]] = {}
    for _, rt in rts:
        name = rt.get("label") or rt.get("type")
        if name:
            relation_types[str(name)] = {
                "description": clean(str(rt.get("entity_description") or rt.get("description") or "")),
                "source": [str(x) for x in rt.get("entity_source_labels") or []],
                "target": [str(x) for x in rt.get("entity_target_labels") or []],
                "phrase": rt.get("phrase"),
                "inverse_phrase": rt.get("inverse_phrase"),
                "ends": [e for e in rt.get("ends") or [] if e.get("label") is not None],
            }
    via = sorted({v for r in rows for v in r["via"]})
    type_via = sorted({v for _, t in ets + rts for v in t["via"]} - {"ontology_id"})
    ways = [
        f"(:Community){v}(:Ontology)" if v.startswith(("-[", "<-[")) else _NAMED_BY.get(v, v) for v in via
    ]
    kinds = "(:EntityOntology|RelationshipOntology)"
    type_ways = [f"(:Ontology)-[:{'|'.join(type_via)}]-{kinds}"] if type_via else []
    if any("ontology_id" in t["via"] for _, t in ets + rts):
        type_ways.append(f"{kinds} by ontology_id")
    through = (
        f"read through {' and '.join(ways)}, then {' and '.join(type_ways) or 'nothing'}: "
        f"{len(entity_types)} entity type(s), {len(relation_types)} relation type(s)",
    )
    return Declared(tuple(str(r["id"]) for r in rows), entity_types, relation_types, through)


def resolve_ends(declared: Declared, observed: Ontology, links: OntologyLinks) -> Declared:
    """Fill each declared relation type's ends from its `RelationshipOntology` links where needed.

    A relation type with `entity_source_labels` / `entity_target_labels` keeps them, unless
    `--source-rel` / `--target-rel` name the links to read instead.

    Raises:
        InvalidInput: `--source-rel` / `--target-rel` name links the ontology does not have.
    """
    rts = declared.relation_types
    need = {t: d for t, d in rts.items() if links.source_rel or not (d["source"] or d["target"])}
    found = Counter(_token(e) for d in need.values() for e in d["ends"])
    shown = {_arrow(k): v for k, v in found.items()}
    if not need or (not found and not links.source_rel):
        how = "relation ends from entity_source_labels / entity_target_labels" if rts else ""
        return replace(declared, read_through=declared.read_through + ((how,) if how else ()))
    pick: tuple[str, str] | None
    if links.source_rel and links.target_rel:
        pick = _named(found, links.source_rel, links.target_rel)
        how = "as --source-rel / --target-rel name them"
    else:
        pick, how = _infer(found, need, observed)
    if pick is None:
        note = (
            f"relation ends: the links {_listed(shown)} between RelationshipOntology and EntityOntology "
            "do not say which end is the source: the ends observed on the relationships are used "
            "(name them with --source-rel TYPE --target-rel TYPE)"
        )
        return replace(declared, read_through=declared.read_through + (note,))
    src, tgt = pick
    filled = dict(rts)
    for t, d in need.items():
        source, target = _ends(d["ends"], src, tgt)
        filled[t] = {**d, "source": source, "target": target}
    note = f"relation ends from (:RelationshipOntology){_arrow(src)}(source) and {_arrow(tgt)}(target), {how}"
    return replace(declared, relation_types=filled, read_through=declared.read_through + (note,))


def _named(found: Mapping[str, int], source_rel: str, target_rel: str) -> tuple[str, str]:
    """The link tokens the options name (either direction); an error lists the found ones."""

    def one(name: str, option: str) -> str:
        tokens = [t for t in found if t.split(":")[0] == name]
        if len(tokens) != 1:
            what = "no" if not tokens else "both directions of"
            raise InvalidInput(
                f"{what} {name} relationship between RelationshipOntology and EntityOntology nodes "
                f"in the ontology: they are joined by {_listed({_arrow(k): v for k, v in found.items()})}; "
                f"check {option}"
            )
        return tokens[0]

    pick = one(source_rel, "--source-rel"), one(target_rel, "--target-rel")
    if pick[0] == pick[1]:
        raise InvalidInput(
            f"--source-rel and --target-rel name the same relationships ({_arrow(pick[0])}): the ends "
            "must be told apart by their type or their direction"
        )
    return pick


def _infer(
    found: Mapping[str, int], need: Mapping[str, Mapping[str, Any]], observed: Ontology
) -> tuple[tuple[str, str] | None, str]:
    """Which link token is the source end, which the target end; None when the graph does not tell.

    Told by the type names, else by one type's direction, else by agreement with the observed ends.
    """
    tokens = set(found)
    by_name = _by_name(tokens)
    if by_name:
        return by_name, "told by their names"
    types = {t.split(":")[0] for t in tokens}
    if len(types) == 1 and len(tokens) == 2:
        (name,) = types
        return (f"{name}:in", f"{name}:out"), "told by their direction (source -> type -> target)"
    if len(tokens) != 2:
        return None, ""
    a, b = sorted(tokens)
    ends = {rt.type: (set(rt.source_labels), set(rt.target_labels)) for rt in observed.relation_types}

    def agreement(src: str, tgt: str) -> int:
        score = 0
        for t, d in need.items():
            if t in ends:
                source, target = _ends(d["ends"], src, tgt)
                score += len(ends[t][0] & set(source)) + len(ends[t][1] & set(target))
        return score

    forward, backward = agreement(a, b), agreement(b, a)
    if forward == backward:
        return None, ""
    pick = (a, b) if forward > backward else (b, a)
    return pick, "told by the ends observed on the relationships"


def _by_name(tokens: set[str]) -> tuple[str, str] | None:
    """The (source, target) tokens when exactly one type name says source and one says target."""

    def words(token: str) -> set[str]:
        return set(re.split(r"[^A-Z]+", token.split(":")[0].upper()))

    sources = [t for t in tokens if words(t) & _SOURCE_WORDS and not words(t) & _TARGET_WORDS]
    targets = [t for t in tokens if words(t) & _TARGET_WORDS and not words(t) & _SOURCE_WORDS]
    if len(sources) == 1 and len(targets) == 1 and len(tokens) == 2:
        return sources[0], targets[0]
    return None


def _ends(links: list[Mapping[str, Any]], src: str, tgt: str) -> tuple[list[str], list[str]]:
    """The EntityOntology labels at the source and target ends, as the tokens `src`, `tgt` say."""
    source = sorted({str(e["label"]) for e in links if _token(e) == src})
    target = sorted({str(e["label"]) for e in links if _token(e) == tgt})
    return source, target


def _token(link: Mapping[str, Any]) -> str:
    """`TYPE:out` for (:RelationshipOntology)-[:TYPE]->(:EntityOntology), `TYPE:in` the other way."""
    return f"{link['type']}:{'out' if link['out'] else 'in'}"


def _arrow(token: str) -> str:
    name, direction = token.split(":")
    return f"-[:{name}]->" if direction == "out" else f"<-[:{name}]-"


def _is_type(via: str, name: str) -> bool:
    return via in (f"-[:{name}]->", f"<-[:{name}]-")


def _listed(found: Mapping[str, int]) -> str:
    return ", ".join(f"{k} ({v})" for k, v in sorted(found.items())) or "no relationship"
