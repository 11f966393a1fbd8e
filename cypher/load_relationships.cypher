// A batch of relationships, written by load $load: $rows = [{source, type, target, props: {..}}]
// (entity ids). One relationship per (source, type, target), merged with APOC so that one statement
// serves every relationship type. Rows whose endpoints are missing are not written (and not
// counted); nor, unless $shared, rows with an endpoint that community $community_id does not
// aggregate (counted in `foreign`), so a load never ties itself to another community's entities.
// Readers see nothing of the load until it completes (docs/graph-model.md, Loads and readers): a
// new relationship carries the load's id (`pathrag_load`); the new properties of one readers may
// see already wait in a PathragStaged node {load, kind: 'relationship'} that the load's last
// transaction applies (`load_apply_relationships`); one this load created is updated in place. An
// endpoint outside the community (a --shared load) is recorded {load, kind: 'touch', key: id}, so
// a discarded load finds what it wrote there.
UNWIND $rows AS row
MATCH (s:{{entity_label}} {{{id}}: row.source})
MATCH (t:{{entity_label}} {{{id}}: row.target})
WITH s, t, row,
     EXISTS { (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(s) } AS s_in,
     EXISTS { (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(t) } AS t_in
WITH s, t, row, s_in, t_in, $shared OR (s_in AND t_in) AS allowed
CALL (s, t, row, s_in, t_in, allowed) {
  WITH * WHERE allowed
  CALL (s, t, row) {
    OPTIONAL MATCH (s)-[old]->(t)
    WHERE type(old) = row.type
    RETURN old
    LIMIT 1
  }
  WITH s, t, row, s_in, t_in, old,
       old IS NOT NULL AND coalesce(old.pathrag_load, '') <> $load AS seen
  WITH s, t, row, s_in, t_in, old, seen,
       seen AND apoc.map.merge(properties(old), row.props) <> properties(old) AS changed
  FOREACH (_ IN CASE WHEN old IS NOT NULL AND NOT seen THEN [1] ELSE [] END | SET old += row.props)
  FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END |
    MERGE (p:PathragStaged {load: $load, kind: 'relationship',
                            key: apoc.convert.toJson([row.source, row.type, row.target])})
    SET p.community_id = $community_id, p.source = row.source, p.type = row.type,
        p.target = row.target, p.props = apoc.convert.toJson(row.props))
  FOREACH (x IN CASE WHEN s_in THEN [] ELSE [s] END + CASE WHEN t_in THEN [] ELSE [t] END |
    MERGE (p:PathragStaged {load: $load, kind: 'touch', key: x.{{id}}})
    SET p.community_id = $community_id)
  WITH s, t, row, old
  CALL (s, t, row, old) {
    WITH * WHERE old IS NULL
    CALL apoc.merge.relationship(s, row.type, {}, apoc.map.merge(row.props, {pathrag_load: $load}), t, {})
    YIELD rel
    RETURN 1 AS created
    UNION ALL
    WITH * WHERE old IS NOT NULL
    RETURN 0 AS created
  }
  RETURN created, 1 AS written
  UNION ALL
  WITH * WHERE NOT allowed
  RETURN 0 AS created, 0 AS written
}
RETURN sum(created) AS created, sum(written) AS total, count(*) - sum(written) AS foreign
