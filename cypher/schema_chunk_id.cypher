// Unique provenance chunk ids.
CREATE CONSTRAINT pathrag_chunk_id IF NOT EXISTS
FOR (c:Chunk) REQUIRE c.id IS UNIQUE
