// Mark a community as adopted: what chose its nodes (`adopt --remove` only removes such).
// $labels: any of them; $with_labels: all of them too ([] and [] for a Thalabus source);
// $source: the Thalabus community whose entities it adopts (or null); $chunk_rel: to the chunks (or null).
MATCH (c:{{community_label}} {id: $community_id})
SET c.adopted_labels = $labels, c.adopted_with_labels = $with_labels, c.adopted_from = $source,
    c.adopted_chunk_rel = $chunk_rel
RETURN c.id AS id
