// Source text supporting the entities of the returned paths: chunks that mention them.
// $ids: entity ids; $per_entity: chunks per entity. Graphs without chunks return nothing.
UNWIND $ids AS eid
MATCH (e:{{entity_label}} {{{id}}: eid})-[:MENTIONED_IN]->(ch:Chunk)
WITH eid, ch ORDER BY ch.id
WITH eid, collect(ch {.id, .text, .source})[0..$per_entity] AS chunks
RETURN eid AS id, chunks
