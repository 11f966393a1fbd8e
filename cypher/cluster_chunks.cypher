// The text passages about one community's entities: chunks that mention them, of the current version
// of a document of $community (an open HAS_PART edge), or of no document (a graph file's chunks);
// with the ids of the community's entities each one mentions (a chunk without an id, as adopted
// communities cite, by its element id).
MATCH (:{{community_label}} {id: $community})-[:{{community_rel}}]->(e:{{entity_label}})
      -[:{{mentioned_in}}]->(ch:{{chunk_label}})
WHERE CASE WHEN EXISTS { (:{{document_label}})-[:{{has_part}}]->(ch) }
           THEN EXISTS { (d:{{document_label}} {community_id: $community})-[r:{{has_part}}]->(ch)
                         WHERE r.end IS NULL }
           ELSE true END
RETURN coalesce(ch.id, elementId(ch)) AS id, ch.text AS text, collect(DISTINCT e.{{id}}) AS entities
ORDER BY id
