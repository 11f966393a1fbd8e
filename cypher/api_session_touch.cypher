// A live session of its owner, its life extended to `expires_at`; no row when unknown, expired or
// another owner's.
MATCH (s:PathragApiSession {id: $id})
WHERE s.scope = $scope AND s.owner = $owner AND s.expires_at > $now
SET s.expires_at = $expires_at
RETURN s.database_name AS database_name, s.mode AS mode, s.hop_depth AS hop_depth, s.top_n AS top_n,
       s.seed_n AS seed_n, s.community_id AS community_id, s.expires_at AS expires_at
