"""The Lambda dependency layer, built without Docker (python -m layers.build)."""
