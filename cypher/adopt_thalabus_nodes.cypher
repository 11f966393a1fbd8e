// The entities of a Thalabus community, `(:Community {id: $source})-[:AGGREGATES]->(n)` in the names
// Thalabus writes ({{source_label}}, {{source_rel}}), except pathrag_gds's own copies (they ADOPT a
// node). Only the properties adopt reads: those whose names end with $suffix (`_consolidated`), and
// those named in $plain (`id`, and `name` / `description` as fallbacks); not the user's embedding.
// Read only: adopt never changes these nodes.
MATCH (:{{source_label}} {id: $source})-[:{{source_rel}}]->(n)
WHERE NOT EXISTS { (n)-[:{{adopts_rel}}]->() }
RETURN elementId(n) AS element_id,
       labels(n) AS labels,
       apoc.map.fromPairs([k IN keys(n) WHERE k ENDS WITH $suffix OR k IN $plain | [k, n[k]]]) AS props
