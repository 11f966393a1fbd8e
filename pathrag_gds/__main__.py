"""`python -m pathrag_gds ...` entry point."""

from pathrag_gds.cli import main

raise SystemExit(main())
