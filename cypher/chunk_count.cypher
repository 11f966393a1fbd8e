// Embedded chunks of a community (to choose an exact scan over the chunk vector index).
MATCH (ch:{{chunk_label}} {community_id: $community_id})
WHERE ch.{{embedding}} IS NOT NULL
RETURN count(ch) AS chunks
