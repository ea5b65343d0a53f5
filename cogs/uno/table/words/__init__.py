"""The bot's words: everything it says, as text in a language (pure: no Discord, no I/O).
The tables write their announcements with them, the builders of ``cogs.uno.show`` every
message's text. Public renderings use only ``Event.public_dict()`` facts and the public
view, never a hand. Import from the file that answers the question:

- ``cards``: what is this card, colour, kind or edition called? ("🟥 red 7" for people,
  "red 7" in a sentence, "3 cards", a hand as text with the cards' faces, "Classic UNO")
- ``events``: what is the channel told of a move? (one sentence function per engine event,
  found by the event's type; the events said nothing of on purpose; which lines stay longer)
- ``standings``: who leads? (a round's score table, partners' teams and their totals, a
  rotating-partners match's hands and standings)
- ``game``: what is the table doing? (which way play goes, whose turn and what they decide,
  who is a computer player, the settings, an engine refusal)
"""
