"""The matching record under an uncaught Python exception: ``python -m errorkb.hook SCRIPT``,
``errorkb.hook.install()`` in a ``sitecustomize.py``.  The public name of :mod:`errorkb.tools.hook`."""

import sys

from .tools import hook as _hook

if __name__ == "__main__":
    sys.exit(_hook.main())
sys.modules[__name__] = _hook  # ``import errorkb.hook`` gives the module itself
