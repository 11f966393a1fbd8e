// The cluster vector index (global mode): (:Cluster).embedding of the summaries, cosine, $dim dimensions.
CREATE VECTOR INDEX {{cluster_vector_index}} IF NOT EXISTS
FOR (c:{{cluster_label}}) ON (c.{{embedding}})
OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}
