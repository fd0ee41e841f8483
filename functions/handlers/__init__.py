"""Lambda entry points: the API, the WebSocket routes, one module per Step Functions step."""
