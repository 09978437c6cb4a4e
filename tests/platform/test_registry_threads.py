"""``load_all`` from two threads: the second waits for the whole registry instead of reading a partial one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# A fresh interpreter (the registry loads once per process). Thread A's first platform import is
# held until thread B has asked the registry for a format: B must wait for A and find it.
SCRIPT = textwrap.dedent(
    """
    import importlib, threading
    from interop.platform import registry

    first_imported = threading.Event()
    b_done = threading.Event()
    real = importlib.import_module

    def slow_import(name, *args):
        module = real(name, *args)
        if name.startswith(registry.PLATFORMS_PACKAGE + ".") and not first_imported.is_set():
            first_imported.set()
            b_done.wait(timeout=1.0)  # B finishes meanwhile with the old code; waits on A's lock with the fix
        return module

    registry.importlib.import_module = slow_import
    found = {}

    def a():
        registry.load_all()

    def b():
        first_imported.wait(timeout=10)
        try:
            found["b"] = registry.get_format("lorebook_v3").name
        except KeyError as exc:
            found["b"] = f"missing {exc}"
        b_done.set()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(found["b"], len(registry.all_formats()))
    """
)


def test_a_thread_asking_while_another_loads_gets_the_whole_registry() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    assert out[0] == "lorebook_v3", out
    assert int(out[1]) > 20  # every platform's formats


def test_a_package_looking_a_format_up_while_it_loads_does_not_wait_for_itself() -> None:
    script = textwrap.dedent(
        """
        import importlib
        from interop.platform import registry
        real = importlib.import_module
        def looking_up(name, *args):
            module = real(name, *args)
            registry.all_formats()  # re-entrant: the same thread asks while loading
            return module
        registry.importlib.import_module = looking_up
        print(len(registry.all_formats()))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout) > 20
