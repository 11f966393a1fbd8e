// The explorer's example questions for a community without an evaluation file: one edge of each
// relationship type named in $types whose two ends are both the community's entities (the type
// labels of its source, the name of its target). Only what readers see (docs/graph-model.md,
// Loads and readers): nothing a load that has not completed wrote.
MATCH (c:{{community_label}} {id: $community_id})
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS hidden
}
UNWIND $types AS rel_type
CALL (c, hidden, rel_type) {
  MATCH (c)-[a:{{community_rel}}]->(s:{{entity_label}})-[r]->(t:{{entity_label}})
  WHERE type(r) = rel_type AND s <> t AND t.{{name}} IS NOT NULL
    AND NOT coalesce(a.pathrag_load, '') IN hidden AND NOT coalesce(r.pathrag_load, '') IN hidden
    AND EXISTS { (c)-[b:{{community_rel}}]->(t) WHERE NOT coalesce(b.pathrag_load, '') IN hidden }
  RETURN [l IN labels(s) WHERE l <> $entity_label] AS source_labels, t.{{name}} AS target
  LIMIT 1
}
RETURN rel_type AS type, source_labels, target
LIMIT $limit
