"""Ship the top-level mappings/ and alembic/ folders inside the wheel.

They live at the repository root (one obvious home, edited by people adding a
platform) and are copied into ``interop/_data`` at build time so that a plain
non-editable ``pip install .`` carries them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
DATA_DIRS = ("mappings", "alembic")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "interop" / "_data"
        for name in DATA_DIRS:
            src = ROOT / name
            if src.is_dir():
                dest = target / name
                if dest.exists():
                    shutil.rmtree(dest)
                shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithData})
