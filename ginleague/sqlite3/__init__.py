"""Django's SQLite backend, each statement's placeholders converted once (see base.py)."""
