// Relation types of an ontology:
// $rows = [{type, phrase, inverse_phrase, description, source_labels, target_labels}].
MATCH (o:Ontology {id: $ontology_id})
UNWIND $rows AS row
MERGE (t:RelationType {ontology_id: $ontology_id, type: row.type})
SET t.phrase = row.phrase,
    t.inverse_phrase = row.inverse_phrase,
    t.description = row.description,
    t.source_labels = row.source_labels,
    t.target_labels = row.target_labels
MERGE (o)-[:HAS_RELATION_TYPE]->(t)
RETURN count(t) AS n
