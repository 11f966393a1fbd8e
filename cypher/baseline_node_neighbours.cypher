// Per-node baseline (the specification's original Step 3 design): EVERY relationship of ONE frontier
// node, both directions, with the neighbour and its embedding. One round trip per frontier node and
// depth; the caller filters in Python (whitelist, no-revisit, per-relation cap, pre-sort, limit).
// $id: the frontier entity id; $community: only neighbours this community aggregates (null: any).
MATCH (f:{{entity_label}})
WHERE f.{{id}} = $id
MATCH (f)-[r]-(n:{{entity_label}})
WHERE $community IS NULL
   OR EXISTS { (n)<-[:{{community_rel}}]-(:{{community_label}} {id: $community}) }
RETURN type(r) AS type,
       startNode(r).{{id}} AS src,
       endNode(r).{{id}} AS tgt,
       properties(r) AS rel_props,
       n.{{id}} AS id,
       [l IN labels(n) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(n), $embedding_key) AS props,
       n.{{embedding}} AS embedding
