"""The local Neo4j server: install its jars (Maven Central), start, stop and describe it.

The server is the real Neo4j 5.26 community server (`org.neo4j.server.CommunityEntryPoint`) with APOC
core and the open Graph Data Science library on its classpath, run by `java` from a Neo4j home
(`Settings.neo4j_home`, default `<repo>/.neo4j`, or `.neo4j/` of the per-user data folder when
installed from a wheel: `pathrag_gds.locations`) that holds `lib/`, `plugins/`, `conf/`, `data/`,
`logs/` and `run/`. Jars come from `scripts/neo4j/pom.xml` through `scripts/neo4j/install.sh` (a
wheel carries both).

Modules: `home` (a home's files), `java` (finding Java, installing the jars), `conf` (neo4j.conf,
the command line, the first password), `process` (start, stop, the running pid), `status`.

A user with their own Neo4j sets `NEO4J_URI` and never needs any of this: `start` and `stop` then say
so and do nothing.

Example:
    >>> from pathrag_gds.config import Settings
    >>> s = Settings.from_env({})
    >>> start(s)  # doctest: +SKIP
    Neo4j 5.26.5 is up at bolt://127.0.0.1:7687 (pid 4242, home /repo/.neo4j, 14.2 s)
"""

from pathrag_gds.errors import LocalServerError
from pathrag_gds.localdb.conf import (
    APOC_CONF,
    JVM_FLAGS,
    ensure_password,
    java_command,
    neo4j_conf,
    write_config,
)
from pathrag_gds.localdb.home import (
    DEFAULT_HOME,
    MAIN_CLASS,
    MIN_JAVA,
    SCRIPTS_DIR,
    Paths,
    Printer,
    pom_stamp,
)
from pathrag_gds.localdb.java import ensure_installed, find_java
from pathrag_gds.localdb.process import log_tail, running_pid, start, stop, wait_ready
from pathrag_gds.localdb.status import status, versions

__all__ = [
    "APOC_CONF",
    "DEFAULT_HOME",
    "JVM_FLAGS",
    "MAIN_CLASS",
    "MIN_JAVA",
    "SCRIPTS_DIR",
    "LocalServerError",
    "Paths",
    "Printer",
    "ensure_installed",
    "ensure_password",
    "find_java",
    "java_command",
    "log_tail",
    "neo4j_conf",
    "pom_stamp",
    "running_pid",
    "start",
    "status",
    "stop",
    "versions",
    "wait_ready",
    "write_config",
]
