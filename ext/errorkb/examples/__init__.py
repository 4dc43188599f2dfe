"""Examples that run: the ``snippet`` directive, its sandboxed runner, result cache and builder.

A snippet on a record's page, in Python, bash or a language the site declares, claims to
reproduce the error, to fix it, or to show a session.  After every page is read, the snippets
run (each in a sandbox, in parallel, results cached under the doctree folder), each page shows
a badge: passed, failed or not run, and each snippet that failed or was refused is a warning at
its line.  ``sphinx-build -b examples`` runs them all and fails on any failure; the pytest
plugin in :mod:`.pytest_plugin` collects the same snippets as test items.

The engine (:mod:`.spec`, :mod:`.extract`, :mod:`.judge`, :mod:`.sandbox`, :mod:`.runner` ...)
imports nothing from Sphinx; :mod:`.build`, :mod:`.directive`, :mod:`.render` and
:mod:`.builder` are the build's side.
"""
