// Delete up to $limit clusters of one community (with their MEMBER_OF edges) that are not of run
// $keep (null: all of them). Run until it returns 0.
MATCH (cl:{{cluster_label}} {community_id: $community})
WHERE $keep IS NULL OR cl.run IS NULL OR cl.run <> $keep
WITH cl LIMIT $limit
DETACH DELETE cl
RETURN count(*) AS deleted
