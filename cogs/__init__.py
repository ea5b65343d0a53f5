"""Discord extensions: they translate interactions into engine moves and events into messages."""
