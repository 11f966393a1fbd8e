// Graph Data Science's version (fails with an unknown-function error when GDS is not installed).
RETURN gds.version() AS version
