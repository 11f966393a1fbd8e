// Provenance chunks: $rows = [{id, text, source, mentions: [entity ids]}].
UNWIND $rows AS row
MERGE (c:Chunk {id: row.id})
SET c.text = row.text, c.source = row.source
WITH c, row
CALL (c, row) {
  UNWIND row.mentions AS mention
  MATCH (e:{{entity_label}} {{{id}}: mention})
  MERGE (e)-[:MENTIONED_IN]->(c)
  RETURN count(e) AS mentions
}
RETURN count(c) AS chunks, sum(mentions) AS mentions
