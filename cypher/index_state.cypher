// State of the vector index the seeds come from.
SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties
WHERE name = $index_name
RETURN name, type, state, labelsOrTypes, properties
