"""jw_eval."""
