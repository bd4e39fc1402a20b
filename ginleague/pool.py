"""The PostgreSQL connection pool's check: a dead connection found means the others are dead too."""

from __future__ import annotations

from psycopg_pool import ConnectionPool


def check_pooled_connection(connection) -> None:
    """Lend ``connection`` only if it still works (psycopg's own check); when it does not, weed out
    every idle connection of its pool at once before saying so.

    After a failover or a database restart every idle connection is dead. The pool tries them one
    by one when lending, and waits between tries (0, 1, 2, 4... s), so with eight idle connections the
    first request after the restart waited past the pool's 10 s and failed. Checking the whole pool
    here replaces all of them in one go: the pool's next try is a new connection, lent at once.
    """
    try:
        ConnectionPool.check_connection(connection)
    except Exception:
        pool = getattr(connection, "_pool", None)  # set by the pool on the connection it is lending
        if isinstance(pool, ConnectionPool):
            pool.check()  # checks and replaces the idle ones; this one is still the caller's
        raise
