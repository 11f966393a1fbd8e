// Write a batch of embeddings: $rows = [{id, vector: [float]}].
UNWIND $rows AS row
MATCH (n:{{entity_label}} {{{id}}: row.id})
SET n.{{embedding}} = row.vector
RETURN count(n) AS written
