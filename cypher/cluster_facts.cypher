// What the summaries of one community's clusters are written from: its entities (id, name, type
// labels) and the relationships of the $rels types between them (source id, type, target id).
MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(e:{{entity_label}})
CALL (e) {
  OPTIONAL MATCH (e)-[r]->(t:{{entity_label}})
  WHERE type(r) IN $rels
    AND EXISTS { (:{{community_label}} {id: $community})-[:{{community_rel}}]->(t) }
  RETURN collect([type(r), t.{{id}}]) AS out
}
RETURN e.{{id}} AS id, e.{{name}} AS name, [l IN labels(e) WHERE l <> $entity_label] AS labels, out
