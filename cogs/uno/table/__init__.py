"""The tables: every lobby and game of this process and the one way each changes, with no
Discord in it (ids, not Discord objects). The cogs use ``service.TableService`` (the verbs),
``contracts`` (who asks, how it says no, what it needs) and ``session`` (what is saved);
``tables`` is the change pipeline under them, ``lobbies``, ``tournaments`` and ``autoplay``
change tables only through it, ``results`` records what a finished game leaves behind and
``scheduler`` runs every timer. ``words`` is what they say: every text of the game, pure."""
