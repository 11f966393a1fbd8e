// How often an entity of each type label has each step (search/support.py, the chain planner's
// prior): per label, relationship type and side (`out`: the entity is the source, `in`: the
// target, `both`: either, for symmetric relations stored once per pair), how many of the
// community's entities with that label have at least one (`one`) and at least two (`two`) such
// relationships; and a row per label with no type whose `one` is how many entities carry it.
MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
WITH n, [l IN labels(n) WHERE l <> $entity_label] AS labels
CALL {
  WITH n
  MATCH (n)-[r]-(:{{entity_label}})
  WITH type(r) AS type, collect(CASE WHEN startNode(r) = n THEN 'out' ELSE 'in' END) AS sides
  UNWIND ['out', 'in', 'both'] AS side
  WITH type, side, size([s IN sides WHERE side = 'both' OR s = side]) AS degree
  WHERE degree > 0
  RETURN type, side, degree
}
UNWIND labels AS label
RETURN label, type, side, count(n) AS one, count(CASE WHEN degree >= 2 THEN n END) AS two
UNION ALL
MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(n:{{entity_label}})
UNWIND [l IN labels(n) WHERE l <> $entity_label] AS label
RETURN label, null AS type, null AS side, count(n) AS one, 0 AS two
