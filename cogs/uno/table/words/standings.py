"""Who leads, in words: a round's score table (the leader first: under alternative scoring,
the lowest total), partners' teams and their running totals, and a rotating-partners
match (a hand's result, the standings, the winners; a tournament's standings too)."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.uno.table.session import Session
from engine.events import Event
from engine.match import HandScored, MatchWon
from runtime.i18n import Locale, _


def team_name(session: Session, team: Sequence[str], locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    return _(" & ", locale).join(session.name(p) for p in team)


def lowest_wins(session: Session) -> bool:
    """Alternative scoring: a total is a penalty and the lowest wins (RULINGS, Scoring)."""
    game = session.game
    return game is not None and game.settings.scoring != "standard"


def team_charges(session: Session, gained: dict[str, int], locale: Locale = None) -> str:
    """Partners under alternative scoring: what each team was charged this round ("Ann &
    Cy +14, Ben & Dee +93"), the points left in its members' hands."""
    game = session.game
    assert game is not None
    return ", ".join(f"{team_name(session, t, locale)} +{max(gained.get(p, 0) for p in t)}"
                     for t in game.teams)


def team_table(session: Session, locale: Locale = None) -> str:
    """Partner play: each team's running total (sheet 004: the team scores together), the
    leading team first (under alternative scoring the lowest total leads)."""
    locale = locale or session.options.language  # public: the game's
    game = session.game
    assert game is not None
    sign = 1 if lowest_wins(session) else -1
    rows = sorted(zip(game.teams, game.team_scores, strict=True), key=lambda ts: sign * ts[1])
    body = "\n".join(f"{team_name(session, t, locale)[:30]:<30} {v:>5}" for t, v in rows)
    return _("```\n{body}\n```", locale, body=body)


def match_lines(session: Session, events: Sequence[Event], locale: Locale = None
                ) -> list[str]:
    """A rotating-partners match: a hand's result, the totals, and who won the match."""
    locale = locale or session.options.language  # public: the game's
    match = session.match
    assert match is not None
    lines: list[str] = []
    for e in events:
        if isinstance(e, HandScored):
            gained = ", ".join(f"{team_name(session, t, locale)} +{p}"
                               for t, p in zip(e.teams, e.points, strict=True))
            lines.append(_("**Hand {n} of {total}** is over: {gained}.", locale,
                           n=e.round + 1, total=len(match.schedule), gained=gained))
            lines.append(standings_table(session, locale))
        elif isinstance(e, MatchWon):
            lines.append(_("🎉 **{names}** won the rotating partners match!", locale,
                           names=", ".join(session.name(p) for p in e.players)))
    return lines


def standings_table(session: Session, locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    match = session.match
    assert match is not None
    body = "\n".join(f"{s.place}. {session.name(s.player)[:20]:<20} {s.total:>5}"
                     for s in match.standings())
    return _("```\n{body}\n```", locale, body=body)


def hand_banner(session: Session, locale: Locale = None) -> str:
    """The match's current hand and its partnerships."""
    locale = locale or session.options.language  # public: the game's
    match, game = session.match, session.game
    assert match is not None and game is not None
    hand = match.next_hands()[0] if not match.is_over else None
    number = hand.round + 1 if hand is not None else len(match.schedule)
    return _("**Hand {n} of {total}**: {a} against {b}.", locale, n=number,
             total=len(match.schedule), a=team_name(session, game.teams[0], locale),
             b=team_name(session, game.teams[1], locale))


def score_table(session: Session, scores: dict[str, int], gained: dict[str, int],
                locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    sign = 1 if lowest_wins(session) else -1  # the leader first: the lowest, if it wins
    rows = sorted(scores.items(), key=lambda kv: sign * kv[1])
    body = "\n".join(
        f"{session.name(p)[:20]:<20} {v:>5}  (+{gained.get(p, 0)})" for p, v in rows
    )
    return _("```\n{body}\n```", locale, body=body)


def winner_names(session: Session, locale: Locale = None) -> str:
    """Who won ``session``'s finished game, as its result names them: the match's winners,
    the winning teams ("Ann & Cy") or the winners, by name."""
    game = session.game
    if session.match is not None:
        return ", ".join(session.name(p) for p in session.match.winners)
    if game is None:
        return ""
    won = set(game.winners)
    if game.teams:
        return ", ".join(team_name(session, team, locale) for team in game.teams
                         if won & set(team))
    return ", ".join(session.name(p) for p in game.winners)
