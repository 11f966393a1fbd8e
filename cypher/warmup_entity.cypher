// One embedded entity of a community and its name: the warm-up asks a question about it. Not one
// of a load that has not completed (docs/graph-model.md, Loads and readers). $community: an id.
MATCH (c:{{community_label}} {id: $community})-[a:{{community_rel}}]->(n:{{entity_label}})
WHERE n.{{embedding}} IS NOT NULL
  AND (c.loading IS NULL OR coalesce(a.pathrag_load, '') <> c.loading)
RETURN n.{{id}} AS id, n.{{name}} AS name
LIMIT 1
