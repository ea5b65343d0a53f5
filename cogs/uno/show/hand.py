"""The private hand: the hand menu and the questions a card still needs (its colour, its
towers, the card to keep, a Victory Lap), and the notes a player is told privately.

No Discord I/O and no state: the cog sends what these return.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import discord

from cogs.uno._components import (
    ColorButton,
    DrawnButton,
    KeepSelect,
    LapButton,
    OpeningColorButton,
    PageButton,
    TableButton,
    view_of,
)
from cogs.uno._panel_items import CardButton, KeepButton, TowerButton
from cogs.uno.show.faces import card_emoji
from cogs.uno.show.table import seat_back_button, uno_button
from cogs.uno.table.session import Session
from cogs.uno.table.words.cards import (
    COLOR_EMOJI,
    card_count,
    card_label,
    card_name,
    color_name,
    hand_text,
    kind_name,
)
from engine import Card, Color, Decision, Game, Kind, Tower
from engine.events import ChallengeResolved, Drew, Event, InstantUno, LapKept
from runtime.i18n import Locale, _, ngettext

PAGE_SIZE = 25
"""Options of one select menu (Discord's limit)."""
CARD_ROWS = 4
CARDS_PER_ROW = 5
CARDS_PER_PAGE = CARD_ROWS * CARDS_PER_ROW
"""The live panel's card buttons: four rows of five (Discord allows five rows), the fifth
row for Draw, UNO! and More cards."""
CONTROL_ROW = CARD_ROWS
Menu = tuple[str, discord.ui.View | None]


def option_label(card: Card, locale: Locale) -> str:
    return f"{card_label(card, locale)} ({card.code})"


def card_buttons(items: list[discord.ui.Item[Any]], session: Session, hand: Sequence[Card],
                 playable: set[Card], locale: Locale, page: int, *, uno: bool
                 ) -> tuple[int, int]:
    """The hand as buttons, one per distinct card (a custom_id appears once a message),
    those playable now enabled; with two cards and UNO not called yet, each playable card
    also as "and call UNO!" (one click for both). Adds one page of them to ``items``;
    returns (the page shown, how many pages)."""
    gid, serial = session.game_id, session.serial
    counts: dict[Card, int] = {}
    for c in sorted(hand):
        counts[c] = counts.get(c, 0) + 1
    entries: list[tuple[Card, bool]] = [(c, False) for c in counts]
    if uno:
        entries += [(c, True) for c in counts if c in playable]
    pages = max(1, -(-len(entries) // CARDS_PER_PAGE))
    page = min(max(page, 0), pages - 1)
    for i, (c, with_uno) in enumerate(entries[page * CARDS_PER_PAGE:
                                              (page + 1) * CARDS_PER_PAGE]):
        label = card_label(c, locale)
        if counts[c] > 1 and not with_uno:
            label = f"{label} ×{counts[c]}"
        if with_uno:
            label = _("{card} and call UNO!", locale, card=label)
        style = (discord.ButtonStyle.success if with_uno else
                 discord.ButtonStyle.primary if c in playable else
                 discord.ButtonStyle.secondary)
        items.append(CardButton(gid, serial, c.code, with_uno, label[:80], emoji=card_emoji(c),
                                style=style, disabled=c not in playable,
                                row=i // CARDS_PER_ROW))
    return page, pages


def page_button(items: list[discord.ui.Item[Any]], session: Session, page: int, pages: int,
                locale: Locale) -> None:
    """More cards (the next page of the hand), when the hand has more than one."""
    if pages > 1:
        nxt = (page + 1) % pages
        items.append(PageButton(session.game_id, session.serial, nxt,
                                _("More cards ({p}/{n})", locale, p=nxt + 1, n=pages),
                                row=CONTROL_ROW))


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


def turn_hand(session: Session, game: Game, pid: str) -> tuple[list[Card], set[Card]] | None:
    """The hand ``pid``'s panel shows as a picture besides its buttons: while it is their
    turn (their cards, those playable now lit; a Victory Lap's chooser: the hand in front
    of them), else None (the panel is text and buttons)."""
    if game.is_over or session.paused or game.turn != pid:
        return None
    cards, playable = shown_cards(game, pid)
    return (cards, playable) if cards else None


def panel_key(session: Session, game: Game, pid: str) -> tuple[object, ...]:
    """What ``pid``'s live hand panel shows that matters to them: their hand and towers,
    their UNO call, whether it is their turn and, while it is, the decision and what it
    depends on (the top card, the colour, the card drawn, the buttons' serial), the Victory
    Lap as they see it, a pause, the end. Equal keys: the panel need not be edited. Another
    player's turn passing to a third changes nothing here, so a move edits only the panels
    of the players it concerns."""
    over = game.is_over
    mine = not over and game.turn == pid
    lap = game.lap
    chooser = lap is not None and str(lap["player"]) == pid
    return (session.game_id, game.round_number, over, session.paused,
            session.is_standing_in(pid),
            tuple(sorted(game.hand(pid))) if pid in game.players else (),
            tuple(game.towers_of(pid)), game.has_called(pid), mine,
            (game.pending, game.top, game.color, game.drawn_card, session.serial)
            if mine else None,
            None if lap is None else (chooser, lap["step"] if chooser else None))


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
    hand_at = len(lines)
    lines.append("")  # the hand's line, once it is known whether its buttons show it
    pages = 1
    towers = game.towers_of(pid)
    if towers:
        lines.append(_("Your towers: {towers}", locale,
                       towers=" ".join(f"`{t.value}`" for t in towers)))
    if game.turn == pid and not game.is_over:
        # (only on their turn: the panel is not edited for every other player's card)
        lines.append(_("Top card: {card}{color}", locale, card=card_label(game.top, locale),
                       color=_(" (colour: {c})", locale, c=color_name(game.color, locale))
                       if game.top.is_wild else ""))
    items: list[discord.ui.Item[Any]] = []
    uno_due = len(hand) == 2 and not game.has_called(pid)
    if game.is_over:
        lines.append(_("The game is over.", locale))
    elif session.paused:
        lines.append(_("The game is paused: I can't post in this channel.", locale))
    elif session.is_standing_in(pid):
        lines.append(_("🤖 A computer player keeps your seat warm and plays this hand: "
                       "press Back to my seat to play again.", locale))
        items.append(seat_back_button(gid, locale, row=CONTROL_ROW))
    elif game.turn != pid:
        lines.append(_("Waiting for your turn: this panel follows the game, and your cards "
                       "light up when it is your turn.", locale))
        page, pages = card_buttons(items, session, hand, set(), locale, page, uno=False)
        page_button(items, session, page, pages, locale)
    elif game.pending is Decision.PLAY:
        playable = set(game.playable_cards(pid))
        lines.append(_("Your turn: pick a card to play, or draw.", locale) if playable else
                     _("Your turn: no card matches, so draw one.", locale))
        page, pages = card_buttons(items, session, hand, playable, locale, page, uno=uno_due)
        items.append(DrawnButton("d", gid, serial, _("Draw", locale), row=CONTROL_ROW))
        if uno_due:
            items.append(uno_button(session.game_id, session.serial, locale, row=CONTROL_ROW))
        page_button(items, session, page, pages, locale)
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
        if len(distinct) <= CARD_ROWS * 2:
            # one click: each card to keep, alone or with the UNO call, two cards a row
            for i, c in enumerate(distinct):
                label = card_label(c, locale)
                items += [
                    KeepButton(gid, serial, c.code, False, _("Keep {card}", locale, card=label),
                               emoji=card_emoji(c), row=i // 2),
                    KeepButton(gid, serial, c.code, True,
                               _("Keep {card} and call UNO!", locale, card=label),
                               emoji=card_emoji(c), style=discord.ButtonStyle.success,
                               row=i // 2),
                ]
            distinct = []
        keep: list[discord.SelectOption] = []
        for c in distinct:
            keep.append(discord.SelectOption(label=option_label(c, locale), value=c.code,
                                             emoji=card_emoji(c)))
            keep.append(discord.SelectOption(
                label=_("{card} and call UNO!", locale, card=option_label(c, locale)),
                value=f"{c.code}|u", emoji=card_emoji(c)))
        if keep:
            items.append(KeepSelect(gid, serial, keep[:PAGE_SIZE],
                                    _("Card to keep…", locale)))
    if (len(hand) == 1 and not game.has_called(pid) and not game.is_over
            and not any(isinstance(i, TableButton) and i.action == "uno" for i in items)):
        items.append(uno_button(session.game_id, session.serial, locale, row=CONTROL_ROW))
    # Each card is said once: where its buttons (and the picture) show the whole hand, the
    # text says how many cards it holds; elsewhere it names them, each by its label.
    count = card_count(len(hand), locale)
    lines[hand_at] = (
        _("**Your hand** ({n})", locale, n=count)
        if pages == 1 and any(isinstance(i, CardButton) for i in items) else
        _("**Your hand** ({n}): {cards}", locale, n=count, cards=hand_labels(hand, locale)))
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
                   n=card_count(len(hand), locale), cards=hand_labels(hand, locale)))
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
    # the hand stays in view while the card's question replaces its buttons (the panel's
    # picture stays too)
    hand = hand_line(game.hand(pid), locale)
    if needs.color and color is None:
        chosen = "".join(t.value for t in towers or ())
        return (_("{card}: pick the colour.", locale, card=card_label(card, locale))
                + "\n" + hand,
                view_of(*[ColorButton(gid, serial, card.code, uno, c.value, chosen,
                                      color_name(c, locale).title(), COLOR_EMOJI[c])
                          for c in Color], back_button(session, locale)))
    if needs.towers and towers is None:
        col = color.value if color else "-"
        word = ngettext("{n} tower", "{n} towers", needs.towers, locale)
        buttons: list[discord.ui.Item[Any]] = []
        for i, pick in enumerate(itertools.combinations(needs.free, needs.towers)):
            label = " + ".join(tower_label(session, game, t, locale) for t in pick)
            buttons.append(TowerButton(gid, serial, card.code, uno, col,
                                       "".join(t.value for t in pick), label[:80],
                                       row=i // 3))
        buttons.append(back_button(session, locale))
        return (_("{card}: pick {word} to grab.", locale, card=card_label(card, locale),
                  word=word) + "\n" + hand, view_of(*buttons))
    return None


def hand_line(hand: Sequence[Card], locale: Locale) -> str:
    """The hand in one line, for a question that takes the place of its buttons."""
    return _("Your hand: {cards}", locale, cards=hand_labels(hand, locale))


def hand_labels(hand: Sequence[Card], locale: Locale) -> str:
    """The cards of a hand, each once, by its label (its colour square and its name),
    sorted as the buttons are, "×2" for two alike (the panel's picture and buttons show
    their faces)."""
    counts: dict[Card, int] = {}
    for c in sorted(hand):
        counts[c] = counts.get(c, 0) + 1
    return ", ".join(card_label(c, locale) + (f" ×{n}" if n > 1 else "")
                     for c, n in counts.items()) or _("(no cards)", locale)


def tower_label(session: Session, game: Game, tower: Tower, locale: Locale) -> str:
    """A tower to grab, and where it is now."""
    holder = game.towers[tower]
    return (_("{t} (from {name})", locale, t=tower.value, name=session.name(holder))
            if holder else _("{t} (from the tray)", locale, t=tower.value))


def back_button(session: Session, locale: Locale) -> TableButton:
    """Back to the hand (a question left unanswered changes nothing)."""
    return TableButton("hand", session.game_id, None, _("Back", locale), row=CONTROL_ROW)


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
    card's name, its label or its code ("red", "red 5", "5", "r5u", "wild four", "+2").
    Every wild card answers to "wild" (and to the reader's word for it), the Victory Lap
    too, whose name doesn't say it."""
    needles = _words(query[:100])
    if not needles:
        return list(cards)
    found = []
    for card in cards:
        words = _words(f"{card_name(card, locale)} {card_label(card, locale)} {card.code}")
        words.append(card.code.lower())
        if card.is_wild:
            words += ["wild", *_words(kind_name(Kind.WILD, locale))]
        if all(any(w.startswith(n) for w in words) for n in needles):
            found.append(card)
    return found
