// Unique document keys: one document node per key, whatever its versions (one community owns it).
CREATE CONSTRAINT pathrag_document_key IF NOT EXISTS
FOR (d:{{document_label}}) REQUIRE d.document_key IS UNIQUE
