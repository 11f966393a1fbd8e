// RANGE index on the community of document chunks (exact chunk seeds, pending embeddings).
CREATE RANGE INDEX pathrag_chunk_community IF NOT EXISTS
FOR (c:{{chunk_label}}) ON (c.community_id)
