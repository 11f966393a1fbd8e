// A batch of relationships: $rows = [{source, type, target, props: {..}}] (entity ids).
// One relationship per (source, type, target), created or updated with APOC so that one statement
// serves every relationship type. Rows whose endpoints are missing are not written (and not
// counted); nor, unless $shared, rows with an endpoint that community $community_id does not
// aggregate (counted in `foreign`), so a load never ties itself to another community's entities.
UNWIND $rows AS row
MATCH (s:{{entity_label}} {{{id}}: row.source})
MATCH (t:{{entity_label}} {{{id}}: row.target})
WITH s, t, row,
     $shared OR (EXISTS { (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(s) }
                 AND EXISTS { (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(t) })
       AS allowed
CALL (s, t, row, allowed) {
  WITH * WHERE allowed
  WITH s, t, row, EXISTS { MATCH (s)-[r]->(t) WHERE type(r) = row.type } AS existed
  CALL apoc.merge.relationship(s, row.type, {}, row.props, t, row.props) YIELD rel
  RETURN CASE WHEN existed THEN 0 ELSE 1 END AS created, 1 AS written
  UNION ALL
  WITH * WHERE NOT allowed
  RETURN 0 AS created, 0 AS written
}
RETURN sum(created) AS created, sum(written) AS total, count(*) - sum(written) AS foreign
