// Make the user's chunks the sources of adopted entities without copying their text:
// $rows = [{id: entity id, chunk: the chunk's element id}]. The edge starts at pathrag_gds's entity.
UNWIND $rows AS row
MATCH (e:{{entity_label}} {{{id}}: row.id})
MATCH (ch:{{chunk_label}}) WHERE elementId(ch) = row.chunk
MERGE (e)-[:{{mentioned_in}}]->(ch)
RETURN count(*) AS linked
