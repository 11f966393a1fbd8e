// Load $load's last statement, in the transaction of the fence, the staged changes and the
// ontology: it becomes community $community_id's version (`load_id`), so readers see what it
// wrote from now on, and its staged nodes go.
MATCH (c:{{community_label}} {id: $community_id})
SET c.load_id = $load, c.loaded_at = datetime(), c.ontology_id = $ontology_id
REMOVE c.loading, c.load_digest, c.load_phase, c.load_started, c.load_touched
WITH c
CALL (c) {
  OPTIONAL MATCH (p:PathragStaged {load: $load})
  DETACH DELETE p
  RETURN count(p) AS staged
}
RETURN c.load_id AS load_id, staged
