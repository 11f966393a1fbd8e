#!/usr/bin/env bash
# The test suite, from a fresh machine: set up (with the `train` extra: torch==2.13.0, for the
# fidelity/training tests, which export the fp32 model themselves and check the committed int8 is
# reproduced, `graphrag`: neo4j-graphrag for its Retriever adapter, `langchain`: langchain-core for
# its retriever, `mcp`: the MCP SDK for the MCP server), install Chromium for the browser test, then
# lint, type-check and pytest.
# Every step runs even when an earlier check failed; the exit status is non-zero if any did.
# Integration tests use NEO4J_URI when set, else the local Neo4j (started by the test fixture when
# it is not running). Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
# PATHRAG_SKIP_SETUP=1 skips the set-up step (CI has just run it with the same extras).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${PATHRAG_SKIP_SETUP:-0}" != "1" ]; then
  PATHRAG_EXTRAS=dev,server,train,graphrag,langchain,mcp bash scripts/setup.sh || exit 1
fi

# Chromium and its driver for the explorer's browser test, from Debian's packages. Where apt-get is
# missing or we are not root, the browser test is skipped and says how to install them.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
    echo "[test] installing chromium and chromium-driver (apt)"
    { apt-get install -y -qq chromium chromium-driver || { apt-get update -qq &&
        apt-get install -y -qq chromium chromium-driver; }; } >/dev/null ||
      echo "[test] could not install chromium: the browser test will be skipped" >&2
  else
    echo "[test] no apt-get as root: install chromium and chromium-driver, or the browser test is skipped" >&2
  fi
fi

failed=()
.venv/bin/ruff check pathrag_gds tests scripts || failed+=(ruff)
.venv/bin/mypy pathrag_gds || failed+=(mypy)
# the slowest tests are listed after each run: CI has 20 minutes in all
.venv/bin/python -m pytest -q --durations=15 "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  failed+=(pytest-no-tests)
elif [ "$rc" -ne 0 ]; then
  failed+=(pytest)
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all checks passed"
