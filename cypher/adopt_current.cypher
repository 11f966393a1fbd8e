// What an adopted community holds now: its entities' ids and the relationships between them
// (structural edges excluded), to prune what the user's graph no longer has on a re-adopt.
MATCH (c:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(s:{{entity_label}})
OPTIONAL MATCH (s)-[r]->(t:{{entity_label}})<-[:{{community_rel}}]-(c)
WHERE NOT type(r) IN $structural
RETURN s.{{id}} AS id, collect([type(r), t.{{id}}]) AS out
