// The ontology node itself. Its entity and relation types are written by the two statements after it.
MERGE (o:Ontology {id: $ontology_id})
RETURN o.id AS id
