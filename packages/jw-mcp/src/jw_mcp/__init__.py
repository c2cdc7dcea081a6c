"""jw_mcp."""
