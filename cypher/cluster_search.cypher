// Global mode: the $top clusters of $community's current run whose summaries are nearest the question
// ($qvec), from the cluster vector index (k = $k hits before the community filter) or, when $exact,
// a scan of the community's clusters; each with its $per_cluster most central entities.
MATCH (c:{{community_label}} {id: $community})
CALL (c) {
  CALL db.index.vector.queryNodes($index_name, $k, $qvec) YIELD node, score
  WHERE NOT $exact AND node.community_id = $community AND node.run = c.cluster_run
  RETURN node, score
  UNION
  MATCH (node:{{cluster_label}} {community_id: $community})
  WHERE $exact AND node.run = c.cluster_run
  RETURN node, vector.similarity.cosine(node.{{embedding}}, $qvec) AS score
}
WITH node, score ORDER BY score DESC LIMIT $top
CALL (node) {
  MATCH (e:{{entity_label}})-[m:{{cluster_rel}}]->(node)
  WITH e, m ORDER BY m.centrality DESC, e.{{id}} LIMIT $per_cluster
  RETURN collect({id: e.{{id}}, name: e.{{name}}, labels: [l IN labels(e) WHERE l <> $entity_label],
                  centrality: m.centrality}) AS top
}
RETURN node.id AS id, node.level AS level, node.title AS title, node.summary AS summary,
       node.rating AS rating, node.size AS size, score, top
ORDER BY score DESC
