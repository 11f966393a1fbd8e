// Degree distribution per relationship type and side for one community's entities: for each type,
// `out` = degree of the source entities, `in` = degree of the target entities (hubs are usually
// targets: a genre, a year). max, p99, p50 among entities with at least one such relationship,
// and the top $top hubs.
MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
MATCH (n)-[r]-(:{{entity_label}})
WITH type(r) AS type, CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END AS side, n, count(r) AS degree
ORDER BY degree DESC
WITH type, side, collect({id: n.{{id}}, name: n.{{name}}, degree: degree}) AS nodes,
     collect(degree) AS degrees
RETURN type,
       side,
       size(degrees) AS entities,
       degrees[0] AS max,
       degrees[toInteger(floor(size(degrees) * 0.01))] AS p99,
       degrees[toInteger(floor(size(degrees) * 0.5))] AS p50,
       nodes[0..$top] AS top
ORDER BY max DESC
