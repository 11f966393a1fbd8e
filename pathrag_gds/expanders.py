"""The search's server-side expander: the WHOLE beam one hop further in ONE round trip.

`cypher/expand.cypher` gets every frontier path (its end, the ids and edge keys on it, and the
planned steps it may take) and returns, per path, its neighbours along the whitelisted relations
within the community: at most `cap_per_relation` per relationship type, `expand_per_path` per path
(per planned step for a path with a chain plan: a step with many neighbours never crowds out
another step the plan asks for), pre-sorted by their stored embedding's similarity to the question
(computed in Neo4j), never revisiting the path (`no_revisit`; a path on a chain plan only never
its topic nor back along a relationship it walked: a chain's answer can be an entity it passed).
Rows become :class:`~pathrag_gds.paths.Path` children here; entity properties come back only for
entities the query has not fetched yet.

Example:
    >>> expander = Neo4jExpander(Graph.connect(), get_settings())  # doctest: +SKIP
    >>> expander.expand(ctx, frontier, ["owns"]).children[0].parent  # doctest: +SKIP
    0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pathrag_gds.config import Settings
from pathrag_gds.graph import Graph
from pathrag_gds.ontology import type_labels
from pathrag_gds.paths import Edge, EntityRecord
from pathrag_gds.search.context import QueryContext
from pathrag_gds.search.protocols import Child, Expansion, Frontier
from pathrag_gds.search.schema import parse_step, step_token


def entity_record(settings: Settings, eid: str, labels: Iterable[str], props: dict[str, Any]) -> EntityRecord:
    """An :class:`EntityRecord` from a row's labels and properties (id, name, description taken out).

    An adopted entity's type labels are read without their prefix (:func:`~pathrag_gds.ontology.type_labels`).

    Example:
        >>> entity_record(Settings(), "b", ["Cat"], {"id": "b", "name": "Bob", "age": 3}).attributes
        {'age': 3}
    """
    props = dict(props)
    props.pop(settings.id_property, None)
    name = str(props.pop(settings.name_property, eid))
    description = str(props.pop(settings.description_property, "") or "")
    return EntityRecord(
        id=eid, labels=type_labels(labels), name=name, description=description, attributes=props
    )


class Neo4jExpander:
    """One hop for the whole beam in one `cypher/expand.cypher` round trip (see the module docstring)."""

    follows_plans = True

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    def expand(self, ctx: QueryContext, frontier: Sequence[Frontier], relations: Sequence[str]) -> Expansion:
        """The children of the frontier paths (one round trip)."""
        s = self.settings
        items = [
            {
                "pid": f.index,
                "frontier": f.path.end,
                "nodes": list(f.path.node_ids),
                "keys": list(f.path.edge_keys),
                "steps": None if f.steps is None else sorted(step_token(x) for x in f.steps),
                "probe": None
                if f.probe is None
                else {step_token(k): [{"t": t, "d": d} for t, d in sorted(v)] for k, v in f.probe.items()},
            }
            for f in frontier
        ]
        rows = self.graph.read(
            "expand",
            counter=ctx.counter,
            beam=items,
            rels=list(relations),
            cap=s.cap_per_relation,
            limit=s.expand_per_path,
            no_revisit=s.no_revisit,
            qvec=ctx.vector,
            known=list(ctx.entities),
            community=s.walk_community(ctx.community),
            pinned=ctx.hidden,
            entity_label=s.entity_label,
            embedding_key=s.embedding_property,
        )
        paths = {f.index: f.path for f in frontier}
        out = Expansion([])
        for r in rows:
            nid = r["id"]
            if r["entity"] is not None and nid not in ctx.entities and nid not in out.entities:
                out.entities[nid] = entity_record(s, nid, r["entity"]["labels"], r["entity"]["props"])
            edge = Edge(r["type"], r["src"], r["tgt"], r["direction"], dict(r["rel_props"] or {}))
            steps = r.get("next_steps")
            held = None if steps is None else frozenset(parse_step(t) for t in steps)
            out.children.append(Child(paths[r["pid"]].extend(edge, nid), r["pid"], float(r["sim"]), held))
        return out
