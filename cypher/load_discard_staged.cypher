// Discarding load $load: up to $limit of its staged changes and touch records. Run last.
MATCH (p:PathragStaged {load: $load})
WITH p LIMIT $limit
DETACH DELETE p
RETURN count(*) AS deleted
