"""The private hand: the hand menu and the questions a card still needs (its colour, its
towers, the card to keep, a Victory Lap), and the notes a player is told privately.

No Discord I/O and no state: the cog sends what these return.
"""

from __future__ import annotations

from typing import Any

import discord

from cogs.i18n import Locale, _, ngettext
from cogs.uno._components import (
    ColorButton,
    DrawnButton,
    KeepSelect,
    LapButton,
    OpeningColorButton,
    PageButton,
    PlaySelect,
    TableButton,
    TowerSelect,
    view_of,
)
from cogs.uno._emojis import card_emoji
from cogs.uno.show.table import uno_button
from cogs.uno.show.words import (
    COLOR_EMOJI,
    card_count,
    card_label,
    card_name,
    color_name,
    hand_text,
    pending_text,
)
from cogs.uno.table.session import Session
from engine import Card, Color, Decision, Game, Tower
from engine.events import ChallengeResolved, Drew, Event, InstantUno, LapKept

PAGE_SIZE = 25
Menu = tuple[str, discord.ui.View | None]


def option_label(card: Card, locale: Locale) -> str:
    return f"{card_label(card, locale)} ({card.code})"


def shown_cards(game: Game, pid: str) -> tuple[list[Card], set[Card]]:
    """The cards ``pid``'s hand menu shows (sorted) and those they can play now: their
    hand; during a Victory Lap only the card's player sees one (the hand in front of
    them), everyone else none (their hand lies face down)."""
    if pid not in game.players or game.is_over:
        return [], set()
    lap = game.lap
    if lap is not None and str(lap["player"]) != pid:
        return [], set()
    playable: set[Card] = set()
    if lap is None and game.turn == pid and game.pending is Decision.PLAY:
        playable = set(game.playable_cards(pid))
    return sorted(game.hand(pid)), playable


