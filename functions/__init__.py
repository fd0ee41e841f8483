"""Adapters over core/: the CLI, the FastAPI app, Lambda and Step Functions handlers."""
