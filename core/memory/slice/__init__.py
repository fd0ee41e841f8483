"""A slice and its files: core.md and its turns, agent.md, the appendix, the slicing rules, edits,
flush and retraction.
"""
