"""The composition root: settings in, one container per entrypoint out.

`backends` builds each backend (storage, run store, turn wiring, security, web) with one function
apiece; `local` the local server's and the CLI's containers, `aws` each Lambda's, `mcp` the MCP
server's; `demo` the demo's personas and visitors behind one resolver. No other module constructs
a storage backend or a run store (tests/unit/test_layers.py).
"""
