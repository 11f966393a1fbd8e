"""Run one `python -m pathrag_gds` command with some intent rules switched off: what each rule earns.

Each rule of :mod:`pathrag_gds.intent.rules` that `infer_intent` applies can be passed over (the
draft goes on as the rules before it left it), so a suite run with and without it, same models,
measures the rule alone. Nothing is written: the command runs in this process with the rules
patched, and prints what it prints.

Example:
    python scripts/intent_ablation.py --off same_type_rule,relation_end_rule -- \\
        eval bob --questions pathrag_gds/datasets/data/harbour_eval.yaml --set heldout --json
    python scripts/intent_ablation.py --list
"""

from __future__ import annotations

import argparse
import runpy
import sys
from typing import Any

from pathrag_gds.intent import infer

#: The rules `infer_intent` applies, by name (`infer.py` imports each by name; the test checks it).
RULES = tuple(name for name in dir(infer) if name.endswith("_rule"))


def switch_off(names: list[str]) -> None:
    """Make each named rule pass the draft on unchanged."""
    unknown = sorted(set(names) - set(RULES))
    if unknown:
        raise SystemExit(f"no such rule: {', '.join(unknown)}; the rules are: {', '.join(RULES)}")
    for name in names:
        setattr(infer, name, _passed_over(name))


def _passed_over(name: str) -> Any:
    if name == "unknown_rule":
        return lambda d: d
    return lambda _r, d, *_args: d


def main(argv: list[str]) -> None:
    """Parse `--off a,b -- <command>` and run the command with those rules off."""
    own, command = _split(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--off", default="", help="comma-separated rule names to pass over")
    parser.add_argument("--list", action="store_true", help="print the rules and exit")
    args = parser.parse_args(own)
    if args.list:
        print("\n".join(RULES))
        return
    if not command:
        parser.error("give the command after `--`, e.g. -- eval bob --questions ...")
    switch_off([n for n in args.off.split(",") if n])
    sys.argv = ["pathrag_gds", *command]
    runpy.run_module("pathrag_gds", run_name="__main__")


def _split(argv: list[str]) -> tuple[list[str], list[str]]:
    """The script's own arguments, then the command's (after `--`)."""
    if "--" not in argv:
        return argv, []
    i = argv.index("--")
    return argv[:i], argv[i + 1 :]


if __name__ == "__main__":
    main(sys.argv[1:])
