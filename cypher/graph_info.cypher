// What the service needs to know once at start-up: communities with their sizes and whether any of
// their entities is embedded (`indexed`: the search seeds from embeddings; the check stops at the
// first embedded entity), and the labels and relationship types present.
// A community's versions come with it (docs/graph-model.md, Loads and readers): its last complete
// load (`load_id`, `loaded_at`) and the one that has not completed (`loading`, its start, seconds
// since its last write, entities and relationships written so far: counted only while it is open).
// `size` and `indexed` count what readers see: not what that load wrote. Its id is read once per
// community (`open`), so a load that completes meanwhile changes no count half-way.
CALL (*) {
  OPTIONAL MATCH (c:{{community_label}})
  WITH c WHERE c IS NOT NULL
  WITH c, c.loading AS open
  RETURN collect({id: c.id, ontology_id: c.ontology_id,
                  size: CASE WHEN open IS NULL THEN COUNT { (c)-[:{{community_rel}}]->() }
                             ELSE COUNT { (c)-[a:{{community_rel}}]->()
                                          WHERE coalesce(a.pathrag_load, '') <> open } END,
                  indexed: EXISTS { (c)-[a:{{community_rel}}]->(e:{{entity_label}})
                                    WHERE e.{{embedding}} IS NOT NULL
                                      AND (open IS NULL OR coalesce(a.pathrag_load, '') <> open) },
                  load_id: c.load_id, loaded_at: toString(c.loaded_at), loading: open,
                  load_started: toString(c.load_started),
                  idle_s: CASE WHEN c.load_touched IS NULL THEN null
                               ELSE duration.inSeconds(c.load_touched, datetime()).seconds END,
                  pending: CASE WHEN open IS NULL THEN 0
                                ELSE COUNT { (c)-[a:{{community_rel}}]->() WHERE a.pathrag_load = open } END,
                  pending_relationships:
                    CASE WHEN open IS NULL THEN 0
                         ELSE COUNT { (c)-[:{{community_rel}}]->()-[r]->() WHERE r.pathrag_load = open } END
                  }) AS communities
}
CALL db.labels() YIELD label
WITH communities, collect(label) AS labels
CALL db.relationshipTypes() YIELD relationshipType
RETURN communities, labels, collect(relationshipType) AS types
