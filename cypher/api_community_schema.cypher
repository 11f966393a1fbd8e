// What a scoped token's /v1/info counts: the type labels its communities' entities carry (the
// entity label itself left out) and the relationship types between entities of one of its
// communities; nothing of other communities, nor what a load that has not completed wrote
// (`hidden`: docs/graph-model.md, Loads and readers).
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS hidden
}
CALL (hidden) {
  UNWIND $community_ids AS community_id
  MATCH (:{{community_label}} {id: community_id})-[a:{{community_rel}}]->(n:{{entity_label}})
  WHERE NOT coalesce(a.pathrag_load, '') IN hidden
  UNWIND [l IN labels(n) WHERE l <> $entity_label] AS label
  RETURN collect(DISTINCT label) AS labels
}
CALL (hidden) {
  UNWIND $community_ids AS community_id
  MATCH (c:{{community_label}} {id: community_id})-[a:{{community_rel}}]->(:{{entity_label}})-[r]->(t:{{entity_label}})
  WHERE NOT coalesce(a.pathrag_load, '') IN hidden AND NOT coalesce(r.pathrag_load, '') IN hidden
    AND EXISTS { (c)-[b:{{community_rel}}]->(t) WHERE NOT coalesce(b.pathrag_load, '') IN hidden }
  RETURN collect(DISTINCT type(r)) AS types
}
RETURN labels, types
