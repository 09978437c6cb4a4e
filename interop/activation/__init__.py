"""The activation runtime: what every platform's activation profile is built from.

The ``Profile`` base (``profile``), the chat a scan reads (``chat``), results and request-log
records (``result``), per-chat state (``state``), token counters (``tokenizers``), JavaScript
semantics the apps' engines rely on (``jsvalue``, ``jsregex``, ``jscase``, ``jssort``) and the
key index (``keyindex``). It sits below the platform packages, which hold the profiles
(``Platform.profile``), and imports neither them nor the registry; ``interop.engine`` above
drives the profiles (evaluate, simulate, compare, side by side).
"""
