// The first statement of each transaction of a load: take the community's write lock, check that
// load $load is still the open one in $phase (`writing`; `discarding` while it is discarded) and
// record the write (`load_touched`: a load without writes for PATHRAG_LOAD_STALE_S counts as
// interrupted). `ok` false: another load took over (or completed it); the caller rolls back.
MATCH (c:{{community_label}} {id: $community_id})
CALL apoc.lock.nodes([c])
WITH c, coalesce(c.loading = $load AND c.load_phase = $phase, false) AS ok
FOREACH (_ IN CASE WHEN ok THEN [1] ELSE [] END | SET c.load_touched = datetime())
RETURN ok, c.loading AS loading
