"""The on-disk memory model: formats, slices, slicing rules, strands, catalog, card, config, paths."""
