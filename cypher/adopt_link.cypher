// Tie adopted entities to the user's nodes they stand for: $rows = [{id, element_id}]. The edge
// starts at pathrag_gds's entity; the user's node keeps its labels and properties.
UNWIND $rows AS row
MATCH (e:{{entity_label}} {{{id}}: row.id})
MATCH (u) WHERE elementId(u) = row.element_id
MERGE (e)-[:{{adopts_rel}}]->(u)
RETURN count(*) AS linked
