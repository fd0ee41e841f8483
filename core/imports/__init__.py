"""Bringing conversations from other tools onto the timeline: readers per format, one writer."""
