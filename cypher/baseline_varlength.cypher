// Variable-length baseline (the multi-hop traversal API document): `MATCH p=(s)-[*1..k]-(m)` from ONE
// seed, at most $limit paths (the document's 30 per seed entity), in the order Neo4j finds them;
// every path is scored afterwards. The document allows 1..3 hops, so the pattern's bound is 3 and
// $k (1..3) cuts it. Only whitelisted ($rels) relationship types are walked, so the walk never
// crosses community or provenance edges. $community: every node of the path is one this community
// aggregates (null: any). Only what readers see, as in expand.cypher ($pinned and the loads that
// have not completed).
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS open
}
WITH $pinned + open AS hidden
MATCH (s:{{entity_label}})
WHERE s.{{id}} = $seed
MATCH p = (s)-[*1..3]-(m:{{entity_label}})
WHERE length(p) <= $k
  AND m <> s
  AND all(r IN relationships(p) WHERE type(r) IN $rels
                                  AND (size(hidden) = 0 OR NOT coalesce(r.pathrag_load, '') IN hidden))
  AND all(n IN nodes(p) WHERE
          CASE WHEN $community IS NOT NULL
               THEN EXISTS { (n)<-[a:{{community_rel}}]-(:{{community_label}} {id: $community})
                             WHERE size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden }
               WHEN size(hidden) = 0 THEN true
               ELSE NOT EXISTS { (n)<-[:{{community_rel}}]-() }
                    OR EXISTS { (n)<-[a:{{community_rel}}]-() WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
          END)
WITH p
LIMIT $limit
RETURN [r IN relationships(p) | {type: type(r), src: startNode(r).{{id}}, tgt: endNode(r).{{id}},
                                  props: apoc.map.removeKey(properties(r), 'pathrag_load')}] AS rels,
       [n IN nodes(p) | {id: n.{{id}}, labels: [l IN labels(n) WHERE l <> $entity_label],
                         props: apoc.map.removeKey(properties(n), $embedding_key)}] AS nodes
