"""The table picture composed in palette indexes (cogs/uno/art/_indexed.py) and written
from its scanlines (_pngwrite.py): the same picture as composing in RGBA and mapping the
whole picture to the palette afterwards, without compositing or mapping a whole picture
per move (bench/README.md, "The table picture in palette indexes")."""

from __future__ import annotations

import dataclasses
import io
import logging

import pytest
from PIL import Image

from cogs.uno.art import (
    ArtCache,
    SeatScene,
    TableScene,
    TableWords,
    _compose,
    _indexed,
    png_bytes,
    table_canvas,
    table_image,
)
from engine.cards import Card, Color, Tower
from engine.game import Game
from engine.players import HeuristicPlayer


def _in_rgba(view: TableScene, art: ArtCache) -> bytes:
    """The picture as it was made before: composed in RGBA, then mapped to the palette."""
    return png_bytes(table_canvas(view, cache=art),
                     palette=_compose._table_palette(view.contrast, art),
                     clear=_compose._clear(*_compose._base_key(view)))


def _picture(data: bytes) -> tuple[object, ...]:
    """What a PNG shows: its mode, size, pixels (palette indexes), palette, transparency."""
    img = Image.open(io.BytesIO(data))
    img.load()
    return (img.mode, img.size, img.tobytes(), img.getpalette(),
            img.info.get("transparency"))


def _game_views(seed: int, count: int) -> list[TableScene]:
    """Successive table views of a real Power Grab game of four."""
    ids = [f"{seed}{k}" for k in range(4)]
    names = {p: n for p, n in zip(ids, ("Ann", "Chloé Zhang-Ferreira", "Дмитрий", "Bo"))}
    game = Game.new(ids, edition="power-grab", seed=seed, names=names)
    game.start()
    players = {p: HeuristicPlayer(seed + k) for k, p in enumerate(ids)}
    views: list[TableScene] = []
    while len(views) < count and not game.is_over:
        view = TableScene.from_public_view(game.public_view(), cpu={ids[2]})
        if not views or views[-1] != view:
            views.append(view)
        p = game.turn
        for q in game.players:
            reaction = players[q].react(game, q)
            if reaction is not None and reaction in game.legal_moves(q):
                game.apply(reaction)
        if not game.is_over and game.turn == p:
            game.apply(players[p].choose(game, p))
    return views


FRENCH = TableWords(top_card="Carte du talon", draw_pile="Pioche", players="Joueurs",
                    cards="{n} cartes", colour="couleur : {color}", green="vert",
                    towers="Tours", play_goes="le jeu va")


@pytest.mark.slow
def test_indexed_picture_is_the_rgba_picture_pixel_for_pixel() -> None:
    """Real games' tables, in both looks, with a title, in French, the other direction,
    ten seats without towers: the same pixels, palette and transparency as the picture
    composed in RGBA (the PNG's compressed bytes may differ)."""
    art = ArtCache()
    views = _game_views(3, 25) + _game_views(8, 10)
    ten = TableScene(top=Card.parse("W+4"), color=Color.YELLOW, turn=9, direction=-1,
                    seats=tuple(SeatScene(f"Player with a long name {i}", i, uno=i == 1,
                                         cpu=i % 3 == 0) for i in range(10)), draw_count=1)
    views.append(ten)
    variants = [v for view in views for v in (
        view, dataclasses.replace(view, contrast=True, title="UNO Power Grab: round 3"),
        dataclasses.replace(view, words=FRENCH, direction=-view.direction))]
    assert len({v.top for v in variants}) > 5 and any(v.color for v in variants)
    for view in variants:
        assert _picture(table_image(view, cache=art)) == _picture(_in_rgba(view, art)), view


def test_a_table_picture_composites_and_maps_no_whole_picture(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its pieces are mapped, a table's picture pastes them: no RGBA table, no
    alpha compositing, no mapping of a whole picture to the palette, no text drawn."""
    art = ArtCache()
    views = _game_views(5, 12)
    for view in views:
        table_image(view, cache=art)
    calls: list[str] = []

    def refuse(name: str) -> object:
        def called(*args: object, **kwargs: object) -> object:
            calls.append(name)
            raise AssertionError(name)
        return called

    monkeypatch.setattr(Image.Image, "alpha_composite", refuse("alpha_composite"))
    monkeypatch.setattr(Image.Image, "quantize", refuse("quantize"))
    monkeypatch.setattr(_compose, "table_canvas", refuse("table_canvas"))
    monkeypatch.setattr(_compose, "_left_text", refuse("_left_text"))
    for view in views:
        assert Image.open(io.BytesIO(table_image(view, cache=art))).mode == "P"
    assert calls == []


def test_a_picture_the_indexes_cannot_make_is_composed_in_rgba(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """When a card would land on something other than plain felt (not in today's
    layout), the picture is composed in RGBA as before: the same picture, and a warning."""
    view = _game_views(4, 1)[0]
    art = ArtCache()
    expected = _in_rgba(view, art)
    monkeypatch.setattr(_compose, "_plain", lambda key, box: False)
    with caplog.at_level(logging.WARNING, logger=_compose.__name__):
        assert table_image(view, cache=art) == expected
    assert "composed in RGBA" in caplog.text


def test_texts_in_indexes_stay_bounded() -> None:
    texts = _indexed.Texts(20_000)
    for i in range(200):
        piece, length = texts.get(("Player", i), lambda: (Image.new("L", (60, 12)), 50.0))
        assert piece.mode == "L" and length == 50.0
        assert texts.pixels <= 20_000
    assert 1 < len(texts) < 200
    assert _indexed.TEXTS.pixels <= _indexed.TEXT_PIXELS


def test_derived_images_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogs.uno.art import _cache
    monkeypatch.setattr(_cache, "DERIVED_BYTES", 100_000)
    art = ArtCache()
    for view in _game_views(6, 15):
        table_image(view, cache=art)
        assert art.derived_bytes <= 100_000 or len(art._derived) == 1
    view = TableScene(top=Card.parse("R5"), seats=(SeatScene("a", 1), SeatScene("b", 2)),
                     has_towers=True, towers=((Tower.U, 0),))
    assert _picture(table_image(view, cache=art)) == _picture(_in_rgba(view, art))


@pytest.mark.parametrize("deflater", ["zlib", "isal"])
def test_the_png_writer_with_either_compressor(deflater: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The PNG written from the scanlines decodes to the picture, with Python's zlib and
    with ISA-L (requirements.txt; skipped where it is not installed), deterministically."""
    import zlib

    from cogs.uno.art import _pngwrite
    if deflater == "isal":
        isal_zlib = pytest.importorskip("isal.isal_zlib")
        monkeypatch.setattr(_pngwrite, "DEFLATE", lambda data: isal_zlib.compress(data, 1))
    else:
        monkeypatch.setattr(_pngwrite, "DEFLATE", lambda data: zlib.compress(data, 1))
    art = ArtCache()
    for view in _game_views(7, 4):
        data = table_image(view, cache=art)
        assert data == table_image(view, cache=art)
        assert _picture(data) == _picture(_in_rgba(view, art))
    with pytest.raises(ValueError):
        _pngwrite.palette_png(b"\0" * 10, 3, 3, _compose._table_palette(False, art), 255)

