"""The MCP server (docs/MCP.md): over stdio (`previously mcp`) and streamable HTTP (`/mcp`)."""
