// Names and aliases of a community's entities (to find their mentions in chunks).
// $aliases_key: the property holding aliases (a string or a list of strings).
MATCH (:{{community_label}} {id: $community_id})-[:{{community_rel}}]->(e:{{entity_label}})
RETURN e.{{id}} AS id, e.{{name}} AS name, e[$aliases_key] AS aliases
