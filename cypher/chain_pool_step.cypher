// One depth of a community's chain pool (`tune --chain-pool`): every walk one hop longer, ONE round
// trip for all of them.
// $walks: [{start, chain: [`type:out` / `type:in` tokens], end, last}], the distinct walks so far
// (a start with the empty chain and no last relationship to begin); $rels: the ontology's
// relationship types; $community: the walks stay among the entities this community aggregates.
// As the search's planned expansion, a walk never comes back to its start nor along the
// relationship it just took: the pool holds every chain the search can walk (and the few that
// go back along an earlier relationship of theirs, which it skips).
UNWIND $walks AS w
MATCH (f:{{entity_label}} {{{id}}: w.end})-[r]-(n:{{entity_label}})
WHERE type(r) IN $rels AND n.{{id}} <> w.start AND elementId(r) <> coalesce(w.last, '')
  AND EXISTS { (n)<-[:{{community_rel}}]-(:{{community_label}} {id: $community}) }
RETURN DISTINCT w.start AS start,
       w.chain + [type(r) + CASE WHEN startNode(r) = f THEN ':out' ELSE ':in' END] AS chain,
       n.{{id}} AS end,
       elementId(r) AS last
