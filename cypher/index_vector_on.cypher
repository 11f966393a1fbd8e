// The vector indexes on one label and property, whatever their names (an index another tool made
// on the same label and property keeps `CREATE VECTOR INDEX ... IF NOT EXISTS` from making ours).
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options
WHERE type = 'VECTOR' AND labelsOrTypes = [$label] AND properties = [$property]
RETURN name, options.indexConfig.`vector.dimensions` AS dimensions,
       options.indexConfig.`vector.similarity_function` AS similarity
