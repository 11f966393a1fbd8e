// Delete a live session of its owner; how many were deleted (0: unknown, expired or another's).
OPTIONAL MATCH (s:PathragApiSession {id: $id})
WHERE s.scope = $scope AND s.owner = $owner AND s.expires_at > $now
DELETE s
RETURN count(s) AS deleted
