"""The project's own template tags."""
