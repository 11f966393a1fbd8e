"""Adopt a graph pathrag_gds did not load: answer questions on the user's own nodes.

`adopt` never changes the user's nodes. It writes structures pathrag_gds owns beside them: a
`Community`, one `Entity` per adopted node (its name, description and scalar properties, its type
labels prefixed `Adopted__`) tied to it by `(:Entity)-[:ADOPTS]->(node)`, the relationships
between the adopted nodes mirrored between those entities, the user's chunks linked as sources
(their text not copied), and an ontology read from the graph (:mod:`pathrag_gds.adopt.ontology`).
So the read path stays as it is (one round trip per depth, confined by `AGGREGATES`), and
`remove_adoption` deletes all of it and nothing else.

One module per idea: :mod:`.labels` plans the nodes with a label (neo4j-graphrag, LightRAG, plain
graphs), :mod:`.thalabus` the entities of a Thalabus community, :mod:`.reader` turns nodes into
rows, :mod:`.values` cleans property values, :mod:`.plan` lists a plan, :mod:`.write` writes and
removes it.

Example:
    >>> plan = plan_adoption(graph, "my_kg", ["__Entity__"])  # doctest: +SKIP
    >>> for line in plan.lines(): print(line)  # doctest: +SKIP
    >>> adopt(graph, plan)  # doctest: +SKIP
"""

from __future__ import annotations

from pathrag_gds.adopt.labels import LIGHTRAG_RENAME, LIGHTRAG_SKIP, STRUCTURAL_LABELS, plan_adoption
from pathrag_gds.adopt.plan import AdoptPlan
from pathrag_gds.adopt.thalabus import plan_thalabus
from pathrag_gds.adopt.write import adopt, remove_adoption

__all__ = [
    "LIGHTRAG_RENAME",
    "LIGHTRAG_SKIP",
    "STRUCTURAL_LABELS",
    "AdoptPlan",
    "adopt",
    "plan_adoption",
    "plan_thalabus",
    "remove_adoption",
]
