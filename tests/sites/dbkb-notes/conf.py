"""A third project that knows nothing of the database site but its inventory (intersphinx).

``inventory.txt``, written beside this file, holds the folder of the built database site.
"""

from pathlib import Path

project = "dbkb-notes"
extensions = ["errorkb.site.domain", "sphinx.ext.intersphinx"]
_site = (Path(__file__).parent / "inventory.txt").read_text(encoding="utf-8").strip()
intersphinx_mapping = {"dbkb": (_site, f"{_site}/objects.inv")}
