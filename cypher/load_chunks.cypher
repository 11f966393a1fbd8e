// Provenance chunks, written by load $load: $rows = [{id, text, source, mentions: [entity ids]}].
// Unless $shared, an existing chunk that only other communities' entities mention is refused (left as
// it is; its id comes back in `refused`), and a mention of an entity that community $community_id
// does not aggregate is not written (counted in `foreign`). A chunk of another community's document
// (`community_id` set) is always refused.
// Readers see nothing of the load until it completes (docs/graph-model.md, Loads and readers): a
// new chunk and each new MENTIONED_IN edge carry the load's id (`pathrag_load`); a new text or source
// of a chunk readers may see already waits in a PathragStaged node {load, kind: 'chunk'} that the
// load's last transaction applies (`load_apply_chunks`). A mentioned entity outside the community
// (a --shared load) is recorded {load, kind: 'touch'}, so a discarded load finds what it wrote.
UNWIND $rows AS row
OPTIONAL MATCH (old:{{chunk_label}} {id: row.id})
WITH row,
     old IS NOT NULL AND old.community_id IS NOT NULL AND old.community_id <> $community_id
     OR old IS NOT NULL AND NOT $shared
       AND EXISTS { (old)<-[:{{mentioned_in}}]-(e:{{entity_label}}) }
       AND NOT EXISTS { (old)<-[:{{mentioned_in}}]-(:{{entity_label}})
                        <-[:{{community_rel}}]-(:{{community_label}} {id: $community_id}) }
       AS refused
WITH collect(CASE WHEN refused THEN row.id END) AS refused,
     collect(CASE WHEN NOT refused THEN row END) AS accepted
CALL (accepted) {
  UNWIND accepted AS row
  OPTIONAL MATCH (old:{{chunk_label}} {id: row.id})
  WITH row, old, old IS NOT NULL AND coalesce(old.pathrag_load, '') <> $load AS seen
  FOREACH (_ IN CASE WHEN seen AND (coalesce(old.text, '') <> row.text OR coalesce(old.source, '') <> row.source)
                     THEN [1] ELSE [] END |
    MERGE (p:PathragStaged {load: $load, kind: 'chunk', key: row.id})
    SET p.community_id = $community_id, p.text = row.text, p.source = row.source)
  MERGE (c:{{chunk_label}} {id: row.id})
  ON CREATE SET c.pathrag_load = $load
  FOREACH (_ IN CASE WHEN seen THEN [] ELSE [1] END | SET c.text = row.text, c.source = row.source)
  WITH c, row
  CALL (c, row) {
    UNWIND row.mentions AS mention
    MATCH (e:{{entity_label}} {{{id}}: mention})
    WITH c, e, EXISTS { (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(e) } AS member
    WITH c, e, member, $shared OR member AS allowed
    CALL (c, e, member, allowed) {
      WITH * WHERE allowed
      MERGE (e)-[m:{{mentioned_in}}]->(c)
      ON CREATE SET m.pathrag_load = $load
      FOREACH (_ IN CASE WHEN member THEN [] ELSE [1] END |
        MERGE (p:PathragStaged {load: $load, kind: 'touch', key: e.{{id}}})
        SET p.community_id = $community_id)
      RETURN 1 AS written
      UNION ALL
      WITH * WHERE NOT allowed
      RETURN 0 AS written
    }
    RETURN sum(written) AS mentions, count(*) - sum(written) AS foreign
  }
  RETURN count(c) AS chunks, sum(mentions) AS mentions, sum(foreign) AS foreign
}
RETURN chunks, mentions, foreign, refused