def hand_menu(session: Session, game: Game, pid: str, locale: Locale, page: int = 0,
              notes: list[str] | None = None) -> Menu:
    """The private hand: the cards, the towers, the top card, and what the player can do."""
    if game.lap is not None and not game.is_over:
        return lap_menu(session, game, pid, locale, notes)
    hand = game.hand(pid)
    gid, serial = session.game_id, session.serial
    lines = list(notes or [])
    if lines:
        lines.append("")
    lines.append(_("**Your hand** ({n}): {cards}", locale, n=card_count(len(hand), locale),
                   cards=hand_text(sorted(hand), locale)))
    towers = game.towers_of(pid)
    if towers:
        lines.append(_("Your towers: {towers}", locale,
                       towers=" ".join(f"`{t.value}`" for t in towers)))
    lines.append(_("Top card: {card}{color}", locale, card=card_label(game.top, locale),
                   color=_(" (colour: {c})", locale, c=color_name(game.color, locale))
                   if game.top.is_wild else ""))
    items: list[discord.ui.Item[Any]] = []
    uno_due = len(hand) == 2 and not game.has_called(pid)
    if game.is_over:
        lines.append(_("The game is over.", locale))
    elif session.paused:
        lines.append(_("The game is paused: I can't post in this channel.", locale))
    elif game.turn != pid:
        lines.append(pending_text(session, game, locale))
    elif game.pending is Decision.PLAY:
        options: list[discord.SelectOption] = []
        for c in sorted(game.playable_cards(pid)):
            options.append(discord.SelectOption(label=option_label(c, locale), value=c.code,
                                                emoji=card_emoji(c)))
            if len(hand) == 2:
                options.append(discord.SelectOption(
                    label=_("{card} and call UNO!", locale, card=option_label(c, locale)),
                    value=f"{c.code}|u", emoji=card_emoji(c)))
        pages = max(1, -(-len(options) // PAGE_SIZE))
        page = min(max(page, 0), pages - 1)
        chunk = options[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
        if chunk:
            lines.append(_("Your turn: pick a card to play, or draw.", locale))
            items.append(PlaySelect(gid, serial, page, chunk, _("Play a card…", locale)))
        else:
            lines.append(_("Your turn: no card matches, so draw one.", locale))
        items.append(DrawnButton("d", gid, serial, _("Draw", locale), row=1))
        if pages > 1:
            items.append(PageButton(gid, serial, (page + 1) % pages,
                                    _("More cards ({p}/{n})", locale, p=(page + 1) % pages + 1,
                                      n=pages), row=1))
        if uno_due:
            items.append(uno_button(session.game_id, session.serial, locale, row=1))
    elif game.pending is Decision.DRAWN:
        drawn = game.drawn_card
        assert drawn is not None
        lines.append(_("You drew {card}: play it or keep it.", locale,
                       card=card_label(drawn, locale)))
        items += [
            DrawnButton("dp", gid, serial, _("Play it", locale), style=discord.ButtonStyle.primary),
            DrawnButton("dk", gid, serial, _("Keep it", locale)),
        ]
        if uno_due:
            items += [
                DrawnButton("dpu", gid, serial, _("Play it and call UNO!", locale),
                            style=discord.ButtonStyle.success),
                uno_button(session.game_id, session.serial, locale),
            ]
    elif game.pending is Decision.COLOR:
        lines.append(_("The first card is wild: name the starting colour.", locale))
        items += [OpeningColorButton(gid, serial, c.value, color_name(c, locale).title(),
                                     COLOR_EMOJI[c]) for c in Color]
    elif game.pending is Decision.CHALLENGE:
        lines.append(_("{name} played a Wild Draw Four on you: accept it (draw 4) or "
                       "challenge it.", locale, name=session.name(game.challenge_against or "")))
        items += [
            TableButton("accept", gid, serial, _("Accept +4", locale)),
            TableButton("challenge", gid, serial, _("Challenge", locale),
                        style=discord.ButtonStyle.danger),
        ]
        if uno_due:
            items.append(uno_button(session.game_id, session.serial, locale))
    elif game.pending is Decision.KEEP:
        lines.append(_("Instant UNO! Choose the one card to keep; the rest go to the "
                       "discard pile.", locale))
        distinct = sorted(dict.fromkeys(hand))
        keep: list[discord.SelectOption] = []
        for c in distinct:
            keep.append(discord.SelectOption(label=option_label(c, locale), value=c.code,
                                             emoji=card_emoji(c)))
            keep.append(discord.SelectOption(
                label=_("{card} and call UNO!", locale, card=option_label(c, locale)),
                value=f"{c.code}|u", emoji=card_emoji(c)))
        items.append(KeepSelect(gid, serial, keep[:PAGE_SIZE], _("Card to keep…", locale)))
    if not items and len(hand) == 1 and not game.has_called(pid) and not game.is_over:
        items.append(uno_button(session.game_id, session.serial, locale))
    return "\n".join(lines), (view_of(*items) if items else None)


def lap_menu(session: Session, game: Game, pid: str, locale: Locale,
             notes: list[str] | None = None) -> Menu:
    """During a Victory Lap (R-VL-VIEWS): the card's player sees the hand in front of them,
    how far the lap went, and Keep / Pass (a pass that brings their own hand back ends the
    lap at once, R-VL-OWN-HAND); everyone else sees that their hand lies face down, and no
    card."""
    lap = game.lap
    assert lap is not None
    gid, serial = session.game_id, session.serial
    lines = list(notes or [])
    if lines:
        lines.append("")
    chooser = str(lap["player"])
    step, left = int(lap["step"]), int(lap["steps_left"])
    top = _("Top card: {card}{color}", locale, card=card_label(game.top, locale),
            color=_(" (colour: {c})", locale, c=color_name(game.color, locale))
            if game.color is not None else "")
    if pid != chooser:
        lines.append(_("🏁 Your hand is face down while {name} chooses a hand in the Victory "
                       "Lap (step {step}); My hand shows your cards once a hand is kept.",
                       locale, name=session.name(chooser), step=step))
        lines.append(top)
        return "\n".join(lines), None
    hand = game.hand(pid)
    lines.append(_("**Hand in front of you** ({n}): {cards}", locale,
                   n=card_count(len(hand), locale), cards=hand_text(sorted(hand), locale)))
    lines.append(top)
    if left > 1:
        lines.append(ngettext("🏁 Victory Lap, step {step}: keep this hand or pass it on ({n} "
                              "more pass before your own hand comes back).",
                              "🏁 Victory Lap, step {step}: keep this hand or pass it on ({n} "
                              "more passes before your own hand comes back).", left, locale,
                              step=step))
    elif left == 1:
        # R-VL-OWN-HAND: this pass brings the own hand back and ends the lap at once.
        lines.append(_("🏁 Victory Lap, step {step}: keep this hand or pass it on (a pass "
                       "brings your own hand back and ends the lap).", locale, step=step))
    else:  # a lap saved by an earlier release with the own hand already back
        lines.append(_("🏁 Victory Lap, step {step}: this is your own hand: you must keep it.",
                       locale, step=step))
    items: list[discord.ui.Item[Any]] = []
    if session.paused:
        lines.append(_("The game is paused: I can't post in this channel.", locale))
        return "\n".join(lines), None
    if game.color is None:
        # The colour was left for the keep (R-VL-COLOR): the keep names it.
        items += [LapButton(gid, serial, "keep", c.value,
                            _("Keep, {color}", locale, color=color_name(c, locale)),
                            emoji=COLOR_EMOJI[c]) for c in Color]
    else:
        items.append(LapButton(gid, serial, "keep", "", _("Keep", locale),
                               style=discord.ButtonStyle.success))
    if left == 1 and game.color is None:
        # The pass that ends the lap names the colour the play left out (R-VL-OWN-HAND).
        items += [LapButton(gid, serial, "pass", c.value,
                            _("Pass, {color}", locale, color=color_name(c, locale)),
                            emoji=COLOR_EMOJI[c], row=1) for c in Color]
    elif left > 0:  # none in a lap saved with the own hand already back
        items.append(LapButton(gid, serial, "pass", "", _("Pass", locale),
                               style=discord.ButtonStyle.primary, row=1))
    return "\n".join(lines), view_of(*items)


def lap_note(step: int, locale: Locale) -> str:
    """Told privately to a player whose hand a Victory Lap replaced."""
    return ngettext("🏁 Your hand changed in the Victory Lap: every hand moved {n} seat.",
                    "🏁 Your hand changed in the Victory Lap: every hand moved {n} seats.",
                    step, locale)


def choice_menu(session: Session, game: Game, pid: str, card: Card, uno: bool,
                color: Color | None, towers: tuple[Tower, ...] | None, locale: Locale
                ) -> Menu | None:
    """The next question a card still needs (its colour, its towers), or None when the
    play is complete. The engine says what the card needs (and refuses it if it can't be
    played at all)."""
    gid, serial = session.game_id, session.serial
    needs = game.play_needs(pid, card)
    if needs.color and color is None:
        chosen = "".join(t.value for t in towers or ())
        return (_("{card}: pick the colour.", locale, card=card_label(card, locale)),
                view_of(*[ColorButton(gid, serial, card.code, uno, c.value, chosen,
                                      color_name(c, locale).title(), COLOR_EMOJI[c])
                          for c in Color]))
    if needs.towers and towers is None:
        options = [discord.SelectOption(
            label=_("Tower {t}", locale, t=t.value),
            description=_("held by {name}", locale, name=session.name(h))
            if (h := game.towers[t]) else _("in the tray", locale),
            value=t.value) for t in needs.free]
        word = ngettext("{n} tower", "{n} towers", needs.towers, locale)
        col = color.value if color else "-"
        return (_("{card}: pick {word} to grab.", locale, card=card_label(card, locale),
                  word=word),
                view_of(TowerSelect(gid, serial, card.code, uno, col, options,
                                    _("Towers to grab…", locale), need=needs.towers)))
    return None


def move_notes(session: Session, pid: str, events: list[Event], locale: Locale,
               unseen: list[str]) -> list[str]:
    """What only the mover learns from their move: cards drawn, a challenged hand, the kept
    card, and cards they were made to draw since they last looked."""
    notes: list[str] = []
    if unseen:
        notes.append(_("Since you last looked you were made to draw {cards}.", locale,
                       cards=hand_text([Card.parse(c) for c in unseen], locale)))
    for e in events:
        if isinstance(e, Drew) and e.player == pid and e.count:
            notes.append(_("You drew {cards}.", locale, cards=hand_text(e.cards, locale)))
        elif isinstance(e, ChallengeResolved) and e.by == pid:
            notes.append(_("{name}'s hand when the Wild Draw Four was played: {cards}", locale,
                           name=session.name(e.against), cards=hand_text(e.hand, locale)))
        elif isinstance(e, InstantUno) and e.player == pid:
            notes.append(_("You kept {card}. Don't forget to call UNO!", locale,
                           card=card_label(e.kept, locale)))
        elif isinstance(e, LapKept) and e.player == pid:
            game = session.game
            one = game is not None and pid in game.players and len(game.hand(pid)) == 1
            if game is not None and not e.step % max(1, len(game.players)):
                # R-VL-OWN-HAND: the pass brought the own hand back and ended the lap.
                notes.append(_("🏁 Your own hand came back: the Victory Lap is over. Don't "
                               "forget to call UNO!", locale) if one else
                             _("🏁 Your own hand came back: the Victory Lap is over.", locale))
            else:
                notes.append(_("🏁 You kept the hand at step {step}. Don't forget to call "
                               "UNO!", locale, step=e.step) if one else
                             _("🏁 You kept the hand at step {step}.", locale, step=e.step))
    return notes


def _words(text: str) -> list[str]:
    cleaned = "".join(ch if ch.isalnum() or ch in "+!" else " " for ch in text.lower())
    return cleaned.split()


def match_cards(cards: list[Card], query: str, locale: Locale = None) -> list[Card]:
    """The cards a typed query names: every word of the query must start a word of the
    card's name, its label or its code ("red", "red 5", "5", "r5u", "wild four", "+2")."""
    needles = _words(query[:100])
    if not needles:
        return list(cards)
    found = []
    for card in cards:
        words = _words(f"{card_name(card, locale)} {card_label(card, locale)} {card.code}")
        words.append(card.code.lower())
        if all(any(w.startswith(n) for w in words) for n in needles):
            found.append(card)
    return found
