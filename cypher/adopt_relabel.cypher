// Take off an adopted community's entities the type labels that lack the adopted prefix (entities
// adopted before their types were namespaced): their types stay as $prefix + label, so that the
// user's own `MATCH (p:Person)` does not find pathrag_gds's copies. Only this community's entities.
MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(e:{{entity_label}})
WITH e, [l IN labels(e) WHERE l <> $entity_label AND NOT l STARTS WITH $prefix] AS plain
WHERE size(plain) > 0
CALL apoc.create.removeLabels(e, plain) YIELD node
RETURN count(node) AS relabelled
