"""What the tests share: the test database (``data``), positions built exactly and the games
the bot saved (``e2e``), the table service without Discord (``service``), the end-to-end
tables and driver (``tables``, ``driver``) and the engine's invariants (``invariants``).

``tests/`` is on pytest's ``pythonpath``, so this is the top-level package ``support``; the
test folders themselves are not packages (no ``__init__.py``), so ``tests/engine``,
``tests/data`` and ``tests/loopback`` never hide the real ``engine``, ``data`` and
``loopback`` packages.
"""
