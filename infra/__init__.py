"""CDK constructs and the stack (never imported at run time)."""
