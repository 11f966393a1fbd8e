// Seed entities for a question: the vector index, or (for a small community) an exact scan.
// $qvec: the question's embedding; $k: how many index hits to fetch before the community filter;
// $seed_n: seeds to return; $community: a community id or null; $exact: scan the community exactly.
// Returns only what the search needs: id, type labels, properties (without the embedding), the
// relationship types it has out and in (the chain planner's first hops), score.
CALL (*) {
  CALL db.index.vector.queryNodes($index_name, $k, $qvec) YIELD node, score
  WHERE NOT $exact
    AND ($community IS NULL
         OR EXISTS { (:{{community_label}} {id: $community})-[:{{community_rel}}]->(node) })
  RETURN node, score
  UNION
  MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(node:{{entity_label}})
  WHERE $exact AND node.{{embedding}} IS NOT NULL
  RETURN node, vector.similarity.cosine(node.{{embedding}}, $qvec) AS score
}
WITH node, score
ORDER BY score DESC
LIMIT $seed_n
WITH node, score, apoc.node.relationship.types(node) AS rel_types
RETURN node.{{id}} AS id,
       [l IN labels(node) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(node), $embedding_key) AS props,
       [t IN rel_types WHERE apoc.node.degree.out(node, t) > 0] AS out_types,
       [t IN rel_types WHERE apoc.node.degree.in(node, t) > 0] AS in_types,
       score
ORDER BY score DESC
