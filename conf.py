"""Sphinx configuration of the errorkb site."""

import os

project = "errorkb"
html_title = "errorkb: accelerator memory errors"
copyright = "the errorkb authors"

extensions = ["errorkb", "sphinx_design", "sphinx_copybutton"]

# The site is the landing page, the guides and the records; nothing else at the root.
root_doc = "index"
include_patterns = ["index.md", "docs/**", "errors/**"]
exclude_patterns = ["_build", ".venv"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "furo"
# The navigation lists the sources (each leads to its index page) and the guides, not every
# record, so that a page's size does not grow with the catalogue.
html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "sidebar/scroll-start.html",
                        "errorkb-sources.html", "sidebar/navigation.html", "sidebar/scroll-end.html"]}
html_static_path: list[str] = []
copybutton_exclude = ".linenos, .gp, .go"

# Absolute URLs (sitemap.xml, canonical links, Open Graph) need the public address of the site.
html_baseurl = os.environ.get("READTHEDOCS_CANONICAL_URL", "")

# The site's own words where the extension speaks of the site.
errorkb_llms_summary = (
    "A knowledge base of the memory errors that accelerators raise (XLA on TPUs, AWS Neuron, PyTorch, "
    "CUDA, TensorFlow, the host). Each error page gives the exact messages, the causes, the fixes to "
    "try in order, and how to tell which cause applies."
)
errorkb_opensearch_description = "Find an accelerator memory error by its message"
errorkb_paste_placeholder = "RESOURCE_EXHAUSTED: ... Used 49.34G of 32.00G hbm ..."
