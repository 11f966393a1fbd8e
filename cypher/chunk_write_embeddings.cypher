// Write a batch of chunk embeddings: $rows = [{id, vector: [float]}].
UNWIND $rows AS row
MATCH (ch:{{chunk_label}} {id: row.id})
SET ch.{{embedding}} = row.vector
RETURN count(ch) AS written
