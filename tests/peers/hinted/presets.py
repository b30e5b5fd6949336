"""Presets the server's tools share."""

from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADDITIVE = {"readOnlyHint": False, "destructiveHint": False}
