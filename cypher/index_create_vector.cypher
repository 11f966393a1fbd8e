// The vector index the seeds come from: (:Entity).embedding, cosine, $dim dimensions.
CREATE VECTOR INDEX {{vector_index}} IF NOT EXISTS
FOR (n:{{entity_label}}) ON (n.{{embedding}})
OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}
