// One community node, tied to its ontology by id.
MERGE (c:{{community_label}} {id: $community_id})
SET c.ontology_id = $ontology_id
RETURN c.id AS id
