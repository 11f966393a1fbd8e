// RANGE index on the community of clusters (every cluster query filters by it).
CREATE RANGE INDEX pathrag_cluster_community IF NOT EXISTS
FOR (c:{{cluster_label}}) ON (c.community_id)
