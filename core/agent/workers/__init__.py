"""The worker-model helpers: one-shot calls and small sub-agents on the cheaper model.

`analyzer.py` (the turn analyzer) with `analysis.py` (its answer's shape), `marker.py` (a closed
slice's focus and summary), `consolidator.py` (merging strands) and `search_agent.py` (the web
search helper's cited answer). The main agent and the evolution passes live beside this package.
"""
