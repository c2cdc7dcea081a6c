"""jw_cli."""
