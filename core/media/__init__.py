"""Media the user brings into a turn: image attachments."""
