// Connectivity check.
RETURN 1 AS ok
