// Communities other than $community_id that use ontology $ontology_id (a load must not change it
// under them).
MATCH (c:{{community_label}} {ontology_id: $ontology_id})
WHERE c.id <> $community_id
RETURN c.id AS id
ORDER BY id
LIMIT 10
