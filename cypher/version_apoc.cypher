// APOC's version (fails with an unknown-function error when APOC is not installed).
RETURN apoc.version() AS version
