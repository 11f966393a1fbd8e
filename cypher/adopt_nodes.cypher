// The user's nodes to adopt with label {{label}} (run once per --label) that also carry every label
// of $with_labels, except pathrag_gds's own entities. Read only: adopt never changes these nodes.
MATCH (n:{{label}})
WHERE all(l IN $with_labels WHERE l IN labels(n)) AND NOT n:{{entity_label}}
RETURN elementId(n) AS element_id, labels(n) AS labels, properties(n) AS props
