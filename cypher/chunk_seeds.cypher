// Seed entities from the chunks nearest to a question: the chunk vector index (or, for a small
// community, an exact scan of its chunks) gives the $chunks best chunks valid at $as_of (null: open)
// of documents of $community (null: any); their mentioned entities of that community are the seeds,
// each scored by its best chunk. Rows as `seeds.cypher`. Only mentions and entities readers see
// (loads that have not completed, and $pinned, skipped: docs/graph-model.md, Loads and readers).
CALL (*) {
  CALL db.index.vector.queryNodes($index_name, $k, $qvec) YIELD node, score
  WHERE NOT $exact AND ($community IS NULL OR node.community_id = $community)
  RETURN node AS ch, score
  UNION
  MATCH (node:{{chunk_label}} {community_id: $community})
  WHERE $exact AND node.{{embedding}} IS NOT NULL
  RETURN node AS ch, vector.similarity.cosine(node.{{embedding}}, $qvec) AS score
}
WITH ch, score
WHERE EXISTS { (:{{document_label}})-[r:{{has_part}}]->(ch)
               WHERE ($as_of IS NULL AND r.end IS NULL)
                  OR ($as_of IS NOT NULL AND r.start <= $as_of AND (r.end IS NULL OR r.end > $as_of)) }
WITH ch, score ORDER BY score DESC LIMIT $chunks
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS open
}
WITH ch, score, $pinned + open AS hidden
MATCH (node:{{entity_label}})-[m:{{mentioned_in}}]->(ch)
WHERE (size(hidden) = 0 OR NOT coalesce(m.pathrag_load, '') IN hidden)
  AND CASE WHEN $community IS NOT NULL
           THEN EXISTS { (:{{community_label}} {id: $community})-[a:{{community_rel}}]->(node)
                         WHERE size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden }
           WHEN size(hidden) = 0 THEN true
           ELSE NOT EXISTS { (node)<-[:{{community_rel}}]-() }
                OR EXISTS { (node)<-[a:{{community_rel}}]-() WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
      END
WITH node, max(score) AS score
ORDER BY score DESC
LIMIT $seed_n
RETURN node.{{id}} AS id,
       [l IN labels(node) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(node), $embedding_key) AS props,
       score
