"""The engine's command-line tools, built on the rules (``engine``) and the computer players
(``engine.players``), which import neither of them.

``python -m engine.tools.replay FILE.json``: a replay file played back, one JSON line per
event. ``python -m engine.tools.simulate``: computer players play whole games or matches,
and a summary of their figures. See docs/tools.md.
"""
