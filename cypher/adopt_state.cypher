// A community and, when it was adopted, the labels that chose its nodes (null otherwise).
// Who owns it, since pathrag_gds and Thalabus both write (:Community)-[:AGGREGATES]->(:Entity):
// `pathrag_ontology`: its `ontology_id` names an ontology pathrag_gds wrote (with entity or
// relation types; pathrag_gds never ties a community to its ontology by a relationship);
// `thalabus`: a relationship ties it to an Ontology of EntityOntology / RelationshipOntology nodes
// (Thalabus's BASED_ON); `thalabus_ontology`: its `ontology_id` names an Ontology of such nodes
// (Thalabus's, or one pathrag_gds merged onto: either way not only pathrag_gds's);
// `adopted_by`: the communities adopted from it (`adopt --thalabus`).
MATCH (c:{{community_label}} {id: $community_id})
OPTIONAL MATCH (c)-[:{{community_rel}}]->(e:{{entity_label}})
WITH c, count(e) AS entities
RETURN c.id AS id, c.adopted_labels AS labels, c.ontology_id AS ontology_id, entities,
       EXISTS { MATCH (o:Ontology {id: c.ontology_id})-[:HAS_ENTITY_TYPE|HAS_RELATION_TYPE]->() }
         AS pathrag_ontology,
       EXISTS { MATCH (c)--(:Ontology)--(t) WHERE t:EntityOntology OR t:RelationshipOntology } AS thalabus,
       EXISTS { MATCH (:Ontology {id: c.ontology_id})--(t) WHERE t:EntityOntology OR t:RelationshipOntology }
         AS thalabus_ontology,
       COLLECT { MATCH (a:{{community_label}} {adopted_from: c.id}) RETURN a.id ORDER BY a.id } AS adopted_by
