// Mark a community as adopted: the labels that chose its nodes (`adopt --remove` only removes such).
MATCH (c:{{community_label}} {id: $community_id})
SET c.adopted_labels = $labels
RETURN c.id AS id
