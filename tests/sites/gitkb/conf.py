"""An errorkb site in another domain: Git's error messages.

It shares nothing with the other sites but the engine: its own fields (the command that
prints an error, the kind of problem, the release a message appeared in), its own sections,
codes only where Git prints one (the HTTP status of a remote), and those kept out of titles.
"""

project = "gitkb"
extensions = ["errorkb"]
exclude_patterns = ["_build"]
html_theme = "alabaster"

errorkb_fields = [
    {"name": "command", "label": "Command", "many": True, "required": True,
     "values": {"push": "git push", "pull": "git pull", "fetch": "git fetch", "clone": "git clone",
                "status": "git status"},
     "badge": "primary", "column": True, "filter": True, "index": True},
    {"name": "kind", "label": "Kind of problem", "required": True,
     "values": {"history": "History", "network": "Network", "repository": "Repository", "access": "Access"},
     "badge": "warning", "column": True, "filter": True, "index": True},
    {"name": "since", "label": "Since", "badge": "plain"},
]
errorkb_sections = ["What happened", "What to do"]
errorkb_fixes_section = "What to do"
errorkb_source_labels = {"remote": "Talking to a remote", "local": "The local repository"}
# Most of Git's errors have no code; an HTTP status is not a title.
errorkb_code_in_title = False
errorkb_base_url = "https://gitkb.example.org/"
