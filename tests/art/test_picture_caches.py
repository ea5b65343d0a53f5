"""The picture caches of issue 16, step 5 ("a cheaper click"): each is bounded, and a
changed hand or table gives a new picture, never a cached one of something else.

- hand pictures (``HandPictures``): one PNG per distinct hand, playable cards and look,
  least recently used dropped past ``HAND_CACHE_BYTES``;
- the table picture's texts (seat names, card counts): one mask per text, least
  recently used dropped past a number of pixels (the earlier cache of 512 coloured pieces
  was too small for the names of 300 tables, and every picture drew them again);
- hand pictures take a palette made once per look, as table pictures do.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import AsyncIterator

import pytest
from PIL import Image, ImageChops

import cogs.uno._pictures as pictures_module
from cogs.uno._pictures import HandPictures
from cogs.uno.art import (
    ArtCache,
    SeatScene,
    TableScene,
    _compose,
    hand_image,
    table_canvas,
    table_image,
)
from data import Database, UserSettings
from engine.cards import Card, Color, Tower
from engine.editions import EDITIONS


def cards(codes: str) -> list[Card]:
    return [Card.parse(code) for code in codes.split()]


@pytest.fixture
async def pictures(tmp_path: object) -> AsyncIterator[HandPictures]:
    db = await Database.open(f"{tmp_path}/bot.db")
    try:
        yield HandPictures(db, enabled=True)
    finally:
        await db.close()


def _png(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


async def test_a_hand_is_drawn_once_and_a_changed_hand_anew(pictures: HandPictures) -> None:
    hand = cards("R1 G2 B3 W")
    first = await pictures.picture(hand, {hand[0]}, "7")
    again = await pictures.picture(list(hand), {Card.parse("R1")}, "7")
    assert first is not None and again == first
    assert (pictures.draws, pictures.hits) == (1, 1)
    # each change is a new picture: a card more, another order, other playable cards,
    # another look
    drawn = {first}
    for other, playable in ((hand + cards("Y4"), {hand[0]}), (hand[::-1], {hand[0]}),
                            (hand, {hand[1]}), (hand, set())):
        image = await pictures.picture(other, playable, "7")
        assert image is not None and image not in drawn
        drawn.add(image)
    await pictures.set_high_contrast(8, True)
    contrast = await pictures.picture(hand, {hand[0]}, "8")
    assert contrast is not None and contrast not in drawn
    assert (pictures.draws, pictures.hits) == (6, 1)
    assert await pictures.db.get_user_settings(8) == UserSettings(8, True)


async def test_the_hand_cache_never_grows_past_its_bound(
        pictures: HandPictures, monkeypatch: pytest.MonkeyPatch) -> None:
    bound = 60_000
    monkeypatch.setattr(pictures_module, "HAND_CACHE_BYTES", bound)
    deck = sorted({c for e in EDITIONS.values() for c in e.deck})
    sizes = []
    for i in range(40):
        hand = deck[i:i + 7]
        image = await pictures.picture(hand, set(hand[::2]), "7")
        assert image is not None
        sizes.append(len(image))
        assert pictures.drawn_bytes <= bound
        assert pictures.drawn_bytes == sum(len(v) for v in pictures._drawn.values())
    assert pictures.draws == 40 and 1 < len(pictures._drawn) < 40
    # the newest are kept, the oldest went: the first hand is drawn again
    await pictures.picture(deck[39:46], set(deck[39:46:2]), "7")
    assert pictures.hits == 1
    await pictures.picture(deck[0:7], set(deck[0:7:2]), "7")
    assert pictures.draws == 41


def _table(names: tuple[str, ...], turn: int = 0, count: int = 7) -> TableScene:
    return TableScene(top=Card.parse("R5"), color=Color.RED, turn=turn, has_towers=True,
                     seats=tuple(SeatScene(name, count + i) for i, name in enumerate(names)),
                     towers=((Tower.U, 0), (Tower.N, None), (Tower.O, 1), (Tower.BANG, 2)),
                     draw_count=40, title="UNO")


def texts_written(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts written with the font from now on (``_compose._left_text``)."""
    written: list[str] = []
    left_text = _compose._left_text

    def counting(pen: object, x: float, cy: float, s: str, *args: object) -> float:
        written.append(s)
        return left_text(pen, x, cy, s, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_compose, "_left_text", counting)
    return written


