// Unique section keys (`<document key>#s-<hash>`).
CREATE CONSTRAINT pathrag_section_id IF NOT EXISTS
FOR (s:{{section_label}}) REQUIRE s.id IS UNIQUE
