"""What the bot shows, apart from how it posts: Discord message builders (embeds, views, V2
layouts), their text from ``cogs.uno.table.words``. ``table`` (the public table's model and
its two messages), ``lobby`` (the lobby and a tournament's standings), ``hand`` (the private
hand and its questions), ``result`` (a finished game's result), ``faces`` (each card's
application emoji). Builders only: no Discord I/O, no state beyond the faces known; the
outbox and the cogs send what they return."""
