// Neighbours of a batch of entities for training-question walks: ONE round trip per batch.
// $ids: entity ids; $rels: relationship types that may be walked (the ontology's);
// $cap: at most this many neighbours per entity, relationship type and direction (hubs), picked by a
// seeded hash ($salt) so the choice is deterministic for a seed but not alphabetical;
// $entity_label / $embedding_key: strip these from the returned labels / properties.
// Rows are sorted, so the same graph and salt give the same rows in the same order.
UNWIND $ids AS fid
MATCH (f:{{entity_label}})
WHERE f.{{id}} = fid
CALL (f) {
  MATCH (f)-[r]-(n:{{entity_label}})
  WHERE type(r) IN $rels AND n <> f
  WITH r, n, type(r) AS rel_type,
       CASE WHEN startNode(r) = f THEN 'out' ELSE 'in' END AS direction
  ORDER BY apoc.util.md5([n.{{id}}, $salt])
  WITH rel_type, direction, collect({r: r, n: n})[0..$cap] AS capped
  UNWIND capped AS c
  RETURN c.r AS r, c.n AS n, rel_type, direction
}
WITH fid, r, n, rel_type, direction
RETURN fid AS frontier,
       rel_type AS type,
       direction,
       startNode(r).{{id}} AS src,
       endNode(r).{{id}} AS tgt,
       apoc.map.removeKey(properties(r), 'pathrag_load') AS rel_props,
       n.{{id}} AS id,
       [l IN labels(n) WHERE l <> $entity_label] AS labels,
       apoc.map.removeKey(properties(n), $embedding_key) AS props
ORDER BY frontier, type, direction, id
