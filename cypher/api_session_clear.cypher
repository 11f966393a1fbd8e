// Delete every session of a scope and its lock node (tests remove their own scope).
OPTIONAL MATCH (s:PathragApiSession)
WHERE s.scope = $scope
DELETE s
WITH count(*) AS _
OPTIONAL MATCH (g:PathragApiSessionScope {scope: $scope})
DELETE g
