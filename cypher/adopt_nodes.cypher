// The user's nodes to adopt: every node with all of $labels ({{label}} is one of them, for the label
// scan), except pathrag_gds's own entities. Read only: adopt never changes these nodes.
MATCH (n:{{label}})
WHERE all(l IN $labels WHERE l IN labels(n)) AND NOT n:{{entity_label}}
RETURN elementId(n) AS element_id, labels(n) AS labels, properties(n) AS props
ORDER BY element_id
