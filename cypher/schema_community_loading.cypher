// RANGE index on the open load of communities: every reader finds the loads that have not
// completed (`Community.loading`, docs/graph-model.md, Loads and readers) through it.
CREATE RANGE INDEX pathrag_community_loading IF NOT EXISTS
FOR (c:{{community_label}}) ON (c.loading)
