"""Jobs that run outside a turn: the scheduled maintenance pass, evolve-now, and evolve-now's
background runs.

They build on the turn's pieces (its deps, steps and evolution passes in `core/turn/`) but are no
turn: no message, no slice of their own. Models come from `ModelRegistry.resolve_for(config)`.
Nothing in `core/turn` imports this package (tests/unit/test_layers.py).
"""
