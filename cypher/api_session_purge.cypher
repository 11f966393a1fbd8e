// Delete a scope's expired sessions.
MATCH (s:PathragApiSession)
WHERE s.scope = $scope AND s.expires_at <= $now
DELETE s
