"""When the normal player challenges a Wild Draw Four (RULES.md R-WD4-CHALLENGE), in numbers
only: the chance that it is a bluff (``guilt_odds``) and whether a challenge is then worth
more than accepting (``challenge_pays``). The normal player (engine/players/heuristic.py)
decides by them, and so do the playouts of a search (engine/players/playouts.py), whose
victims answer a Wild Draw Four as the normal player would: a bluff there is not free.
"""

from __future__ import annotations

BLUFF_GUILTY_PRIOR = 0.2
"""Pseudo-count of bluffs caught that every opponent starts with (see ``guilt_odds``)."""
BLUFF_INNOCENT_PRIOR = 1.8
"""Pseudo-count of innocent Wild Draw Fours every opponent starts with: a prior of one
challenge in ten finding a bluff, which the table's record then corrects."""
TYPICAL_COULD_BLUFF = 0.85
"""How likely a player facing a challenge typically held a card of the colour in play
(what the public challenge record is read against)."""


def guilt_odds(unseen: int, same: int, held: int, challenged: int, guilty: int) -> float:
    """Chance that a Wild Draw Four is a bluff: ``unseen`` cards the asker has not seen,
    ``same`` of them of the colour in play, a hand of ``held`` cards, and the player's
    public record (``challenged`` Wild Draw Fours, ``guilty`` of them).

    Two things count. Could they have bluffed: the chance that a hand of their size, drawn
    from the cards the asker has not seen, holds the colour in play. Do they bluff: their
    record, since a bluff comes to light only when challenged; the share of their
    challenged Wild Draw Fours that were guilty (with a prior of one in ten) is turned into
    how much likelier they are to play it when it is a bluff than when it is legal. Bayes
    combines the two."""
    if unseen <= 0 or held <= 0:
        return 0.0
    # Drawing ``held`` cards without replacement, none of the colour in play.
    none = 1.0
    for i in range(held):
        if unseen - i <= 0:
            break
        none *= max(0.0, (unseen - same - i) / (unseen - i))
    could_bluff = 1.0 - none
    caught = guilty + BLUFF_GUILTY_PRIOR
    innocent = challenged - guilty + BLUFF_INNOCENT_PRIOR
    c = TYPICAL_COULD_BLUFF
    # guilty share r = c*k / (c*k + 1 - c)  =>  k = r (1 - c) / (c (1 - r))
    propensity = caught * (1 - c) / (innocent * c)
    bluffed = could_bluff * propensity
    honest = 1.0 - could_bluff
    return bluffed / (bluffed + honest) if bluffed + honest > 0 else 0.0


def challenge_pays(guilt: float, players: int) -> bool:
    """Whether challenging is worth more than accepting, in cards, when the Wild Draw Four
    is a bluff with chance ``guilt`` at a table of ``players``.

    Against accepting (4 cards, turn lost): a guilty challenge saves the 4 cards and the
    turn (about one card more) and gives the bluffer 4, which counts in full between two
    players and half at a bigger table; an innocent one costs 2 cards more (6)."""
    rival = 1.0 if players == 2 else 0.5
    gain, loss = 4 + 1 + 4 * rival, 2
    return guilt * gain > (1 - guilt) * loss
