#!/usr/bin/env bash
# The test suite, from a fresh machine: set up (with the `train` extra: torch==2.13.0, for the
# fp32 export and the fidelity/training tests), export the fp32 model, lint, type-check, pytest.
# Integration tests use NEO4J_URI when set, else the local Neo4j (started by the test fixture when
# it is not running). Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."

PATHRAG_EXTRAS=dev,server,train bash scripts/setup.sh
.venv/bin/python -m pathrag_gds models export
.venv/bin/ruff check pathrag_gds tests scripts
.venv/bin/mypy pathrag_gds
set +e
.venv/bin/python -m pytest -q "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
