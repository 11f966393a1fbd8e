// The user's relationships between nodes to adopt (both ends with all of $labels, see
// adopt_nodes.cypher), by the ends' element ids. Read only.
MATCH (s:{{label}})-[r]->(t:{{label}})
WHERE all(l IN $labels WHERE l IN labels(s)) AND NOT s:{{entity_label}}
  AND all(l IN $labels WHERE l IN labels(t)) AND NOT t:{{entity_label}}
RETURN elementId(s) AS source, type(r) AS type, elementId(t) AS target, properties(r) AS props
