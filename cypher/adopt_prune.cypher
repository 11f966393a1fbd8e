// Delete what a re-adopt no longer finds in the user's graph, of one adopted community only:
// $entities = [entity ids] (with their ADOPTS and mirrored edges), $rels = [{source, type, target}].
CALL (*) {
  UNWIND $rels AS row
  MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(s:{{entity_label}} {{{id}}: row.source})
  MATCH (s)-[r]->(t:{{entity_label}} {{{id}}: row.target})
  WHERE type(r) = row.type
  DELETE r
  RETURN count(r) AS rels
}
CALL (*) {
  UNWIND $entities AS id
  MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}} {{{id}}: id})
  WHERE NOT EXISTS { (n)<-[:{{community_rel}}]-(o:{{community_label}}) WHERE o.id <> $community_id }
  DETACH DELETE n
  RETURN count(*) AS entities
}
RETURN rels, entities
