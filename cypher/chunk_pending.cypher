// One page of a community's document chunks without an embedding, keyset-paginated on id (no SKIP).
MATCH (ch:{{chunk_label}} {community_id: $community_id})
WHERE ch.id > $after AND ch.{{embedding}} IS NULL
WITH ch ORDER BY ch.id LIMIT $limit
RETURN ch.id AS id, ch.text AS text, ch.headings AS headings
