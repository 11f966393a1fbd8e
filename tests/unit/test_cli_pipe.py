"""A command whose reader stops early (`... | head`, `... | grep -q`) ends quietly with status 141.

Run in a fresh interpreter with a real pipe whose read end is closed before the command writes.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

#: A CLI whose one command prints far more than a pipe holds.
LOUD = textwrap.dedent(
    """
    import argparse, sys
    from pathrag_gds import cli

    def build_parser():
        parser = argparse.ArgumentParser()
        parser.add_argument("-v", "--verbose", action="store_true")
        parser.set_defaults(command="loud", func=lambda args: print("line\\n" * 200_000) or 0)
        return parser

    cli.build_parser = build_parser
    sys.stdin.read()  # wait until the reader has gone
    raise SystemExit(cli.main([]))
    """
)


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", LOUD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    proc.stdout.close()
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err
