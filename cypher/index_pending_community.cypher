// One page of a community's entities to embed, keyset-paginated on id (no SKIP).
// $force: also entities that already have an embedding.
MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(n:{{entity_label}})
WHERE n.{{id}} > $after AND ($force OR n.{{embedding}} IS NULL)
WITH n ORDER BY n.{{id}} LIMIT $limit
RETURN n.{{id}} AS id,
       [l IN labels(n) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(n), $embedding_key) AS props
