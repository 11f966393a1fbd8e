// Open load $load of community $community_id (the community is created if missing): the
// compare-and-set that starts a load. Under the community's write lock, only if its open load is
// still $expected (null: none); then readers skip whatever carries $load until `load_commit`.
// $digest: the data's digest (the same data resumes the load); $resume: keep its start time.
// A community that existed with neither a version nor an open load was written before loads had
// versions (or by `adopt`, `db import`): it is complete, so it gets the version `unversioned`, which
// readers keep seeing while the load writes.
OPTIONAL MATCH (old:{{community_label}} {id: $community_id})
WITH old IS NOT NULL AS existed
MERGE (c:{{community_label}} {id: $community_id})
WITH c, existed
CALL apoc.lock.nodes([c])
WITH c, coalesce(c.loading, '') = coalesce($expected, '') AS ok,
     existed AND c.load_id IS NULL AND c.loading IS NULL AS unversioned
FOREACH (_ IN CASE WHEN ok THEN [1] ELSE [] END |
  SET c.loading = $load, c.load_digest = $digest, c.load_phase = 'writing',
      c.load_touched = datetime(),
      c.load_started = CASE WHEN $resume THEN coalesce(c.load_started, datetime()) ELSE datetime() END,
      c.load_id = CASE WHEN unversioned THEN 'unversioned' ELSE c.load_id END)
RETURN ok, c.loading AS loading
