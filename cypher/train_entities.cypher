// Entities by id for training data (labels and properties without the embedding), sorted by id.
// $ids: entity ids; $entity_label / $embedding_key: stripped from the output.
UNWIND $ids AS eid
MATCH (n:{{entity_label}})
WHERE n.{{id}} = eid
RETURN n.{{id}} AS id,
       [l IN labels(n) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(n), $embedding_key) AS props
ORDER BY id
