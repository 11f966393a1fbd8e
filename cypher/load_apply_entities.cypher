// Load $load's last transaction: its staged changes to entities that readers saw (see
// `load_entities.cypher`) applied: type labels added, name and properties set, and the embedding
// of the new text that the load computed (`load ... --index`), or none (then `index` embeds it).
MATCH (p:PathragStaged {load: $load, kind: 'entity'})
MATCH (n:{{entity_label}} {{{id}}: p.key})
SET n.{{name}} = p.name, n += apoc.convert.fromJsonMap(p.props), n.{{embedding}} = p.embedding
WITH n, p
CALL apoc.create.addLabels(n, p.labels) YIELD node
RETURN count(node) AS applied
