// One lock node per API session scope: creating a session locks it, so that two API servers
// creating sessions at once both see the other's when they count against the limits.
CREATE CONSTRAINT pathrag_api_session_scope IF NOT EXISTS
FOR (g:PathragApiSessionScope) REQUIRE g.scope IS UNIQUE
