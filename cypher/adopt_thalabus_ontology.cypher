// The ontology a Thalabus community is based on, and every relationship it is reached through (the
// caller keeps the ones the options name; nothing is assumed of their types): the (:Ontology) nodes
// joined to the community by any relationship, either way (Thalabus: BASED_ON), or named by the
// community's `ontology_id`; with $ontology (not null) only the (:Ontology {id: $ontology}).
// `via`: how each was reached (`-[:TYPE]->` / `<-[:TYPE]-` from the community, `ontology_id`,
// `--ontology`). Each with its (:EntityOntology) and (:RelationshipOntology) nodes, joined to it by
// any relationship, either way (Thalabus: CONTAINS), or naming it in their `ontology_id`; `via`:
// those relationships' types (and `ontology_id`). A relation type's `ends`: every relationship
// between it and an (:EntityOntology), either way: {type, out: it starts at the relation type,
// label: the entity type's label}. No row: the community names no ontology. Read only.
MATCH (c:{{source_label}} {id: $source})
CALL (c) {
  MATCH (c)-[r]-(o:Ontology)
  WHERE $ontology IS NULL
  RETURN o, CASE WHEN startNode(r) = c THEN '-[:' + type(r) + ']->' ELSE '<-[:' + type(r) + ']-' END AS via
  UNION
  MATCH (o:Ontology)
  WHERE o.id = coalesce($ontology, c.ontology_id)
  RETURN o, CASE WHEN $ontology IS NULL THEN 'ontology_id' ELSE '--ontology' END AS via
}
WITH o, collect(DISTINCT via) AS via
CALL (o) {
  OPTIONAL MATCH (et:EntityOntology) WHERE (o)--(et) OR et.ontology_id = o.id
  WITH DISTINCT et
  WITH et, [(o)-[r]-(et) | type(r)] + CASE WHEN et.ontology_id = o.id THEN ['ontology_id'] ELSE [] END AS links
  RETURN collect(et {.label, .entity_description, .description, via: links}) AS entity_types
}
CALL (o) {
  OPTIONAL MATCH (rt:RelationshipOntology) WHERE (o)--(rt) OR rt.ontology_id = o.id
  WITH DISTINCT rt
  WITH rt, [(o)-[r]-(rt) | type(r)] + CASE WHEN rt.ontology_id = o.id THEN ['ontology_id'] ELSE [] END AS links,
       [(rt)-[e]-(x:EntityOntology) | {type: type(e), out: startNode(e) = rt, label: x.label}] AS ends
  RETURN collect(rt {.label, .type, .entity_description, .description, .entity_source_labels,
                     .entity_target_labels, .phrase, .inverse_phrase, via: links, ends: ends}) AS relation_types
}
RETURN o.id AS id, via, entity_types, relation_types
ORDER BY id
