"""An MCP server on the official Python SDK whose hints come through presets of a sibling module.

`python -m hinted.server` (with tests/peers on PYTHONPATH) speaks MCP over stdio. The tool
finder reads these files and the probe reads the wire: the two must agree.
"""
