"""What the bot shows, apart from how it posts: ``words`` (every public and private text,
pure), ``table`` (the public table's model and its two messages), ``lobby`` (the lobby and
a tournament's standings), ``hand`` (the private hand and its questions). Builders only:
no Discord I/O, no state; the outbox and the cogs send what they return."""
