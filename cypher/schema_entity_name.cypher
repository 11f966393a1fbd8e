// RANGE index on entity names (exact-name lookups).
CREATE RANGE INDEX pathrag_entity_name IF NOT EXISTS
FOR (n:{{entity_label}}) ON (n.{{name}})
