"""The examples in the package's docstrings run and print what they say (no database).

Examples that need a live database or a trained model are marked `# doctest: +SKIP` in place; every
other example of every module runs here, so a docstring cannot drift from the code it documents.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pathrag_gds

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(pathrag_gds.__path__, prefix="pathrag_gds.")
    if m.name != "pathrag_gds.__main__"
)


def test_modules_are_found() -> None:
    assert "pathrag_gds.training.phrasing" in MODULES and "pathrag_gds.scoring_terms" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed"
