// Delete the mentions from an adopted community's entities to the user's chunks. Run before its
// entities are deleted: deleting a community deletes the chunks that only its entities mention.
MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(e:{{entity_label}})
      -[m:{{mentioned_in}}]->(:{{chunk_label}})
DELETE m
RETURN count(m) AS unlinked
