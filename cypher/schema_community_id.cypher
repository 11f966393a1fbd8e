// Unique community ids.
CREATE CONSTRAINT pathrag_community_id IF NOT EXISTS
FOR (c:{{community_label}}) REQUIRE c.id IS UNIQUE
