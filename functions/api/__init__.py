"""The HTTP and WebSocket API (FastAPI; uvicorn locally, Mangum on Lambda)."""
