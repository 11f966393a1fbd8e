// A batch of relationships: $rows = [{source, type, target, props: {..}}] (entity ids).
// One relationship per (source, type, target), created or updated with APOC so that one statement
// serves every relationship type. Rows whose endpoints are missing are not written (and not counted).
UNWIND $rows AS row
MATCH (s:{{entity_label}} {{{id}}: row.source})
MATCH (t:{{entity_label}} {{{id}}: row.target})
WITH s, t, row, EXISTS { MATCH (s)-[r]->(t) WHERE type(r) = row.type } AS existed
CALL apoc.merge.relationship(s, row.type, {}, row.props, t, row.props) YIELD rel
RETURN sum(CASE WHEN existed THEN 0 ELSE 1 END) AS created, count(rel) AS total
