"""A second errorkb site, in another domain: the errors of a database server, by SQLSTATE code.

It shares nothing with the accelerator site but the engine: its own fields (the SQLSTATE
class, the severity, the release that introduced a message), its own sections, and its own
name for the section that holds the fixes.
"""

project = "dbkb"
extensions = ["errorkb"]
exclude_patterns = ["_build"]
html_theme = "alabaster"

errorkb_fields = [
    {"name": "sqlstate_class", "label": "SQLSTATE class", "slug": "class", "required": True,
     "values": {"23": "23: integrity constraint violation", "40": "40: transaction rollback",
                "42": "42: syntax error or access rule violation", "53": "53: insufficient resources"},
     "badge": "primary", "column": True, "filter": True, "index": True},
    {"name": "severity", "label": "Severity", "required": True,
     "values": {"error": "ERROR", "fatal": "FATAL", "panic": "PANIC"},
     "badge": "danger", "column": True, "filter": True, "index": True},
    {"name": "clients", "label": "Client", "many": True, "open": True,
     "values": {"psql": "psql", "psycopg": "psycopg", "jdbc": "JDBC"}, "badge": "secondary",
     "filter": True, "variants": True},
    {"name": "since", "label": "Since release", "badge": "plain"},
]
errorkb_sections = ["Meaning", "Resolution"]
errorkb_fixes_section = "Resolution"
errorkb_source_labels = {"server": "Server", "storage": "Storage", "sql": "SQL"}
