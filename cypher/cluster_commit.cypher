// Make $run the community's current cluster run (searches read only it) and report what it holds.
MATCH (c:{{community_label}} {id: $community})
SET c.cluster_run = $run
WITH c
OPTIONAL MATCH (cl:{{cluster_label}} {community_id: $community, run: $run})
RETURN count(cl) AS clusters
