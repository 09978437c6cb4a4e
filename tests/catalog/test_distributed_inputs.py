"""A ``--broker`` worker's batch set-up hashes the batch's files: a FIFO or /dev/zero named in the run must be
passed over at once (process_file then records why), not block the worker or read without end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from interop.catalog.records import sha256_hex
from tests.hostile.cases import special_files

from .samples import make_folder

REPO = Path(__file__).resolve().parents[2]

# in a subprocess: before the fix the FIFO blocked open() forever, so a hang fails the test by timeout
BATCH_CONFIG = """
import json, sys
from pathlib import Path
from interop.catalog.database import open_catalog
from interop.catalog.distributed import batch_config
from interop.catalog.pipeline import RunConfig
from interop.catalog.migrate_run import migrate

db, out, card, *specials = sys.argv[1:]
catalog = open_catalog(db)
migrate(catalog, [Path(card)], ("ccv3",), Path(out))  # recorded: a later batch finds it done
config = RunConfig(targets=("ccv3",), out_dir=Path(out), data_dir=catalog.data_dir)
print(json.dumps(sorted(batch_config(catalog, config, [*specials, card]).done)))
"""


def test_batch_config_passes_over_special_files_at_once(tmp_path: Path) -> None:
    (card, *_) = make_folder(tmp_path / "src", 1)
    specials = [str(s.path) for s in special_files(tmp_path / "specials")]
    db = f"sqlite:///{tmp_path / 'catalog.sqlite'}"
    proc = subprocess.run(
        [sys.executable, "-c", BATCH_CONFIG, db, str(tmp_path / "out"), str(card), *specials],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == [sha256_hex(card.read_bytes())]
