"""The command line's exit codes (the same list heads ``interop/cli/__init__.py``).

0 success; 1 a check failed (validation errors, a round trip that is not identical,
``--strict`` fidelity); 2 usage error; 3 an input could not be read (bad, truncated,
oversized, unsafe); 4 internal error (a bug: rerun with ``--debug`` for the traceback);
5 an optional extra is not installed (the message names ``pip install 'interop-cards[EXTRA]'``).
Their own module: the group and every command use them, and the group imports the commands.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_INTERNAL = 4
EXIT_MISSING_EXTRA = 5
