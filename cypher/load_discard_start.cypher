// Start discarding load $load of community $community_id (a load of other data replaces it): only
// if it is still open and has not written for $stale_s seconds ($force: whenever it is open, for
// `delete_community`). Readers keep skipping it (it stays `loading`) while `load_discard_*` delete
// what it wrote, and its own transactions fail their fence.
MATCH (c:{{community_label}} {id: $community_id})
CALL apoc.lock.nodes([c])
WITH c, coalesce(c.loading = $load, false)
        AND ($force OR c.load_touched IS NULL
             OR duration.inSeconds(c.load_touched, datetime()).seconds >= $stale_s) AS ok
FOREACH (_ IN CASE WHEN ok THEN [1] ELSE [] END |
  SET c.load_phase = 'discarding', c.load_touched = datetime())
RETURN ok
