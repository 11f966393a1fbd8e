"""Java for the local server: finding it, and installing the jars it runs (or linking the main home's)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from pathrag_gds.config import Settings
from pathrag_gds.errors import LocalServerError
from pathrag_gds.localdb.home import DEFAULT_HOME, MIN_JAVA, SCRIPTS_DIR, Paths, Printer


def find_java(env: dict[str, str] | None = None) -> tuple[Path, int]:
    """The `java` to run Neo4j with and its major version: `$JAVA_HOME/bin/java`, else `java` on PATH.

    Raises:
        LocalServerError: no java, or one older than 17.
    """
    env = dict(os.environ) if env is None else env
    java_home = env.get("JAVA_HOME")
    if java_home:
        java = Path(java_home) / "bin" / "java"
        if not os.access(java, os.X_OK):
            raise LocalServerError(
                f"JAVA_HOME={java_home} has no bin/java: point JAVA_HOME at a Java 17 or 21 install, "
                "or unset it"
            )
    else:
        found = shutil.which("java", path=env.get("PATH", ""))
        if not found:
            raise LocalServerError(
                "Java not found (JAVA_HOME is unset and `java` is not on PATH): install Java 17 or 21 "
                "(e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
            )
        java = Path(found)
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LocalServerError(f"cannot run {java} -version ({exc}): install Java 17 or 21") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        raise LocalServerError(f"cannot tell the version of {java}: install Java 17 or 21 or set JAVA_HOME")
    major = int(match.group(1))
    if major == 1 and match.group(2):  # 1.8 -> 8
        major = int(match.group(2))
    if major < MIN_JAVA:
        raise LocalServerError(
            f"{java} is Java {major}; Neo4j 5.26 needs Java 17 or 21: install one and set JAVA_HOME to it"
        )
    return java, major


def ensure_installed(settings: Settings, out: Printer = print) -> None:
    """Put the server's jars into the home unless they are there already.

    A home other than the default one links `lib/` and `plugins/` to the default home's folders when
    those hold the current jars (tests use throw-away homes; nothing is fetched twice). Otherwise
    `scripts/neo4j/install.sh` runs Maven (its output goes to the terminal).

    Raises:
        LocalServerError: Maven is missing or failed.
    """
    paths = Paths(settings.neo4j_home)
    if paths.installed():
        return
    main = Paths(DEFAULT_HOME)
    if paths.home.resolve() != main.home.resolve() and main.installed():
        paths.home.mkdir(parents=True, exist_ok=True)
        for name in ("lib", "plugins"):
            target = paths.home / name
            if target.is_symlink() or target.is_file():
                target.unlink()
            elif target.is_dir():
                shutil.rmtree(target)
            target.symlink_to(main.home / name, target_is_directory=True)
        out(f"linked the Neo4j jars of {main.home} into {paths.home}")
        return
    script = SCRIPTS_DIR / "install.sh"
    if not script.is_file():
        raise LocalServerError(
            f"{script} is missing: reinstall pathrag_gds (its wheel carries it) or run from a checkout, "
            "or set NEO4J_URI to your own Neo4j"
        )
    if shutil.which("mvn") is None:
        raise LocalServerError(
            f"the Neo4j jars are not installed in {paths.home} and Maven (mvn) is not on PATH: "
            "install Maven 3.6+ (e.g. apt-get install maven), or set NEO4J_URI to your own Neo4j"
        )
    proc = subprocess.run(["bash", str(script), str(paths.home)], check=False)
    if proc.returncode != 0 or not paths.installed():
        raise LocalServerError(
            f"fetching the Neo4j jars failed (exit {proc.returncode}, see Maven's output above): check the "
            f"network to Maven Central, then rerun `bash {script}`"
        )
