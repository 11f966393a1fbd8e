// A scope's live sessions.
MATCH (s:PathragApiSession)
WHERE s.scope = $scope AND s.expires_at > $now
RETURN count(s) AS sessions
