// The chunks that the user's nodes $ids (element ids) are tied to by {{chunk_rel}}, either way
// (neo4j-graphrag's (node)-[:FROM_CHUNK]->(chunk), Thalabus's (entity)-[:MENTIONED_IN]->(chunk));
// `usable`: the chunk carries the chunk label and a text, so it can be a source. Read only.
UNWIND $ids AS id
MATCH (u) WHERE elementId(u) = id
MATCH (u)-[:{{chunk_rel}}]-(ch)
RETURN id AS node, elementId(ch) AS chunk, ch:{{chunk_label}} AND ch.text IS NOT NULL AS usable
