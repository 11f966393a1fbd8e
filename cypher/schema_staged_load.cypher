// RANGE index on the load of staged changes (`PathragStaged`): a load's last transaction applies
// its own, and a discarded load's are deleted, by load id.
CREATE RANGE INDEX pathrag_staged_load IF NOT EXISTS
FOR (p:PathragStaged) ON (p.load)
