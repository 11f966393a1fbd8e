// How many entities (of $community, or all when null) `index` would embed, and how many there are.
// All: as `index_pending_all`, not the entities of a community pathrag_gds did not load.
CALL (*) {
  MATCH (n:{{entity_label}})
  WHERE $community IS NULL
    AND NOT EXISTS {
      MATCH (c:{{community_label}})-[:{{community_rel}}]->(n)
      WHERE c.adopted_labels IS NULL
        AND (NOT EXISTS { (:Ontology {id: c.ontology_id})-[:HAS_ENTITY_TYPE|HAS_RELATION_TYPE]->() }
             OR EXISTS { (c)--(:Ontology)--(t) WHERE t:EntityOntology OR t:RelationshipOntology })
    }
  RETURN n
  UNION ALL
  MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(n:{{entity_label}})
  RETURN n
}
RETURN count(n) AS total,
       count(CASE WHEN $force OR n.{{embedding}} IS NULL THEN 1 END) AS pending
