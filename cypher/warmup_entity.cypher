// One embedded entity of a community and its name: the warm-up asks a question about it. Not one
// of a load that has not completed (its id read once: docs/graph-model.md, Loads and readers).
// $community: a community id.
MATCH (c:{{community_label}} {id: $community})
WITH c, c.loading AS open
MATCH (c)-[a:{{community_rel}}]->(n:{{entity_label}})
WHERE n.{{embedding}} IS NOT NULL
  AND (open IS NULL OR coalesce(a.pathrag_load, '') <> open)
RETURN n.{{id}} AS id, n.{{name}} AS name
LIMIT 1
