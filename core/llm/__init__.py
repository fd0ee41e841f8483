"""Model clients: one protocol, adapters over the official anthropic and openai SDKs."""
