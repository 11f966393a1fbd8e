// Unique provenance chunk ids.
CREATE CONSTRAINT pathrag_chunk_id IF NOT EXISTS
FOR (c:{{chunk_label}}) REQUIRE c.id IS UNIQUE
