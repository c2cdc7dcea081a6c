"""jw_gen."""
