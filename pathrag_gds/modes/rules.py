"""The graph score of a graph result, from the table of rules in the settings (`mix_graph_rules`). Pure.

A walk from a vector result to a graph result matches a rule by its shape, its depth and its
relationship types (:class:`~pathrag_gds.config.GraphRule`); it scores the best rule it matches (0:
none). The shapes:

- `neighbour`: one hop;
- `shared`: two hops along one relationship type, out and back (`A -lives_in-> Whiskerville
  <-lives_in- B`: B shares a place with A; the spec's "same city");
- `same_type`: the result carries a type label of the vector result (the spec's "same type");
- `path`: any walk.

Example:
    >>> from pathrag_gds.mode_settings import DEFAULT_GRAPH_RULES
    >>> from pathrag_gds.paths import Edge, Path
    >>> walk = Path(("bob", "town", "rex"), (Edge("lives_in", "bob", "town", "out"),
    ...                                     Edge("lives_in", "rex", "town", "in")))
    >>> graph_score(walk, ("Animal",), ("Animal",), DEFAULT_GRAPH_RULES)
    (0.8, 'shared')
"""

from __future__ import annotations

from collections.abc import Sequence

from pathrag_gds.mode_settings import GraphRule
from pathrag_gds.paths import Path


def shapes(path: Path, start_labels: Sequence[str], end_labels: Sequence[str]) -> set[str]:
    """The shapes (`neighbour`, `shared`, `same_type`, `path`) a walk has."""
    out = {"path"}
    if path.depth == 1:
        out.add("neighbour")
    if path.depth == 2:
        first, second = path.edges
        if first.type == second.type and first.direction != second.direction:
            out.add("shared")
    if path.depth >= 1 and set(start_labels) & set(end_labels):
        out.add("same_type")
    return out


def graph_score(
    path: Path, start_labels: Sequence[str], end_labels: Sequence[str], rules: Sequence[GraphRule]
) -> tuple[float, str]:
    """The best rule a walk matches: (score, shape); (0.0, "") when none does."""
    have = shapes(path, start_labels, end_labels)
    types = {e.type for e in path.edges}
    best = (0.0, "")
    for rule in rules:
        if rule.match not in have:
            continue
        if rule.depth is not None and rule.depth != path.depth:
            continue
        if rule.relation != "*" and rule.relation not in types:
            continue
        if rule.score > best[0]:
            best = (rule.score, rule.match)
    return best
