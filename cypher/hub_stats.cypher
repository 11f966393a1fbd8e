// Degree distribution per relationship type for one community's entities (both directions counted):
// max, p99, p50 degree among entities having that type, and the top $top hubs.
MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
MATCH (n)-[r]-(:{{entity_label}})
WITH type(r) AS type, n, count(r) AS degree
ORDER BY degree DESC
WITH type, collect({id: n.{{id}}, name: n.{{name}}, degree: degree}) AS nodes, collect(degree) AS degrees
RETURN type,
       size(degrees) AS entities,
       degrees[0] AS max,
       degrees[toInteger(floor(size(degrees) * 0.01))] AS p99,
       degrees[toInteger(floor(size(degrees) * 0.5))] AS p50,
       nodes[0..$top] AS top
ORDER BY max DESC
