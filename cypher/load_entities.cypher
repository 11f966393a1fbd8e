// A batch of entities of one community, written by load $load: $rows = [{id, name, labels: [type
// labels], props: {..}, foreign}]. An existing entity that another community aggregates is refused
// (left as it is, not tied to this community) unless $shared, and so is a `foreign` row (an id in
// another community's namespace, named by a shared load) whose entity does not exist: a load never
// creates another community's ids. Refused ids come back in `refused`.
// The others, so that readers see nothing of the load until it completes (docs/graph-model.md,
// Loads and readers): a new entity is created (MERGE on id; type labels added with APOC, so one
// statement serves every label) and tied to the community by an AGGREGATES edge carrying the load's
// id (`pathrag_load`) and `pathrag_created`. An entity readers may see already is not changed: its
// changes (labels, name, properties) wait in a PathragStaged node {load, kind: 'entity', key: id}
// that the load's last transaction applies (`load_apply_entities`), and an AGGREGATES edge it gains
// carries the load's id. One this load created (in an earlier run of it) is updated in place.
// `changed`: existing entities whose labels or properties the load changes (they lose their
// embedding when it completes, unless the load embeds their new text). Rows must have distinct ids.
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
  MATCH (c:{{community_label}} {id: $community_id})
  OPTIONAL MATCH (old:{{entity_label}} {{{id}}: row.id})
  WITH c, row, old,
       old IS NOT NULL
       AND NOT EXISTS { (c)-[a:{{community_rel}}]->(old) WHERE a.pathrag_load = $load AND a.pathrag_created }
         AS seen,
       CASE WHEN old IS NULL THEN null
            ELSE [apoc.coll.sort(labels(old)), apoc.map.removeKey(properties(old), $embedding_key)] END
         AS before,
       CASE WHEN old IS NULL THEN null
            ELSE [apoc.coll.sort(apoc.coll.toSet(labels(old) + row.labels)),
                  apoc.map.merge(apoc.map.removeKey(properties(old), $embedding_key),
                                 apoc.map.merge(row.props, {{{name}}: row.name}))] END AS after
  WITH c, row, old, seen, old IS NOT NULL AND before <> after AS changed
  CALL (c, row, old, seen, changed) {
    WITH * WHERE NOT seen
    MERGE (n:{{entity_label}} {{{id}}: row.id})
    SET n.{{name}} = row.name, n += row.props
    FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | REMOVE n.{{embedding}})
    WITH c, n, old
    CALL apoc.create.addLabels(n, row.labels) YIELD node
    MERGE (c)-[a:{{community_rel}}]->(n)
    ON CREATE SET a.pathrag_load = $load, a.pathrag_created = old IS NULL
    RETURN n
    UNION ALL
    WITH * WHERE seen
    FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END |
      MERGE (p:PathragStaged {load: $load, kind: 'entity', key: row.id})
      SET p.community_id = $community_id, p.name = row.name, p.labels = row.labels,
          p.props = apoc.convert.toJson(row.props))
    MERGE (c)-[a:{{community_rel}}]->(old)
    ON CREATE SET a.pathrag_load = $load, a.pathrag_created = false
    RETURN old AS n
  }
  RETURN sum(CASE WHEN old IS NULL THEN 1 ELSE 0 END) AS created,
         sum(CASE WHEN changed THEN 1 ELSE 0 END) AS changed,
         count(n) AS total
}
RETURN created, changed, total, refused
