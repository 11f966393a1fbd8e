// The community, if it exists.
MATCH (c:{{community_label}} {id: $community_id})
RETURN c.id AS id
