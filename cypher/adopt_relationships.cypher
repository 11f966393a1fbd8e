// The relationships leaving the nodes $ids (element ids of nodes to adopt), with their targets'
// element ids; the caller keeps those whose target is adopted too. Read only.
UNWIND $ids AS id
MATCH (s) WHERE elementId(s) = id
MATCH (s)-[r]->(t)
RETURN id AS source, type(r) AS type, elementId(t) AS target, properties(r) AS props
