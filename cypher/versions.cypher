// Version and edition of the Neo4j server (db status).
CALL dbms.components() YIELD name, versions, edition
WITH name, versions, edition WHERE name = 'Neo4j Kernel'
RETURN versions[0] AS version, edition
