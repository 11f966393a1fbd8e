// Unique ontology ids.
CREATE CONSTRAINT pathrag_ontology_id IF NOT EXISTS
FOR (o:Ontology) REQUIRE o.id IS UNIQUE
