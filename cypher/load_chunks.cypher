// Provenance chunks: $rows = [{id, text, source, mentions: [entity ids]}].
// Unless $shared, an existing chunk that only other communities' entities mention is refused (left as
// it is; its id comes back in `refused`), and a mention of an entity that community $community_id
// does not aggregate is not written (counted in `foreign`). A chunk of another community's document
// (`community_id` set) is always refused.
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
  MERGE (c:{{chunk_label}} {id: row.id})
  SET c.text = row.text, c.source = row.source
  WITH c, row
  CALL (c, row) {
    UNWIND row.mentions AS mention
    MATCH (e:{{entity_label}} {{{id}}: mention})
    WITH c, e,
         $shared OR EXISTS { (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(e) }
           AS allowed
    CALL (c, e, allowed) {
      WITH * WHERE allowed
      MERGE (e)-[:{{mentioned_in}}]->(c)
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
