"""What a routing URI (`neo4j://`, a cluster or Aura) needs of `Graph`, checked without a cluster
(issue 55): every session shares one bookmark manager (so reads wait for the writes before them),
and every statement run through `Graph.read` is read-only (a reader of a cluster refuses writes).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from neo4j import GraphDatabase

from pathrag_gds.config import CYPHER_DIR, ROOT_DIR, Settings
from pathrag_gds.graph import Graph

#: clauses and procedures that write (or change the schema)
WRITE = re.compile(
    r"(?<![.\w])(CREATE|MERGE|SET|DELETE|REMOVE|DETACH|DROP|FOREACH|LOAD\s+CSV)\b"
    r"|\bCALL\s+(db\.create|db\.index\.vector\.createNodeIndex|apoc\.(create|merge|refactor|periodic|do|"
    r"cypher\.do|nodes\.delete|atomic|trigger)|gds\.[\w.]*\.(write|mutate)\b|gds\.graph\.(project|drop))",
    re.IGNORECASE,
)


def _code(text: str) -> str:
    """The Cypher without comments and string literals (a word in them writes nothing)."""
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", text)


def read_statement_names() -> set[str]:
    """The names of every statement the package runs through `.read(...)` (f-strings as patterns)."""
    names: set[str] = set()
    files = sorted(p.stem for p in CYPHER_DIR.glob("*.cypher"))
    for path in (ROOT_DIR / "pathrag_gds").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr != "read" or not node.args:
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.add(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                pattern = "".join(
                    re.escape(v.value) if isinstance(v, ast.Constant) else r"\w+" for v in arg.values
                )
                names.update(f for f in files if re.fullmatch(pattern, f))
    return {n for n in names if (CYPHER_DIR / f"{n}.cypher").is_file()}


def test_every_statement_run_as_a_read_is_read_only() -> None:
    names = read_statement_names()
    assert {"seeds", "expand", "api_session_count", "version_gds"} <= names, sorted(names)
    writing = {
        n: m.group(0)
        for n in sorted(names)
        if (m := WRITE.search(_code((CYPHER_DIR / f"{n}.cypher").read_text())))
    }
    assert not writing, (
        f"statements run through Graph.read that write (a cluster's reader refuses them): {writing}"
    )


def test_the_write_check_sees_writes() -> None:
    assert WRITE.search(_code("MATCH (n) SET n.x = 1"))
    assert WRITE.search(_code("CALL gds.pageRank.write('g', {})"))
    assert not WRITE.search(_code("MATCH (n) // SET n.x\nRETURN apoc.coll.toSet([1]) AS s, 'DELETE' AS w"))
    assert not WRITE.search("RETURN apoc.map.merge({}, {}) AS m")


def test_every_session_shares_the_drivers_bookmark_manager() -> None:
    driver = GraphDatabase.driver("neo4j://127.0.0.1:1")  # never connects: sessions are only opened
    opened: list[dict[str, Any]] = []
    real = driver.session

    def spy(**kw: Any) -> Any:
        opened.append(kw)
        return real(**kw)

    driver.session = spy  # type: ignore[method-assign]
    try:
        graph = Graph(driver, Settings())
        graph.session().close()
        graph.session().close()
        manager = driver.execute_query_bookmark_manager
        assert graph.bookmarks is manager
        assert [kw["bookmark_manager"] for kw in opened] == [manager, manager]
    finally:
        driver.close()
