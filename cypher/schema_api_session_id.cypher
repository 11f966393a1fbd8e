// Unique API session ids (`PATHRAG_API_SESSIONS=neo4j`): the index behind every session lookup.
CREATE CONSTRAINT pathrag_api_session_id IF NOT EXISTS
FOR (s:PathragApiSession) REQUIRE s.id IS UNIQUE