@pytest.mark.slow
def test_table_texts_stay_cached_for_many_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The names of 300 tables of four (1,200 names, with the counts some 2,500 texts in
    two colours) are each drawn once: a second round of pictures, the turn
    moved on at every table, writes no text."""
    written = texts_written(monkeypatch)
    art = ArtCache()
    views = [_table(tuple(f"p{t}x{k}" for k in range(4)), turn=t % 4) for t in range(300)]
    for view in views:
        table_canvas(view, cache=art)
    assert written
    written.clear()
    for view in views:
        table_canvas(dataclasses.replace(view, turn=((view.turn or 0) + 1) % 4), cache=art)
    assert written == []
    assert _compose._MASKS.pixels <= _compose.TEXT_MASK_PIXELS


def test_the_text_masks_never_grow_past_their_bound() -> None:
    masks = _compose._Masks(20_000)
    for i in range(200):
        mask, length = masks.mask(f"Player number {i}", 12)
        assert mask.mode == "L" and length > 0
        assert masks.pixels <= 20_000
        assert masks.pixels == sum(m.width * m.height for m, _l in masks._items.values())
    assert 1 < len(masks) < 200
    masks.mask("Player number 199", 12)
    assert masks.hits == 1
    masks.mask("Player number 0", 12)
    assert masks.misses == 201


def test_a_changed_name_or_count_changes_the_table_picture() -> None:
    names = ("Ann", "Ben", "Cy", "Dee")
    before = table_image(_table(names))
    assert table_image(_table(names)) == before
    renamed = table_image(_table(("Ann", "Ben", "Cyd", "Dee")))
    recounted = table_image(_table(names, count=8))
    assert len({before, renamed, recounted}) == 3
    # the same text in both seat colours (the turn's row is light, the others dark)
    first_row = (_compose.SEATS_X, _compose._ROWS_TOP, _compose.TABLE_W,
                 _compose._ROWS_TOP + _compose.ROW_H)
    light = table_canvas(_table(names, turn=0)).crop(first_row)
    dark = table_canvas(_table(names, turn=1)).crop(first_row)
    assert ImageChops.difference(light.convert("RGB"), dark.convert("RGB")).getbbox()


@pytest.mark.slow
def test_hand_pictures_take_a_fixed_palette_faithfully() -> None:
    """Hand pictures map their pixels to one palette made per look (no palette found per
    picture): the background stays transparent and every opaque pixel stays close to the
    exact picture."""
    deck = sorted({c for e in EDITIONS.values() for c in e.deck})
    for contrast in (False, True):
        hand = deck[::3][:20]
        fast = _png(hand_image(hand, hand[::4], contrast=contrast, width=80,
                               cache=ArtCache()))
        exact = _png(hand_image(hand, hand[::4], contrast=contrast, width=80,
                                cache=ArtCache(), exact=True)).convert("RGBA")
        assert fast.mode == "P" and fast.info.get("transparency") == 255
        fast = fast.convert("RGBA")
        assert fast.getpixel((0, 0))[3] == 0 and exact.getpixel((0, 0))[3] == 0
        opaque = exact.getchannel("A").point(lambda a: 255 if a == 255 else 0)
        diff = ImageChops.difference(fast.convert("RGB"), exact.convert("RGB")).convert("L")
        worst = ImageChops.multiply(diff, opaque).getextrema()[1]
        assert isinstance(worst, int) and worst < 48, f"a pixel is {worst} off its colour"


def test_a_name_in_its_other_colouring_is_not_written_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat's name is written once (its coverage mask): when the turn comes to it, the
    table's picture (in palette indexes) shows it in the turn's colours from the same mask,
    not written again with the font (a table's names cost the font once each, not once
    per colouring)."""
    written = texts_written(monkeypatch)
    art = ArtCache()
    names = tuple(f"Colouring {k} of table 7" for k in range(4))
    first = table_image(_table(names), cache=art)
    assert set(names) <= set(written)
    written.clear()
    for turn in (1, 2, 3):
        assert table_image(_table(names, turn=turn), cache=art) != first
    assert not set(names) & set(written)
