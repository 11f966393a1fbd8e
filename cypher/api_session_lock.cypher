// Lock a scope's sessions for the rest of the transaction (a write on its one lock node).
MERGE (g:PathragApiSessionScope {scope: $scope})
SET g.locked_at = $now
