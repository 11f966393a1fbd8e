// One hop for the WHOLE beam in one round trip.
// $beam: [{pid, frontier, nodes: [ids on the path], keys: [edge keys of the path], steps, probe}]
// $rels: relationship types that may be walked (the whitelist); $cap: at most this many
// neighbours per relationship type and parent (the hub cap); $limit: expand_per_path (a path
// with planned steps: per step, so that one step's many neighbours never crowd out another
// step its chain plan asks for);
// $no_revisit: skip neighbours already on the path (a path with planned steps: never its topic nor
// back along a relationship it walked; another entity on it is an answer of the chain, as the
// director of the films a writer wrote can be that writer); $qvec: the question embedding for the
// pre-sort; $known: entity ids whose properties the caller already holds (not sent again);
// $community: walk only to entities this community aggregates (null: anywhere).
// Only what readers see (docs/graph-model.md, Loads and readers): `hidden` = $pinned (the loads the
// query's seeds skipped, so one query reads one version even if a load completes meanwhile) and the
// loads that have not completed now; a relationship carrying one of them is not walked, and a
// neighbour counts only through an AGGREGATES edge of none of them (without a community: one that no
// community holds, or held through such an edge). The load id is not a relationship property.
// b.steps: null, or the only (type, direction) steps this path may take, as `type:out` /
// `type:in` tokens (the chain planner's next steps for it).
// Each row is one extension: parent, the stored relationship (source, type, target, properties),
// the walk direction, the neighbour, and the canonical direction-agnostic key of the new path; for
// a path with b.probe ({step token: [{t: type, d: direction}]}: the steps its chain plan may take
// after the one this row took) also those the neighbour has (`type:out` / `type:in`), the
// relationship just walked not counted: the plan's next depth keeps the chains the graph holds.
CALL () {
  MATCH (p:{{community_label}})
  WHERE p.loading IS NOT NULL
  RETURN collect(p.loading) AS open
}
WITH $pinned + open AS hidden
UNWIND $beam AS b
MATCH (f:{{entity_label}} {{{id}}: b.frontier})
CALL (f, b, hidden) {
  MATCH (f)-[r]-(n:{{entity_label}})
  WHERE type(r) IN $rels
    AND (size(hidden) = 0 OR NOT coalesce(r.pathrag_load, '') IN hidden)
  WITH r, n, type(r) + CASE WHEN startNode(r) = f THEN ':out' ELSE ':in' END AS step
  WHERE (b.steps IS NULL OR step IN b.steps)
    AND (NOT $no_revisit
         OR CASE WHEN b.steps IS NULL THEN NOT n.{{id}} IN b.nodes
                 ELSE n.{{id}} <> b.nodes[0]
                      AND NOT startNode(r).{{id}} + ':' + type(r) + ':' + endNode(r).{{id}} IN b.keys END)
    AND CASE WHEN $community IS NOT NULL
             THEN EXISTS { (n)<-[a:{{community_rel}}]-(:{{community_label}} {id: $community})
                           WHERE size(hidden) = 0 OR NOT coalesce(a.pathrag_load, '') IN hidden }
             WHEN size(hidden) = 0 THEN true
             ELSE NOT EXISTS { (n)<-[:{{community_rel}}]-() }
                  OR EXISTS { (n)<-[a:{{community_rel}}]-() WHERE NOT coalesce(a.pathrag_load, '') IN hidden }
        END
  WITH r, n, CASE WHEN b.steps IS NULL THEN type(r) ELSE step END AS grp,
       coalesce(vector.similarity.cosine($qvec, n.{{embedding}}), 0.0) AS sim
  ORDER BY sim DESC
  WITH grp, collect({r: r, n: n, sim: sim}) AS group
  WITH group[0..CASE WHEN b.steps IS NULL OR $cap < $limit THEN $cap ELSE $limit END] AS capped
  UNWIND capped AS c
  WITH c
  ORDER BY c.sim DESC
  WITH collect(c) AS kept
  UNWIND range(0, size(kept) - 1) AS i
  WITH kept[i] AS c, i
  WHERE b.steps IS NOT NULL OR i < $limit
  RETURN c.r AS r, c.n AS n, c.sim AS sim
}
WITH b, r, n, sim, startNode(r).{{id}} AS src, endNode(r).{{id}} AS tgt
WITH b, r, n, sim, src, tgt, src + ':' + type(r) + ':' + tgt AS ek
WITH b, r, n, sim, src, tgt, ek,
     type(r) + CASE WHEN src = b.frontier THEN ':out' ELSE ':in' END AS step
WITH b, r, n, sim, src, tgt, ek,
     CASE WHEN b.probe IS NULL THEN null
          ELSE [x IN coalesce(b.probe[step], [])
                WHERE (x.d = 'out' AND apoc.node.degree.out(n, x.t)
                                       > CASE WHEN x.t = type(r) AND src = n.{{id}} THEN 1 ELSE 0 END)
                   OR (x.d = 'in' AND apoc.node.degree.in(n, x.t)
                                      > CASE WHEN x.t = type(r) AND tgt = n.{{id}} THEN 1 ELSE 0 END)
                | x.t + ':' + x.d] END AS next_steps
RETURN b.pid AS pid,
       type(r) AS type,
       src, tgt,
       CASE WHEN src = b.frontier THEN 'out' ELSE 'in' END AS direction,
       apoc.map.removeKey(properties(r), 'pathrag_load') AS rel_props,
       n.{{id}} AS id,
       CASE WHEN n.{{id}} IN $known THEN null
            ELSE {labels: [l IN labels(n) WHERE l <> $entity_label],
                  props: apoc.map.removeKey(properties(n), $embedding_key)} END AS entity,
       sim,
       next_steps,
       apoc.text.join(apoc.coll.sort(b.keys + [ek]), '|') AS key
