"""The agent: prompt assembly, tools, analyzer, recall scan, the agent loop, card evolution."""
