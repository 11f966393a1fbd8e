// State, population and configuration of one index (the vector index `index` creates and waits for).
SHOW INDEXES YIELD name, type, state, populationPercent, labelsOrTypes, properties, options
WHERE name = $index_name
RETURN name, type, state, populationPercent, labelsOrTypes, properties,
       options.indexConfig.`vector.dimensions` AS dimensions
