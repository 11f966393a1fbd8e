// Seed entities given by id (the caller linked them already, e.g. a KGQA topic entity): ONE round
// trip, no vector index. $ids: entity ids, in the caller's order; $community: a community id or null
// (ids outside it are dropped); $qvec: the question embedding (the similarity reported per seed).
// Returns the same columns as seeds.cypher, in the order of $ids; unknown ids return no row.
// out_types / in_types: the relationship types the node has outgoing / incoming (degree per type:
// read from the node's relationship groups, cheap on dense nodes); the chain planner's first hops.
UNWIND range(0, size($ids) - 1) AS i
MATCH (node:{{entity_label}})
WHERE node.{{id}} = $ids[i]
  AND ($community IS NULL
       OR EXISTS { (:{{community_label}} {id: $community})-[:{{community_rel}}]->(node) })
WITH i, node, apoc.node.relationship.types(node) AS rel_types
ORDER BY i
RETURN node.{{id}} AS id,
       [l IN labels(node) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(node), $embedding_key) AS props,
       [t IN rel_types WHERE apoc.node.degree.out(node, t) > 0] AS out_types,
       [t IN rel_types WHERE apoc.node.degree.in(node, t) > 0] AS in_types,
       coalesce(vector.similarity.cosine(node.{{embedding}}, $qvec), 1.0) AS score
