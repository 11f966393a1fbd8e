"""Write docs/settings.md: the settings files and the table of every variable (`pathrag_gds.settings_doc`).

Run after adding or changing a setting: `python scripts/settings_doc.py` (a test checks the page).
"""

from __future__ import annotations

from pathrag_gds.config import ROOT_DIR
from pathrag_gds.settings_doc import settings_page


def main() -> None:
    """Write the page."""
    path = ROOT_DIR / "docs" / "settings.md"
    path.write_text(settings_page(), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
