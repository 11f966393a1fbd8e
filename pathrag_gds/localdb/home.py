"""One Neo4j home on disk: where its jars, configuration, logs, pid and password live."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pathrag_gds.locations import HOME_DIR, NEO4J_SCRIPTS_DIR

#: The folder with the pom.xml and install.sh that fetch the jars (`scripts/neo4j/` of the checkout,
#: else the installed package's copy).
SCRIPTS_DIR = NEO4J_SCRIPTS_DIR
#: The default home (`.neo4j/` of the checkout or of the per-user data folder), whose jars other
#: homes (tests) link to instead of copying them again.
DEFAULT_HOME = HOME_DIR / ".neo4j"
MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"
MIN_JAVA = 17

#: Where progress lines go (`print`, or a test's list.append).
Printer = Callable[[str], None]


@dataclass(frozen=True)
class Paths:
    """The files and folders of one Neo4j home."""

    home: Path

    @property
    def lib(self) -> Path:
        """Neo4j's own jars."""
        return self.home / "lib"

    @property
    def plugins(self) -> Path:
        """APOC, GDS and the libraries they need (also on the classpath)."""
        return self.home / "plugins"

    @property
    def conf(self) -> Path:
        """neo4j.conf and apoc.conf (written at every start)."""
        return self.home / "conf"

    @property
    def logs(self) -> Path:
        """neo4j.log (the server's console), debug.log, query.log, ..."""
        return self.home / "logs"

    @property
    def run(self) -> Path:
        """The pid file and the start/stop lock."""
        return self.home / "run"

    @property
    def pid_file(self) -> Path:
        """Pid of the running server."""
        return self.run / "neo4j.pid"

    @property
    def password_file(self) -> Path:
        """The generated password of user neo4j (mode 0600)."""
        return self.home / "password"

    @property
    def auth_file(self) -> Path:
        """Neo4j's own record of the initial password; present once the password is set."""
        return self.home / "data" / "dbms" / "auth.ini"

    def installed(self) -> bool:
        """True when lib/ and plugins/ hold the jars of the current pom.xml."""
        stamp = pom_stamp()
        return all(
            (d / ".installed").is_file() and (d / ".installed").read_text().strip() == stamp
            for d in (self.lib, self.plugins)
        )


def pom_stamp() -> str:
    """The sha256 of scripts/neo4j/pom.xml: install.sh writes it to lib/.installed once done."""
    return hashlib.sha256((SCRIPTS_DIR / "pom.xml").read_bytes()).hexdigest()
