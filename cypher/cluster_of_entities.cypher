// Hybrid mode: the clusters of $community's current run that the entities $ids belong to, each with
// the cosine of its summary to the question ($qvec): one row per entity and cluster.
MATCH (c:{{community_label}} {id: $community})
UNWIND $ids AS eid
MATCH (e:{{entity_label}} {{{id}}: eid})-[:{{cluster_rel}}]->(cl:{{cluster_label}} {community_id: $community})
WHERE cl.run = c.cluster_run
RETURN eid AS entity, cl.id AS id, cl.level AS level, cl.title AS title, cl.summary AS summary,
       cl.rating AS rating, cl.size AS size,
       vector.similarity.cosine(cl.{{embedding}}, $qvec) AS score
