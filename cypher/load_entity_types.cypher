// Entity types of an ontology: $rows = [{label, description}].
MATCH (o:Ontology {id: $ontology_id})
UNWIND $rows AS row
MERGE (t:EntityType {ontology_id: $ontology_id, label: row.label})
SET t.description = row.description
MERGE (o)-[:HAS_ENTITY_TYPE]->(t)
RETURN count(t) AS n
