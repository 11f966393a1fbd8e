// A batch of entities of one community: $rows = [{id, name, labels: [type labels], props: {..},
// foreign}]. An existing entity that another community aggregates is refused (left as it is, not
// tied to this community) unless $shared, and so is a `foreign` row (an id in another community's
// namespace, named by a shared load) whose entity does not exist: a load never creates another
// community's ids. Refused ids come back in `refused`. The others: MERGE on id, properties SET
// (same values on a reload), type labels added with APOC so that one statement serves every label.
// An existing entity whose labels or properties changed loses its embedding, so that `index` embeds
// its new text. Rows must have distinct ids.
UNWIND $rows AS row
OPTIONAL MATCH (old:{{entity_label}} {{{id}}: row.id})
WITH row, old,
     old IS NULL AND coalesce(row.foreign, false)
     OR old IS NOT NULL AND NOT $shared
       AND EXISTS { (old)<-[:{{community_rel}}]-(o:{{community_label}}) WHERE o.id <> $community_id }
       AS refused
WITH collect(CASE WHEN refused THEN row.id END) AS refused,
     collect(CASE WHEN NOT refused THEN row END) AS accepted
CALL (accepted) {
  UNWIND accepted AS row
  OPTIONAL MATCH (old:{{entity_label}} {{{id}}: row.id})
  WITH row, old IS NULL AS created,
       CASE WHEN old IS NULL THEN null
            ELSE [labels(old), apoc.map.removeKey(properties(old), $embedding_key)] END AS before
  MERGE (n:{{entity_label}} {{{id}}: row.id})
  SET n.{{name}} = row.name, n += row.props
  WITH n, row, created, before
  CALL apoc.create.addLabels(n, row.labels) YIELD node
  WITH n, created,
       NOT created AND before <> [labels(n), apoc.map.removeKey(properties(n), $embedding_key)] AS changed
  FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | REMOVE n.{{embedding}})
  WITH n, created, changed
  MATCH (c:{{community_label}} {id: $community_id})
  MERGE (c)-[:{{community_rel}}]->(n)
  RETURN sum(CASE WHEN created THEN 1 ELSE 0 END) AS created,
         sum(CASE WHEN changed THEN 1 ELSE 0 END) AS changed,
         count(n) AS total
}
RETURN created, changed, total, refused
