// Seed entities given by id (the caller linked them already, e.g. a KGQA topic entity): ONE round
// trip, no vector index. $ids: entity ids, in the caller's order; $community: a community id or null
// (ids outside it are dropped); $qvec: the question embedding (the similarity reported per seed).
// Only what readers see, as in seeds.cypher: an entity that a load which has not completed added
// is dropped too. $pinned: loads to skip besides those (the query's own reading, or []).
// Returns the same columns as seeds.cypher, in the order of $ids; unknown ids return no row.
// out_types / in_types: the relationship types the node has outgoing / incoming (degree per type:
// read from the node's relationship groups, cheap on dense nodes); the chain planner's first hops.
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS open
}
WITH $pinned + open AS hidden
UNWIND range(0, size($ids) - 1) AS i
MATCH (node:{{entity_label}})
WHERE node.{{id}} = $ids[i]
  AND CASE WHEN $community IS NOT NULL
           THEN EXISTS { (:{{community_label}} {id: $community})-[a:{{community_rel}}]->(node)
                         WHERE size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden }
           WHEN size(hidden) = 0 THEN true
           ELSE NOT EXISTS { (node)<-[:{{community_rel}}]-() }
                OR EXISTS { (node)<-[a:{{community_rel}}]-() WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
      END
WITH hidden, i, node, apoc.node.relationship.types(node) AS rel_types
ORDER BY i
RETURN node.{{id}} AS id,
       [l IN labels(node) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(node), $embedding_key) AS props,
       [t IN rel_types WHERE apoc.node.degree.out(node, t) > 0] AS out_types,
       [t IN rel_types WHERE apoc.node.degree.in(node, t) > 0] AS in_types,
       coalesce(vector.similarity.cosine(node.{{embedding}}, $qvec), 1.0) AS score,
       hidden
