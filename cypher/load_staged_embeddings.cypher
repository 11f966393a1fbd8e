// Write embeddings of staged entity changes of load $load: $rows = [{id, vector}]. The load's last
// transaction sets them on the entities (`load_apply_entities`).
UNWIND $rows AS row
MATCH (p:PathragStaged {load: $load, kind: 'entity', key: row.id})
SET p.embedding = row.vector
RETURN count(p) AS written
