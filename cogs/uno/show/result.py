"""The end of a game: its result message (the final scores, winners first, a picture of the
standings and a **Play again** button), built once from the finished session.

:class:`ResultModel` is what the message shows (``of``: from the session as it was
recorded, in the game's language); :func:`result_embed` and :func:`result_view` build the
message from it. Without the picture (the bot may not attach files, or drawing failed) the
embed's text says everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import discord

from cogs.uno._components import view_of
from cogs.uno._end_items import AgainButton
from cogs.uno.art import StandingRow, StandingsScene, StandingsWords
from cogs.uno.table.session import Session
from cogs.uno.table.words.cards import edition_title
from cogs.uno.table.words.standings import team_name
from runtime.i18n import _, speaking

RESULT_COLOUR = 0xF1C40F
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


@dataclass(frozen=True, slots=True)
class ResultModel:
    """A finished game's result message: every player (or team) and their points, the
    winners first."""

    game_id: str
    language: str
    title: str
    lines: tuple[str, ...]
    """One per player (or team), in order."""
    footer: str
    picture: StandingsScene
    again: bool
    """The message offers Play again."""

    @classmethod
    def of(cls, session: Session) -> ResultModel | None:
        """The result of ``session``'s finished game (None: it has none to show)."""
        game = session.game
        if game is None or not game.is_over:
            return None
        language = session.options.language  # public: the game's
        match = session.match
        lowest = game.settings.scoring == "alternative"
        # (name, points, winner, cpu) for every player, or every team
        entries: list[tuple[str, int, bool, bool]]
        if match is not None:
            won = set(match.winners)
            entries = [(session.name(s.player), s.total, s.player in won, session.is_cpu(s.player))
                       for s in match.standings()]
            lowest = False
            title = _("🎉 **{names}** won the rotating partners match!", language,
                      names=", ".join(session.name(p) for p in match.winners))
        elif game.teams:
            won = set(game.winners)
            entries = [(team_name(session, team, language), total, bool(won & set(team)),
                        all(session.is_cpu(p) for p in team))
                       for team, total in zip(game.teams, game.team_scores, strict=True)]
            winners = [team for team in game.teams if won & set(team)]
            title = _("🎉 **{names}** won the game!", language,
                      names=", ".join(team_name(session, t, language) for t in winners))
        else:
            won = set(game.winners)
            scores = game.scores
            entries = [(session.name(p), scores.get(p, 0), p in won, session.is_cpu(p))
                       for p in game.players]
            title = _("🎉 **{names}** won the game!", language,
                      names=", ".join(session.name(p) for p in game.winners))
        entries.sort(key=lambda e: (not e[2], e[1] if lowest else -e[1]))
        rows: list[StandingRow] = []
        for i, (name, points, winner, cpu) in enumerate(entries):
            prev = rows[-1] if rows else None
            same = prev is not None and (prev.winner, prev.points) == (winner, points)
            place = prev.place if same and prev is not None else i + 1
            rows.append(StandingRow(place, name, points, winner, cpu))
        lines = tuple(_("{place} **{name}**{cpu}: {n} pts", language,
                        place=MEDALS.get(r.place, f"{r.place}."), name=r.name,
                        cpu=" 🤖" if r.cpu else "", n=r.points) for r in rows)
        edition = edition_title(game.edition.name, language)
        summary = (_("{edition} · hands played: {n}", language, edition=edition,
                     n=len(match.results)) if match is not None else
                   _("{edition} · target {target} · rounds played: {n}", language,
                     edition=edition, target=game.settings.target, n=game.round_number))
        notes = [summary]
        if lowest:
            notes.append(_("the lowest total wins", language))
        if session.unranked:
            notes.append(_("not counted on the leaderboard", language))
        notes.append(_("Game {gid}", language, gid=session.game_id))
        picture = StandingsScene(rows=tuple(rows), subtitle=summary.replace("·", "-"),
                                words=standings_words(language))
        return cls(game_id=session.game_id, language=language, title=title, lines=lines,
                   footer=" · ".join(notes), picture=picture, again=session.again)


@lru_cache(maxsize=16)
def standings_words(language: str | None) -> StandingsWords:
    """The words of the standings picture in ``language`` (the game's)."""
    with speaking(language):
        # TRANSLATORS: the tag beside the winner's name in the final standings picture.
        return StandingsWords(title=_("Final scores"), winner=_("WINNER"),
                              points=_("{n} pts"), cpu=_("CPU"), player=_("Player {n}"))


def result_embed(model: ResultModel, picture: str | None) -> discord.Embed:
    """The result as an embed: the winners, the final scores, and the picture
    ``picture`` (an attachment's file name; None: none)."""
    embed = discord.Embed(title=_("🏁 Final scores", model.language),
                          description="\n".join([model.title, "", *model.lines])[:4000],
                          colour=RESULT_COLOUR)
    if picture is not None:
        embed.set_image(url=f"attachment://{picture}")
    embed.set_footer(text=model.footer[:2048])
    return embed


def result_view(model: ResultModel) -> discord.ui.View | None:
    """Play again, when the game offers it."""
    if not model.again:
        return None
    return view_of(AgainButton(model.game_id, _("Play again", model.language), emoji="🔁"))
