// One embedded entity of a community and its embedding: the stand-in question of the warm-up.
// $community: a community id.
MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(n:{{entity_label}})
WHERE n.{{embedding}} IS NOT NULL
RETURN n.{{id}} AS id, n.{{embedding}} AS vector
LIMIT 1
