// The chunk vector index (chunk seeds): (:Chunk).embedding, cosine, $dim dimensions.
CREATE VECTOR INDEX {{chunk_vector_index}} IF NOT EXISTS
FOR (c:{{chunk_label}}) ON (c.{{embedding}})
OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}
