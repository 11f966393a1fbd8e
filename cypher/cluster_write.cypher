// Write a batch of one community's clusters of run $run, each with its MEMBER_OF edges:
// $rows = [{id, level, title, summary, rating, size, embedding, members: [{id, centrality}]}].
// They stay invisible to searches until `cluster_commit` makes $run the community's current run.
UNWIND $rows AS row
CREATE (c:{{cluster_label}} {id: row.id, community_id: $community, run: $run, level: row.level,
                             title: row.title, summary: row.summary, rating: row.rating,
                             size: row.size})
WITH c, row
CALL db.create.setNodeVectorProperty(c, $embedding_key, row.embedding)
WITH c, row
UNWIND row.members AS m
MATCH (e:{{entity_label}} {{{id}}: m.id})
WHERE EXISTS { (:{{community_label}} {id: $community})-[:{{community_rel}}]->(e) }
CREATE (e)-[:{{cluster_rel}} {centrality: m.centrality}]->(c)
RETURN count(*) AS members
