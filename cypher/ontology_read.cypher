// The ontology stored in the graph: entity types and relationship types (one ontology or all),
// each list in one order (by label, by type), so every read gives the planner, the explorer's
// examples and the intent the same ontology.
OPTIONAL MATCH (o:Ontology)
WHERE $ontology_id IS NULL OR o.id = $ontology_id
OPTIONAL MATCH (o)-[:HAS_ENTITY_TYPE]->(et:EntityType)
WITH o, et ORDER BY et.label
WITH o, collect(DISTINCT et {.label, .description}) AS entity_types
OPTIONAL MATCH (o)-[:HAS_RELATION_TYPE]->(rt:RelationType)
WITH o, entity_types, rt ORDER BY rt.type
WITH o, entity_types,
     collect(DISTINCT rt {.type, .phrase, .inverse_phrase, .description, .source_labels, .target_labels}) AS relation_types
WHERE o IS NOT NULL
RETURN o.id AS id, entity_types, relation_types
ORDER BY id
