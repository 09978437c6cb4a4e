"""``python -m interop``: the same command line as the ``interop`` script."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    main()
