// How many entities (of $community, or all when null) `index` would embed, and how many there are.
CALL (*) {
  MATCH (n:{{entity_label}})
  WHERE $community IS NULL
  RETURN n
  UNION ALL
  MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(n:{{entity_label}})
  RETURN n
}
RETURN count(n) AS total,
       count(CASE WHEN $force OR n.{{embedding}} IS NULL THEN 1 END) AS pending
