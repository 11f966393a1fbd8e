// Source text supporting the entities of the returned paths: the chunks that mention them, with their
// document, heading path and character range. A document's chunk counts through a HAS_PART edge valid
// at $as_of (null: an open one) of a document of $community (null: any community); a chunk of no
// document (from a graph file) always counts. $per_entity: chunks per entity, those that mention the
// most of $ids first (a chunk naming two entities of the paths is likelier to state a fact of one),
// then in reading order; the search ranks each path's passages by support after (support.py).
// `source` names a document's chunk by its document key (the file the document was read from stays
// in the database, never in an answer); a graph file's chunk keeps the `source` its file gave it.
// A chunk without an id (a user's chunk an adopted community cites, `adopt --chunk-rel`) is named
// by its element id.
// A mention written by a load that has not completed (or that $pinned names: the loads the query's
// seeds skipped) is not read (docs/graph-model.md, Loads and readers).
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS open
}
WITH $pinned + open AS hidden
UNWIND $ids AS eid
MATCH (e:{{entity_label}} {{{id}}: eid})-[m:{{mentioned_in}}]->(ch:{{chunk_label}})
WHERE size(hidden) = 0 OR NOT coalesce(m.pathrag_load, '') IN hidden
OPTIONAL MATCH (doc:{{document_label}})-[r:{{has_part}}]->(ch)
WHERE ($as_of IS NULL AND r.end IS NULL)
   OR ($as_of IS NOT NULL AND r.start <= $as_of AND (r.end IS NULL OR r.end > $as_of))
WITH hidden, eid, ch, doc, r
WHERE CASE WHEN doc IS NULL THEN NOT EXISTS { (:{{document_label}})-[:{{has_part}}]->(ch) }
           ELSE $community IS NULL OR doc.community_id = $community END
WITH hidden, eid, ch, doc, r,
     COUNT { MATCH (o:{{entity_label}})-[om:{{mentioned_in}}]->(ch)
             WHERE o.{{id}} IN $ids AND (size(hidden) = 0 OR NOT coalesce(om.pathrag_load, '') IN hidden) } AS co
WITH eid, ch, doc, r ORDER BY co DESC, doc.document_key, r.range[0], ch.id
WITH eid, collect(ch {id: coalesce(ch.id, elementId(ch)), .text, .headings, source: CASE WHEN doc IS NULL THEN ch.source ELSE doc.document_key END,
                      document_key: doc.document_key, title: doc.title, range: r.range})[0..$per_entity]
     AS chunks
RETURN eid AS id, chunks
