// What the service needs to know once at start-up: communities with their sizes and whether any of
// their entities is embedded (`indexed`: the search seeds from embeddings; the check stops at the
// first embedded entity), and the labels and relationship types present.
CALL (*) {
  OPTIONAL MATCH (c:{{community_label}})
  WITH c WHERE c IS NOT NULL
  RETURN collect({id: c.id, ontology_id: c.ontology_id,
                  size: COUNT { (c)-[:{{community_rel}}]->() },
                  indexed: EXISTS { (c)-[:{{community_rel}}]->(e:{{entity_label}})
                                    WHERE e.{{embedding}} IS NOT NULL }}) AS communities
}
CALL db.labels() YIELD label
WITH communities, collect(label) AS labels
CALL db.relationshipTypes() YIELD relationshipType
RETURN communities, labels, collect(relationshipType) AS types
