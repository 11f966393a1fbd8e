// Write new versions of documents of community $community_id at time $now, in one transaction.
// $docs = [{key, props, ranges: {part id: [start, end]}, sections: [{id, parent, order, range, props}],
//           chunks: [{id, section, order, range, mentions: [entity ids], props}], next: [[id, id]]}].
// Versions: an open HAS_PART edge (end IS NULL) whose part is gone, or sits at another range now, is
// closed (end = $now); every part without an open edge gets a new one {start: $now, range}. Parts are
// MERGEd by key, so an unchanged section or chunk is reused, never duplicated. Mentions are tied only
// to entities of $community_id.
UNWIND $docs AS d
MERGE (doc:{{document_label}} {document_key: d.key})
SET doc += d.props, doc.community_id = $community_id, doc.updated_at = $now
REMOVE doc.removed_at
WITH doc, d
CALL (doc, d) {
  OPTIONAL MATCH (doc)-[r:{{has_part}}]->(p)
  WHERE r.end IS NULL AND (d.ranges[p.id] IS NULL OR d.ranges[p.id] <> r.range)
  SET r.end = $now
  RETURN count(r) AS closed
}
CALL (doc, d) {
  UNWIND d.sections AS s
  OPTIONAL MATCH (old:{{section_label}} {id: s.id})
  MERGE (sec:{{section_label}} {id: s.id})
  ON CREATE SET sec += s.props
  SET sec.range = s.range
  WITH doc, s, sec, old IS NULL AS created
  OPTIONAL MATCH (parent:{{section_label}} {id: s.parent})
  WITH doc, s, sec, created, coalesce(parent, doc) AS parent
  MERGE (parent)-[h:{{has_child}}]->(sec)
  SET h.order = s.order
  WITH doc, s, sec, created
  OPTIONAL MATCH (doc)-[open:{{has_part}}]->(sec) WHERE open.end IS NULL
  FOREACH (_ IN CASE WHEN open IS NULL THEN [1] ELSE [] END |
    CREATE (doc)-[:{{has_part}} {start: $now, range: s.range}]->(sec))
  RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS sections_created,
         sum(CASE WHEN open IS NULL THEN 1 ELSE 0 END) AS sections_opened
}
CALL (doc, d) {
  UNWIND d.chunks AS c
  OPTIONAL MATCH (old:{{chunk_label}} {id: c.id})
  MERGE (ch:{{chunk_label}} {id: c.id})
  ON CREATE SET ch += c.props
  SET ch.location = c.range
  WITH doc, c, ch, old IS NULL AS created
  MATCH (sec:{{section_label}} {id: c.section})
  MERGE (sec)-[h:{{has_child}}]->(ch)
  SET h.order = c.order
  WITH doc, c, ch, created
  OPTIONAL MATCH (doc)-[open:{{has_part}}]->(ch) WHERE open.end IS NULL
  FOREACH (_ IN CASE WHEN open IS NULL THEN [1] ELSE [] END |
    CREATE (doc)-[:{{has_part}} {start: $now, range: c.range}]->(ch))
  WITH c, ch, created, open IS NULL AS opened
  CALL (c, ch) {
    UNWIND c.mentions AS eid
    MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(e:{{entity_label}} {{{id}}: eid})
    MERGE (e)-[:{{mentioned_in}}]->(ch)
    RETURN count(e) AS mentions
  }
  RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS chunks_created,
         sum(CASE WHEN opened THEN 1 ELSE 0 END) AS chunks_opened,
         count(ch) AS chunks, sum(mentions) AS mentions
}
CALL (d) {
  UNWIND d.next AS pair
  MATCH (a:{{chunk_label}} {id: pair[0]}), (b:{{chunk_label}} {id: pair[1]})
  MERGE (a)-[:{{next_chunk}}]->(b)
  RETURN count(*) AS links
}
RETURN d.key AS key, closed, sections_created, sections_opened, chunks_created, chunks_opened, chunks,
       mentions
