"""What the tests share: the test database (``data``); exact positions, saving them and
reading back what was saved (``games``: ``scenario_session``, ``install``, ``saved_state``);
the real bot's quick settings and database (``e2e``: ``FAST_ENV``, ``db_of``,
``saved_game``); the end-to-end tables and simulated players (``tables``, ``driver``); the
table service without Discord (``service``) and the engine's invariants (``invariants``).

``tests/`` is on pytest's ``pythonpath``, so this is the top-level package ``support``; the
test folders themselves are not packages (no ``__init__.py``), so ``tests/engine``,
``tests/data`` and ``tests/loopback`` never hide the real ``engine``, ``data`` and
``loopback`` packages.
"""
