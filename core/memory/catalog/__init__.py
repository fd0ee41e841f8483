"""The derived indexes over the slices: the timeline catalog (month files, pending, shas), monthly
indexes, timeline.md, strands, the recent view, weave and rebuild.
"""
