"""A third project that knows nothing of the database site but its inventory (intersphinx)."""

import os

project = "dbkb-notes"
extensions = ["errorkb.domain", "sphinx.ext.intersphinx"]
intersphinx_mapping = {"dbkb": (os.environ["DBKB_HTML"], os.path.join(os.environ["DBKB_HTML"], "objects.inv"))}
