// Entities whose changes load $load staged, as they will read once it completes (labels without
// the entity label, properties without the embedding), in pages after id $after: `load --index`
// embeds their new text before the load completes.
MATCH (p:PathragStaged {load: $load, kind: 'entity'})
WHERE p.key > $after
MATCH (n:{{entity_label}} {{{id}}: p.key})
WITH p, n ORDER BY p.key LIMIT $limit
RETURN p.key AS id,
       [l IN apoc.coll.toSet(labels(n) + p.labels) WHERE l <> $entity_label] AS labels,
       apoc.map.merge(apoc.map.removeKey(properties(n), $embedding_key),
                      apoc.map.merge(apoc.convert.fromJsonMap(p.props), {{{name}}: p.name})) AS props
