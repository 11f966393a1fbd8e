// Unique entity ids (also the index behind MERGE and the keyset pagination of `index`).
CREATE CONSTRAINT pathrag_entity_id IF NOT EXISTS
FOR (n:{{entity_label}}) REQUIRE n.{{id}} IS UNIQUE
