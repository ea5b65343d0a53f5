"""The computer players, built on the rules (``engine``) and never the other way round.

``heuristic.py``: the players that decide from the position in front of them (the easy and
normal levels, and two to measure them against). ``seatview.py``: what one seat can know.
``search.py``: the hard level, a search over that seat's view, whose playouts run on a
compact copy of the rules (``fastcards.py``, ``fastsim.py``, ``playouts.py``).
See docs/engine-api.md.
"""

from engine.players.heuristic import (
    BasicPlayer,
    EasyPlayer,
    HeuristicPlayer,
    RandomPlayer,
    Strategy,
)
from engine.players.search import SearchPlayer
from engine.players.seatview import Notes, SeatView, seat_view

__all__ = [
    "BasicPlayer",
    "EasyPlayer",
    "HeuristicPlayer",
    "Notes",
    "RandomPlayer",
    "SearchPlayer",
    "SeatView",
    "Strategy",
    "seat_view",
]
