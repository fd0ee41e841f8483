"""The evolution layer: direction.md (portrait and hypotheses), fitness.json, the sub-agents'
playbooks.
"""
