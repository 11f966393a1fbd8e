// Seed entities for a question: the vector index, or (for a small community) an exact scan.
// $qvec: the question's embedding; $k: how many index hits to fetch before the community filter;
// $seed_n: seeds to return; $community: a community id or null; $exact: scan the community exactly.
// Only what readers see (docs/graph-model.md, Loads and readers): `hidden` = the loads that have not
// completed (`Community.loading`, indexed); an entity counts through an AGGREGATES edge of none of
// them (without a community: one that no community holds, or held through such an edge).
// Returns only what the search needs: id, type labels, properties (without the embedding), the
// relationship types it has out and in (the chain planner's first hops), score, and `hidden` (the
// expansion reads the graph as the seeds did: `expand.cypher`'s $pinned).
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS hidden
}
CALL (hidden) {
  CALL db.index.vector.queryNodes($index_name, $k, $qvec) YIELD node, score
  WHERE NOT $exact
    AND CASE WHEN $community IS NOT NULL
             THEN EXISTS { (:{{community_label}} {id: $community})-[a:{{community_rel}}]->(node)
                           WHERE size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden }
             WHEN size(hidden) = 0 THEN true
             ELSE NOT EXISTS { (node)<-[:{{community_rel}}]-() }
                  OR EXISTS { (node)<-[a:{{community_rel}}]-() WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
        END
  RETURN node, score
  UNION
  MATCH (:{{community_label}} {id: $community})-[a:{{community_rel}}]->(node:{{entity_label}})
  WHERE $exact AND node.{{embedding}} IS NOT NULL
    AND (size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden)
  RETURN node, vector.similarity.cosine(node.{{embedding}}, $qvec) AS score
}
WITH hidden, node, score
ORDER BY score DESC
LIMIT $seed_n
WITH hidden, node, score, apoc.node.relationship.types(node) AS rel_types
RETURN node.{{id}} AS id,
       [l IN labels(node) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(node), $embedding_key) AS props,
       [t IN rel_types WHERE apoc.node.degree.out(node, t) > 0] AS out_types,
       [t IN rel_types WHERE apoc.node.degree.in(node, t) > 0] AS in_types,
       score,
       hidden
ORDER BY score DESC
