"""The user card: its model and parser, validation rules, edits by the user, history, snapshots, legacy
formats and the identity it names.
"""
