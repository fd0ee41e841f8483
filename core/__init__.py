"""Previously's domain: pure Python, no AWS / web / CDK imports (enforced by tests/unit/test_layers.py)."""
