// The ontology a Thalabus community is based on, as Thalabus stores it: the (:Ontology) nodes the
// community points to (any relationship type, e.g. BASED_ON) or names in its `ontology_id`, each with
// the (:EntityOntology) and (:RelationshipOntology) nodes tied to it (any relationship, either way,
// e.g. CONTAINS) or naming it in their `ontology_id`. No row: the community names no ontology.
// Read only.
MATCH (c:{{source_label}} {id: $source})
OPTIONAL MATCH (c)-->(linked:Ontology)
OPTIONAL MATCH (named:Ontology) WHERE named.id = c.ontology_id
WITH collect(DISTINCT linked) + collect(DISTINCT named) AS found
UNWIND found AS o
WITH DISTINCT o
CALL (o) {
  OPTIONAL MATCH (et:EntityOntology) WHERE (o)--(et) OR et.ontology_id = o.id
  RETURN collect(DISTINCT et {.label, .entity_description, .description}) AS entity_types
}
CALL (o) {
  OPTIONAL MATCH (rt:RelationshipOntology) WHERE (o)--(rt) OR rt.ontology_id = o.id
  RETURN collect(DISTINCT rt {.label, .type, .entity_description, .description, .entity_source_labels,
                              .entity_target_labels, .phrase, .inverse_phrase}) AS relation_types
}
RETURN o.id AS id, entity_types, relation_types
ORDER BY id
