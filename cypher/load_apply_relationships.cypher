// Load $load's last transaction: its staged changes to the properties of relationships that
// readers saw (see `load_relationships.cypher`), applied.
MATCH (p:PathragStaged {load: $load, kind: 'relationship'})
MATCH (s:{{entity_label}} {{{id}}: p.source})-[r]->(t:{{entity_label}} {{{id}}: p.target})
WHERE type(r) = p.type
SET r += apoc.convert.fromJsonMap(p.props)
RETURN count(r) AS applied
