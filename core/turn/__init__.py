"""The turn as named, idempotent steps, and the in-process runner."""
