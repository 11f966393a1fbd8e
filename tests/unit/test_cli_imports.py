"""A CLI process imports the neo4j driver without pandas and pyarrow, and can still import them.

Run in a fresh interpreter: the test process imported the driver long ago.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHECK = textwrap.dedent(
    """
    import sys
    from pathrag_gds.cli import import_driver_without_dataframes
    import_driver_without_dataframes()
    import neo4j._optional_deps as deps
    assert "neo4j" in sys.modules
    assert deps.pd is None and deps.pa is None, "the driver should not hold pandas or pyarrow"
    assert "pandas" not in sys.modules and "pyarrow" not in sys.modules
    import pandas, pyarrow  # graphdatascience's own imports still work
    import neo4j
    print("ok", neo4j.Result.to_df.__name__)
    """
)


def test_the_cli_imports_the_driver_without_dataframe_libraries() -> None:
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok to_df")


def test_nothing_changes_when_pandas_is_imported_already() -> None:
    code = "import pandas\n" + CHECK.replace("deps.pd is None and deps.pa is None", "deps.pd is not None")
    code = code.replace('assert "pandas" not in sys.modules and "pyarrow" not in sys.modules', "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
