"""The runtime layer platform packages plug into: ``Platform``, ``Format``, ``Probe``, the read and
write contexts, and the registry that finds and looks them up (``registry.py``).

It sits below the platform packages (``interop/formats/<platform>/``) and below ``interop/cardkit/``,
so every layer above may import it and it imports none of them.
"""
