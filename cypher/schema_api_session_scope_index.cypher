// RANGE index on API sessions by scope: the limits count a scope's live sessions, the purge
// deletes its expired ones.
CREATE RANGE INDEX pathrag_api_session_by_scope IF NOT EXISTS
FOR (s:PathragApiSession) ON (s.scope, s.expires_at)
