"""The test suite.

Bytecode caching is turned back on for the suite's own run even where
``PYTHONDONTWRITEBYTECODE`` is set (as on the machines this project is built
on): otherwise each of the run's processes (pytest-xdist's two workers and
their controller) compiles and assertion-rewrites every test and service
module again, which made collection several times slower (README,
"Development"). The caches land in the ignored ``__pycache__`` folders.
"""

import sys

sys.dont_write_bytecode = False
