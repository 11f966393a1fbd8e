"""Graph files in the demo's YAML shape (`bob.yaml`): ontology, community, entities, relationships, chunks.

The whole file is checked before anything is written: every problem (unknown relationship type,
entity type not in the ontology, a relationship or mention naming an unknown entity, repeated ids,
a control character or lone surrogate in an id, name or text, an attribute name that cannot be a
property name or a value Neo4j cannot store) is listed in one error.

Example:
    >>> ds = read_graph_file(DEMO_FILE)
    >>> ds.community_id
    'DefaultCommunity_FictionalStories'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pathrag_gds.datasets.checks import check_text_value, check_value, is_identifier
from pathrag_gds.datasets.loader import (
    ChunkRow,
    Dataset,
    DatasetError,
    EntityRow,
    RelationRow,
    bad_character,
)
from pathrag_gds.datasets.ontology_files import DATA_DIR, ontology_from_mapping, read_yaml

#: The Bob demo graph.
DEMO_FILE = DATA_DIR / "bob.yaml"

#: Its community (the file's `community.id`; `tests/unit` checks they agree).
DEMO_COMMUNITY = "DefaultCommunity_FictionalStories"
#: The demo's story as a Markdown document (its chunks cite the demo's entities), and its key.
DEMO_STORY = DATA_DIR / "bob_story.md"
DEMO_STORY_KEY = "bob_story"
#: A second version of the story: one scene of chapter 3 rewritten.
DEMO_STORY_V2 = DATA_DIR / "bob_story_v2.md"

_MAX_LISTED = 10


def _labels(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def _mapping(value: Any, where: str, problems: list[str]) -> dict[str, Any]:
    """The attributes of an entity or relationship; what the loader would refuse goes to `problems`."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(f"{where}: `attributes` must be a mapping")
        return {}
    out = {str(k): v for k, v in value.items()}
    for key, v in out.items():
        if not is_identifier(key):
            problems.append(
                f"{where}: attribute name {key!r} is not a valid name: use letters, digits and '_' only"
            )
        try:
            check_text_value(check_value(v, f"{where}: attribute {key!r}"), f"{where}: attribute {key!r}")
        except DatasetError as exc:
            problems.append(str(exc))
    return out


def dataset_from_mapping(data: Any, source: str) -> Dataset:
    """Build and check a dataset from the parsed YAML.

    Raises:
        DatasetError: listing the problems found (at most ten, then how many more).
    """
    if not isinstance(data, Mapping):
        raise DatasetError(f"{source}: expected a mapping with `ontology`, `entities`, ...; see bob.yaml")
    ontology = ontology_from_mapping(data, source)
    community = data.get("community") or {}
    community_id = str(community.get("id") or f"DefaultCommunity_{ontology.id}")
    bad = bad_character(community_id)
    if bad:
        raise DatasetError(f"{source}: community id {community_id!r} holds a {bad}; remove it")
    if community.get("ontology_id") not in (None, ontology.id):
        raise DatasetError(
            f"{source}: community ontology_id {community.get('ontology_id')!r} differs from the "
            f"ontology id {ontology.id!r}; make them equal"
        )
    problems: list[str] = []
    labels = set(ontology.labels)
    types = set(ontology.relation_names)
    entities: list[EntityRow] = []
    seen: set[str] = set()
    for i, e in enumerate(data.get("entities") or [], start=1):
        if not isinstance(e, Mapping) or not e.get("id"):
            problems.append(f"entity #{i}: needs an `id`")
            continue
        eid = str(e["id"])
        if eid in seen:
            problems.append(f"entity {eid!r}: id repeated")
        seen.add(eid)
        for value, what, multiline in (
            (eid, "id", False),
            (str(e.get("name") or eid), "name", False),
            (str(e.get("description") or ""), "description", True),
        ):
            bad = bad_character(value, multiline=multiline)
            if bad:
                problems.append(f"entity {eid!r}: {what} holds a {bad}; remove it")
        ls = _labels(e.get("labels", e.get("label")))
        unknown = sorted(set(ls) - labels)
        if unknown:
            problems.append(f"entity {eid!r}: type(s) {unknown} not in the ontology's entity_types")
        entities.append(
            EntityRow(
                id=eid,
                name=str(e.get("name") or eid),
                labels=ls,
                description=str(e.get("description") or ""),
                attributes=_mapping(e.get("attributes"), f"entity {eid!r}", problems),
            )
        )
    relationships: list[RelationRow] = []
    for i, r in enumerate(data.get("relationships") or [], start=1):
        if not isinstance(r, Mapping) or not all(r.get(k) for k in ("source", "type", "target")):
            problems.append(f"relationship #{i}: needs `source`, `type` and `target`")
            continue
        src, rtype, tgt = str(r["source"]), str(r["type"]), str(r["target"])
        where = f"relationship #{i} ({src} {rtype} {tgt})"
        if rtype not in types:
            problems.append(f"{where}: type {rtype!r} not in the ontology's relationship_types")
        for end in (src, tgt):
            if end not in seen:
                problems.append(f"{where}: no entity {end!r}")
        relationships.append(RelationRow(src, rtype, tgt, _mapping(r.get("attributes"), where, problems)))
    chunks: list[ChunkRow] = []
    chunk_ids: set[str] = set()
    for i, c in enumerate(data.get("chunks") or [], start=1):
        if not isinstance(c, Mapping) or not c.get("id") or not c.get("text"):
            problems.append(f"chunk #{i}: needs `id` and `text`")
            continue
        cid = str(c["id"])
        for value, what, multiline in ((cid, "id", False), (str(c["text"]), "text", True)):
            bad = bad_character(value, multiline=multiline)
            if bad:
                problems.append(f"chunk {cid!r}: {what} holds a {bad}; remove it")
        if cid in chunk_ids:
            problems.append(f"chunk {cid!r}: id repeated")
        chunk_ids.add(cid)
        mentions = _labels(c.get("mentions"))
        problems.extend(f"chunk {cid!r}: mentions unknown entity {m!r}" for m in mentions if m not in seen)
        chunks.append(ChunkRow(cid, str(c["text"]), str(c.get("source") or ""), mentions))
    if problems:
        listed = "; ".join(problems[:_MAX_LISTED])
        more = f" (and {len(problems) - _MAX_LISTED} more)" if len(problems) > _MAX_LISTED else ""
        raise DatasetError(f"{source}: {len(problems)} problem(s): {listed}{more}. Fix the file")
    return Dataset(ontology, community_id, entities, relationships, chunks)


def read_graph_file(path: str | Path = DEMO_FILE) -> Dataset:
    """Read and check a graph YAML file (the demo by default).

    Raises:
        DatasetError: the file is missing, not YAML, or inconsistent.
    """
    return dataset_from_mapping(read_yaml(path), str(path))
