"""The process: what runs the extensions and what every extension can count on.

The bot (``unobot.UnoBot``: its settings, its database, the extensions it loads by name), the
process's place in a fleet (``fleet``), clicks first (``priority``), the garbage collector's
settings and figures (``collector``), the translation function and the slash commands'
translator (``i18n``, ``translator``). It imports no extension: ``cogs/`` holds those, and
they may use all of this.
"""
