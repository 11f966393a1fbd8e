// Start entities for training questions: every entity of one community, by id (sorted, so a seeded
// sampler in Python picks the same ones on every run). $community: the community id.
MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(n:{{entity_label}})
WHERE n.{{id}} IS NOT NULL
RETURN n.{{id}} AS id
ORDER BY id
