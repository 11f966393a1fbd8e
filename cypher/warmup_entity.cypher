// One embedded entity of a community and its name: the warm-up asks a question about it.
// $community: a community id.
MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(n:{{entity_label}})
WHERE n.{{embedding}} IS NOT NULL
RETURN n.{{id}} AS id, n.{{name}} AS name
LIMIT 1
