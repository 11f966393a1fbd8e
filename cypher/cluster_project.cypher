// GDS Cypher projection of ONE community's entity graph, undirected, for Leiden / Louvain / PageRank.
// Only entities $community aggregates, and only relationships of the $rels types between two of them
// (an entity without any such relationship is projected alone). $graph_name: a name of this run.
MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(s:{{entity_label}})
OPTIONAL MATCH (s)-[r]->(t:{{entity_label}})
WHERE type(r) IN $rels
  AND EXISTS { (:{{community_label}} {id: $community})-[:{{community_rel}}]->(t) }
RETURN gds.graph.project($graph_name, s, t, {}, {undirectedRelationshipTypes: ['*']})
