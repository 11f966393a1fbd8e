"""`db` command and local-server logic on bad input: the machine's Java, no server started.

The CLI runs as a real subprocess (`python -m pathrag_gds db ...`) with its own throw-away Neo4j home
(PATHRAG_NEO4J_HOME) so the shared server of `.neo4j/` is never touched. Every user error must end in
exit 2 and ONE line on stderr, starting with `error:`, without a traceback.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pathrag_testutil import private_server_env, run_cli

from pathrag_gds import localdb
from pathrag_gds.config import Settings
from pathrag_gds.errors import ConfigError, LocalServerError
from pathrag_gds.graph import Graph

pytestmark = pytest.mark.integration


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Environment for a CLI run against a private, empty Neo4j home on free ports."""
    return private_server_env(tmp_path / "neo4j-home")


def db(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_cli("db", *args, env=env, timeout=timeout)


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    err = proc.stderr.strip()
    assert "Traceback" not in err
    assert err.startswith("error: ") and "\n" not in err, err
    return err


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


# --- the CLI -----------------------------------------------------------------------------------------


def test_start_on_a_taken_port_names_the_port(env: dict[str, str], busy_port: int) -> None:
    env["PATHRAG_BOLT_PORT"] = str(busy_port)
    err = one_error_line(db(env, "start"))
    assert f"port {busy_port}" in err and "PATHRAG_BOLT_PORT" in err
    assert not (Path(env["PATHRAG_NEO4J_HOME"]) / "run" / "neo4j.pid").exists()


def test_start_on_a_taken_http_port_names_it(env: dict[str, str], busy_port: int) -> None:
    env["PATHRAG_HTTP_PORT"] = str(busy_port)
    err = one_error_line(db(env, "start"))
    assert f"port {busy_port}" in err and "PATHRAG_HTTP_PORT" in err


def test_start_without_java_says_how_to_get_it(env: dict[str, str], tmp_path: Path) -> None:
    env.pop("JAVA_HOME", None)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env["PATH"] = str(empty)  # sys.executable is absolute: Python still runs, `java` is gone
    err = one_error_line(db(env, "start"))
    assert "Java not found" in err and "JAVA_HOME" in err and "17" in err


def test_start_with_a_wrong_java_home_names_it(env: dict[str, str], tmp_path: Path) -> None:
    env["JAVA_HOME"] = str(tmp_path / "no-jdk-here")
    err = one_error_line(db(env, "start"))
    assert f"JAVA_HOME={tmp_path / 'no-jdk-here'}" in err


def test_status_with_a_wrong_neo4j_uri_names_the_uri(env: dict[str, str]) -> None:
    env["NEO4J_URI"] = "bolt://127.0.0.1:1"
    err = one_error_line(db(env, "status"))
    assert err.startswith("error: Neo4j is not running at bolt://127.0.0.1:1 (NEO4J_URI")
    assert "start that server" in err and "db start" in err and "ServiceUnavailable" not in err


def test_status_with_a_malformed_neo4j_uri(env: dict[str, str]) -> None:
    env["NEO4J_URI"] = "http//nonsense"
    err = one_error_line(db(env, "status"))
    assert "http//nonsense" in err


@pytest.mark.parametrize("action", [("db", "status"), ("query", "Who owns Bob?"), ("serve", "--port", "1")])
def test_an_http_neo4j_uri_names_the_bolt_schemes(env: dict[str, str], action: tuple[str, ...]) -> None:
    """`http://` used to end in a traceback (`No module named 'aiohttp'`, the driver's HTTP API)."""
    env["NEO4J_URI"] = "http://127.0.0.1:7474"
    proc = run_cli(*action, env=env, timeout=120)
    err = one_error_line(proc)
    assert "invalid setting NEO4J_URI: 'http://127.0.0.1:7474' is not a Bolt URI" in err
    for scheme in ("bolt://", "neo4j://", "bolt+s://", "bolt+ssc://", "neo4j+s://", "neo4j+ssc://"):
        assert scheme in err
    assert "aiohttp" not in proc.stderr


def test_connect_refuses_an_http_uri_that_skipped_validation() -> None:
    settings = Settings().model_copy(update={"neo4j_uri": "http://127.0.0.1:7474"})  # no validators run
    with pytest.raises(ConfigError, match=r"NEO4J_URI 'http://127.0.0.1:7474' is not a Bolt URI"):
        Graph.connect(settings)


def test_status_when_the_local_server_is_not_running(env: dict[str, str]) -> None:
    """Nothing listens on the private home's free Bolt port: not running, and how to start it."""
    err = one_error_line(db(env, "status"))
    uri = f"bolt://127.0.0.1:{env['PATHRAG_BOLT_PORT']}"
    assert err == f"error: Neo4j is not running at {uri}: start it with `python -m pathrag_gds db start`"


def test_start_and_stop_with_neo4j_uri_do_nothing(env: dict[str, str]) -> None:
    env["NEO4J_URI"] = "bolt://127.0.0.1:1"
    for action, word in (("start", "nothing to start"), ("stop", "nothing to stop")):
        proc = db(env, action)
        assert proc.returncode == 0, proc.stderr
        assert "NEO4J_URI is set" in proc.stdout and word in proc.stdout
    assert not Path(env["PATHRAG_NEO4J_HOME"]).exists()


def test_stop_when_nothing_runs_exits_0(env: dict[str, str]) -> None:
    proc = db(env, "stop")
    assert proc.returncode == 0, proc.stderr
    assert "not running" in proc.stdout and "nothing to stop" in proc.stdout


def test_a_bad_memory_setting_is_one_line(env: dict[str, str]) -> None:
    env["PATHRAG_HEAP"] = "lots"
    err = one_error_line(db(env, "start"))
    assert "PATHRAG_HEAP" in err


# --- pure logic --------------------------------------------------------------------------------------


def test_find_java_without_java() -> None:
    with pytest.raises(LocalServerError, match="Java not found"):
        localdb.find_java({"PATH": ""})


def test_find_java_reports_the_version() -> None:
    java, major = localdb.find_java()
    assert java.name == "java" and major >= 17


def test_config_binds_localhost_and_keeps_apoc_settings_out_of_neo4j_conf(tmp_path: Path) -> None:
    s = Settings.from_env({}, neo4j_home=tmp_path, bolt_port=17687, http_port=0, heap="1g", pagecache="256m")
    conf = localdb.neo4j_conf(s)
    assert "server.bolt.listen_address=127.0.0.1:17687" in conf
    assert "server.default_listen_address=127.0.0.1" in conf
    assert "server.http.enabled=false" in conf
    assert "dbms.security.procedures.unrestricted=apoc.*,gds.*" in conf
    assert "dbms.security.auth_enabled=true" in conf
    assert "server.memory.pagecache.size=256m" in conf
    settings_lines = [line for line in conf.splitlines() if line and not line.startswith("#")]
    assert not [line for line in settings_lines if line.startswith("apoc.")]
    assert "apoc.export.file.enabled=false" in localdb.APOC_CONF


def test_java_command_has_the_official_flags_and_plugins_on_the_classpath(tmp_path: Path) -> None:
    s = Settings.from_env({}, neo4j_home=tmp_path, heap="1g")
    cmd = localdb.java_command(s, Path("/usr/bin/java"))
    for flag in (
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "-Dio.netty.tryReflectionSetAccessible=true",
        "-Xms1g",
        "-Xmx1g",
    ):
        assert flag in cmd
    home = tmp_path.resolve()
    assert cmd[cmd.index("-cp") + 1] == f"{home}/plugins/*:{home}/conf/*:{home}/lib/*"
    assert cmd[-3:] == [localdb.MAIN_CLASS, f"--home-dir={home}", f"--config-dir={home}/conf"]


def test_running_pid_ignores_a_stale_pid_file(tmp_path: Path) -> None:
    s = Settings.from_env({}, neo4j_home=tmp_path)
    (tmp_path / "run").mkdir()
    pid_file = tmp_path / "run" / "neo4j.pid"
    pid_file.write_text(f"{os.getpid()}\n")  # alive, but not a Neo4j of this home
    assert localdb.running_pid(s) is None
    assert not pid_file.exists()


def test_password_starting_with_a_dash_is_refused_clearly(tmp_path: Path) -> None:
    settings = Settings.from_env({}, neo4j_home=tmp_path, neo4j_password="-looks-like-an-option")
    with pytest.raises(localdb.LocalServerError, match="starts with '-'"):
        localdb.ensure_password(settings, Path("java"))
