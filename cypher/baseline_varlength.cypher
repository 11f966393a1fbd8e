// Variable-length baseline (the multi-hop traversal API document): `MATCH p=(s)-[*1..k]-(m)` from ONE
// seed, the whole walk fetched at the first depth; the search then walks its beam through what came
// back (pathrag_gds/baselines.py). The document allows 1..3 hops, so the pattern's bound is 3 and
// $k (1..3) cuts it. Only the relationship types in $rels are walked (the whitelist, or the types of
// the seed's chain plan), so the walk never crosses community or provenance edges; $steps[i]: null,
// or the `type:out` / `type:in` steps hop i may take (the plan's chains at that hop); at most
// $limit paths (the caller knows a cut walk is incomplete). $community: every node of the path is
// one this community aggregates (null: any). Only what readers see, as in expand.cypher ($pinned
// and the loads that have not completed).
// One row: the paths (node ids, relationships), and each node once with its labels, properties,
// its stored embedding's similarity to $qvec (as expand.cypher) and its degree along each $probe
// step ({t: type, d: 'out'|'in'}).
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
  AND all(r IN relationships(p) WHERE type(r) IN $rels
                                  AND (size(hidden) = 0 OR NOT coalesce(r.pathrag_load, '') IN hidden))
  AND all(i IN range(0, length(p) - 1) WHERE
          $steps[i] IS NULL
          OR type(relationships(p)[i])
             + CASE WHEN startNode(relationships(p)[i]) = nodes(p)[i] THEN ':out' ELSE ':in' END
             IN $steps[i])
  AND all(n IN nodes(p)[1..] WHERE
          CASE WHEN $community IS NOT NULL
               THEN EXISTS { (n)<-[a:{{community_rel}}]-(:{{community_label}} {id: $community})
                             WHERE size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden }
               WHEN size(hidden) = 0 THEN true
               ELSE NOT EXISTS { (n)<-[:{{community_rel}}]-() }
                    OR EXISTS { (n)<-[a:{{community_rel}}]-() WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
          END)
WITH p
LIMIT $limit
WITH collect(p) AS ps
WITH ps, apoc.coll.toSet(apoc.coll.flatten([p IN ps | nodes(p)[1..]])) AS ns
RETURN [p IN ps | {ids: [n IN nodes(p) | n.{{id}}],
                   rels: [r IN relationships(p) | {type: type(r), src: startNode(r).{{id}},
                                                   tgt: endNode(r).{{id}},
                                                   props: apoc.map.removeKey(properties(r), 'pathrag_load')}]}]
         AS paths,
       [n IN ns | {id: n.{{id}}, labels: [l IN labels(n) WHERE l <> $entity_label],
                   props: apoc.map.removeKey(properties(n), $embedding_key),
                   sim: coalesce(vector.similarity.cosine($qvec, n.{{embedding}}), 0.0),
                   degrees: [x IN $probe | CASE WHEN x.d = 'out' THEN apoc.node.degree.out(n, x.t)
                                                ELSE apoc.node.degree.in(n, x.t) END]}] AS nodes
