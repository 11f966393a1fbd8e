// Delete one session when it has expired.
MATCH (s:PathragApiSession {id: $id})
WHERE s.scope = $scope AND s.expires_at <= $now
DELETE s
