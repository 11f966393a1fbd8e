// Delete the community node (its entities first with `community_delete_batch`). When $drop_ontology,
// also its ontology, unless another community uses it.
MATCH (c:{{community_label}} {id: $community_id})
WITH c, c.ontology_id AS oid
DETACH DELETE c
WITH oid
OPTIONAL MATCH (o:Ontology {id: oid})
WHERE $drop_ontology AND NOT EXISTS { (:{{community_label}} {ontology_id: oid}) }
OPTIONAL MATCH (o)-[:HAS_ENTITY_TYPE|HAS_RELATION_TYPE]->(t)
DETACH DELETE t, o
RETURN count(*) AS deleted
