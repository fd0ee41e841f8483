"""The evolution layer's files: direction.md (portrait and hypotheses), fitness.json, the sub-agents'
playbooks — their codecs, paths, checks and undo.

The direction pass that writes them lives in `core/agent/evolution/`; `core/turn/evolving.py` decides
when it runs.
"""
