// Create a session unless its owner holds `max_per_owner` live sessions or the scope `max_sessions`
// (run after `api_session_lock` and `api_session_purge`, in their transaction); the counts before.
OPTIONAL MATCH (s:PathragApiSession)
WHERE s.scope = $scope AND s.expires_at > $now
WITH count(s) AS total, count(CASE s.owner WHEN $owner THEN 1 END) AS mine
FOREACH (_ IN CASE WHEN mine < $max_per_owner AND total < $max_sessions THEN [1] ELSE [] END |
  CREATE (:PathragApiSession {
    id: $id, scope: $scope, owner: $owner, database_name: $database_name, mode: $mode,
    hop_depth: $hop_depth, top_n: $top_n, seed_n: $seed_n, community_id: $community_id,
    expires_at: $expires_at
  })
)
RETURN total, mine
