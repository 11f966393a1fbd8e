// Every community's id, sorted (`python -m pathrag_gds info`).
MATCH (c:{{community_label}})
RETURN c.id AS id
ORDER BY id
