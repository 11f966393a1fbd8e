// The current cluster run of one community: how many clusters it has, per level.
MATCH (c:{{community_label}} {id: $community})
OPTIONAL MATCH (cl:{{cluster_label}} {community_id: $community})
WHERE cl.run = c.cluster_run
WITH c, cl.level AS level, count(cl) AS n
RETURN c.cluster_run AS run, collect(CASE WHEN level IS NULL THEN null ELSE [level, n] END) AS levels
