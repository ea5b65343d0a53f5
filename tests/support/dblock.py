"""Another program's write lock on a SQLite file (an admin's sqlite3 shell, a backup, a
stuck migration), held by the test process through a connection of its own."""

from __future__ import annotations

import sqlite3


class DbLock:
    """Holds the file's write lock from the moment it is made until :meth:`release`
    (``IMMEDIATE``: readers go on, writers wait; ``EXCLUSIVE``: readers wait too)."""

    def __init__(self, path: str, mode: str = "EXCLUSIVE") -> None:
        self.conn = sqlite3.connect(path, timeout=0, isolation_level=None)
        self.conn.execute(f"BEGIN {mode}")
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.conn.execute("COMMIT")
            self.conn.close()
