// Which of the entity ids $ids exist. A shared load may name another community's entities (ids in
// its namespace) to share them, but not create them: those that do not exist are refused first.
UNWIND $ids AS eid
MATCH (n:{{entity_label}} {{{id}}: eid})
RETURN n.{{id}} AS id
