// Per-node baseline (the specification's original Step 3 design): EVERY relationship of ONE frontier
// node, both directions, with the neighbour and its embedding. One round trip per frontier node and
// depth; the caller filters in Python (whitelist, no-revisit, per-relation cap, pre-sort, limit).
// $id: the frontier entity id; $community: only neighbours this community aggregates (null: any).
// $probe: [{t: type, d: 'out'|'in'}]: the neighbour's degree along each (the chain plan's probe,
// as next_steps in expand.cypher; the caller compares, not counting the relationship just walked).
// Only what readers see, as in expand.cypher ($pinned and the loads that have not completed).
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS open
}
WITH $pinned + open AS hidden
MATCH (f:{{entity_label}})
WHERE f.{{id}} = $id
MATCH (f)-[r]-(n:{{entity_label}})
WHERE (size(hidden) = 0 OR NOT coalesce(r.pathrag_load, '') IN hidden)
  AND CASE WHEN $community IS NOT NULL
           THEN EXISTS { (n)<-[a:{{community_rel}}]-(:{{community_label}} {id: $community})
                         WHERE size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden }
           WHEN size(hidden) = 0 THEN true
           ELSE NOT EXISTS { (n)<-[:{{community_rel}}]-() }
                OR EXISTS { (n)<-[a:{{community_rel}}]-() WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
      END
RETURN type(r) AS type,
       startNode(r).{{id}} AS src,
       endNode(r).{{id}} AS tgt,
       apoc.map.removeKey(properties(r), 'pathrag_load') AS rel_props,
       n.{{id}} AS id,
       [l IN labels(n) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(n), $embedding_key) AS props,
       n.{{embedding}} AS embedding,
       [x IN $probe | CASE WHEN x.d = 'out' THEN apoc.node.degree.out(n, x.t)
                           ELSE apoc.node.degree.in(n, x.t) END] AS degrees
