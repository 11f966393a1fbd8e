// Discarding load $load: up to $limit entities it created (its AGGREGATES edge says so) that no
// other community holds, with their relationships.
MATCH (c:{{community_label}} {id: $community_id})-[a:{{community_rel}}]->(n:{{entity_label}})
WHERE a.pathrag_load = $load AND a.pathrag_created
  AND NOT EXISTS { (n)<-[:{{community_rel}}]-(o:{{community_label}}) WHERE o <> c }
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
