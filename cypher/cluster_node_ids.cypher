// The entity ids of GDS node ids (the rows of a stream over a projection of `cluster_project`).
UNWIND $node_ids AS nid
WITH nid, gds.util.asNode(nid) AS n
RETURN nid, n.{{id}} AS id
