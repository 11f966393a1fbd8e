// The stored state of documents by key: owner community, content hash (null once removed), chunker.
UNWIND $keys AS key
MATCH (d:{{document_label}} {document_key: key})
RETURN d.document_key AS key, d.community_id AS community_id, d.content_hash AS content_hash,
       d.chunker AS chunker
