// A community and, when it was adopted, the labels that chose its nodes (null otherwise).
MATCH (c:{{community_label}} {id: $community_id})
OPTIONAL MATCH (c)-[:{{community_rel}}]->(e:{{entity_label}})
RETURN c.id AS id, c.adopted_labels AS labels, c.ontology_id AS ontology_id, count(e) AS entities
