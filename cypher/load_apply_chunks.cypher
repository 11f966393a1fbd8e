// Load $load's last transaction: its staged changes to chunks that readers saw (text, source; see
// `load_chunks.cypher`), applied.
MATCH (p:PathragStaged {load: $load, kind: 'chunk'})
MATCH (c:{{chunk_label}} {id: p.key})
SET c.text = p.text, c.source = p.source
RETURN count(c) AS applied
