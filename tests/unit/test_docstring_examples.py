"""The examples in the package's docstrings run and print what they say (no database).

Examples that need a live database or a trained model are marked `# doctest: +SKIP` in place; every
other example of every module runs here, so a docstring cannot drift from the code it documents.
Modules without a runnable example are not listed (a test that runs nothing proves nothing).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pathrag_gds

FINDER = doctest.DocTestFinder()


def _runnable_examples(name: str) -> int:
    """How many examples of the module would run (skipped ones do not count)."""
    tests = FINDER.find(importlib.import_module(name))
    return sum(1 for t in tests for ex in t.examples if not ex.options.get(doctest.SKIP))


MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(pathrag_gds.__path__, prefix="pathrag_gds.")
    if m.name != "pathrag_gds.__main__"
)
WITH_EXAMPLES = [name for name in MODULES if _runnable_examples(name)]


def test_the_core_modules_have_runnable_examples() -> None:
    core = {
        "pathrag_gds.beam",
        "pathrag_gds.config",
        "pathrag_gds.intent.rules",
        "pathrag_gds.intent.text",
        "pathrag_gds.scoring.base",
        "pathrag_gds.scoring_terms",
        "pathrag_gds.search.ranking",
        "pathrag_gds.serialize",
        "pathrag_gds.training.phrasing",
    }
    assert core <= set(WITH_EXAMPLES), sorted(core - set(WITH_EXAMPLES))


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False, report=True)
    assert result.attempted > 0, f"{name} ran no example"
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed"
