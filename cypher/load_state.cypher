// A community's versions (`pathrag_gds.load_versions.LoadState`): its last complete load
// (`load_id`, `loaded_at`) and the load that has not completed, if any: its id (`loading`, read
// once), its data's digest, its phase (`writing`, `discarding`), start, seconds since its last
// write, and what it has written so far (not visible to readers): entities tied to the community,
// and relationships from them (typed and MENTIONED_IN; counted only while a load is open).
MATCH (c:{{community_label}} {id: $community_id})
WITH c, c.loading AS open
RETURN c.load_id AS load_id, toString(c.loaded_at) AS loaded_at, open AS loading,
       c.load_digest AS load_digest, c.load_phase AS load_phase,
       toString(c.load_started) AS load_started,
       CASE WHEN c.load_touched IS NULL THEN null
            ELSE duration.inSeconds(c.load_touched, datetime()).seconds END AS idle_s,
       CASE WHEN open IS NULL THEN 0
            ELSE COUNT { (c)-[a:{{community_rel}}]->() WHERE a.pathrag_load = open } END AS pending,
       CASE WHEN open IS NULL THEN 0
            ELSE COUNT { (c)-[:{{community_rel}}]->()-[r]->() WHERE r.pathrag_load = open } END
         AS pending_relationships
