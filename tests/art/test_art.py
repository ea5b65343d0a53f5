"""The card art (cogs/uno/art): every card of every edition, the cache, hands and tables.

Fast paths are proven by counting draws and disk reads, never by timing.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import logging
import typing
from itertools import combinations
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from cogs.uno import art
from cogs.uno.art import (
    ART_VERSION,
    CARD_W,
    ArtCache,
    SeatScene,
    TableScene,
    TableWords,
    _compose,
    all_cards,
    card_height,
    hand_image,
    table_canvas,
    table_image,
    tower_height,
)
from cogs.uno.art._draw import font, printable
from cogs.uno.art._hand import HAND_GAP
from engine import Game
from engine.cards import Card, Color, Kind, Tower
from engine.editions import EDITIONS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def drawn() -> ArtCache:
    """One cache holding every card, both looks (drawn once for the module)."""
    cache = ArtCache()
    for contrast in (False, True):
        for card in all_cards():
            cache.card(card, contrast=contrast)
    return cache


def _png(data: bytes) -> Image.Image:
    assert data.startswith(PNG_SIGNATURE)
    img = Image.open(io.BytesIO(data))
    img.load()
    assert img.format == "PNG"
    return img


def test_all_cards_is_every_card_of_every_edition() -> None:
    expected = {c for e in EDITIONS.values() for c in e.deck}
    cards = all_cards()
    assert set(cards) == expected
    assert len(cards) == len(expected) == 96
    kinds = {c.kind for c in cards}
    assert kinds == set(Kind)
    assert {c.icon for c in cards} == {None, *Tower}


@pytest.mark.slow
def test_every_card_renders_at_its_size_and_is_drawn_once(drawn: ArtCache) -> None:
    cards = all_cards()
    assert drawn.draws == 2 * len(cards)
    for contrast in (False, True):
        for card in cards:
            img = drawn.card(card, contrast=contrast)
            assert img.size == (CARD_W, card_height(CARD_W)) == (120, 180)
            assert img.mode == "RGBA"
            assert drawn.card(card, contrast=contrast) is img
    assert drawn.draws == 2 * len(cards)  # every second call came from the cache
    assert drawn.bytes == 2 * len(cards) * 120 * 180 * 4


def test_other_sizes_are_drawn_separately() -> None:
    cache = ArtCache()
    small = cache.card(Card.parse("R7"), width=60)
    assert small.size == (60, 90)
    assert cache.card(Card.parse("R7")).size == (120, 180)
    assert cache.draws == 2


def test_distinct_cards_give_distinct_pixels(drawn: ArtCache) -> None:
    for contrast in (False, True):
        seen: dict[bytes, str] = {}
        for card in all_cards():
            data = drawn.card(card, contrast=contrast).tobytes()
            assert data not in seen, f"{card.code} looks like {seen.get(data)}"
            seen[data] = card.code
    normal = drawn.card(Card.parse("R7")).tobytes()
    assert drawn.card(Card.parse("R7"), contrast=True).tobytes() != normal


def _white_mask(img: Image.Image) -> bytes:
    """Where the card is (nearly) white: its border, disc, markers and letters, not the
    colour field. Two masks differ only by shapes, never by hue."""
    r, g, b = (band.point(lambda v: 255 if v > 225 else 0) for band in img.convert("RGB").split())
    return ImageChops.multiply(ImageChops.multiply(r, g), b).tobytes()


@pytest.mark.parametrize("rest", ["7", "1U", "+2", "S", "R", "G", "0", "9"])
def test_colours_differ_in_shape_not_only_in_hue(drawn: ArtCache, rest: str) -> None:
    """Colour-blind safety: the four colours of one card differ in grayscale and in where
    white is drawn (the corner marker's shape and letter)."""
    for contrast in (False, True):
        imgs = [drawn.card(Card.parse(c + rest), contrast=contrast) for c in "RBGY"]
        grays = [i.convert("L").tobytes() for i in imgs]
        masks = [_white_mask(i) for i in imgs]
        for a, b in combinations(range(4), 2):
            assert grays[a] != grays[b]
            assert masks[a] != masks[b]


def test_icon_cards_differ_from_plain_ones_in_shape(drawn: ArtCache) -> None:
    for code in ("R1U", "B2N", "G3O", "Y4!"):
        icon = drawn.card(Card.parse(code))
        plain = drawn.card(Card.parse(code[:2]))
        assert _white_mask(icon) != _white_mask(plain)


def test_towers_and_back() -> None:
    cache = ArtCache()
    seen = set()
    for contrast in (False, True):
        for tower in Tower:
            for held in (True, False):
                img = cache.tower(tower, held=held, contrast=contrast)
                assert img.size == (100, tower_height(100)) == (100, 130)
                assert cache.tower(tower, held=held, contrast=contrast) is img
                seen.add(img.tobytes())
        back = cache.back(contrast=contrast)
        assert back.size == (120, 180)
        assert cache.back(contrast=contrast) is back
    assert len(seen) == 16
    assert cache.draws == 18
    # the module-level helpers use the process's cache
    assert art.tower_image(Tower.U, True) is art.tower_image(Tower.U, True)
    assert art.card_back() is art.card_back()
    assert art.card_image(Card.parse("W")) is art.card_image(Card.parse("W"))


def test_lru_is_bounded_and_counts_bytes() -> None:
    cache = ArtCache(max_items=3)
    for code in ("R1", "R2", "R3", "R4", "R5"):
        cache.card(Card.parse(code))
    assert len(cache) == 3
    assert cache.bytes == 3 * 120 * 180 * 4
    cache.card(Card.parse("R5"))
    assert cache.draws == 5
    cache.card(Card.parse("R1"))  # dropped: drawn again
    assert cache.draws == 6
    cache.clear()
    assert len(cache) == 0 and cache.bytes == 0


def test_disk_cache_serves_a_second_instance(tmp_path: Path) -> None:
    first = ArtCache(tmp_path)
    img = first.card(Card.parse("B+2"), contrast=True)
    first.tower(Tower.BANG, held=False)
    assert (first.draws, first.disk_writes, first.disk_hits) == (2, 2, 0)
    files = sorted(p.name for p in (tmp_path / f"art-{ART_VERSION}").iterdir())
    assert files == ["card-Bp2-hc-120.png", "tower-x-tray-n-100.png"]
    second = ArtCache(tmp_path)  # as a new process would
    again = second.card(Card.parse("B+2"), contrast=True)
    assert (second.draws, second.disk_hits) == (0, 1)
    assert again.tobytes() == img.tobytes() and again.size == img.size
    assert second.tower(Tower.BANG, held=False).size == (100, 130)
    assert second.draws == 0


def test_disk_cache_makes_a_missing_directory(tmp_path: Path) -> None:
    cache = ArtCache(tmp_path / "not" / "yet")
    cache.back()
    assert cache.disk_writes == 1
    assert (tmp_path / "not" / "yet" / f"art-{ART_VERSION}" / "back-back-n-120.png").is_file()


def test_disk_cache_redraws_a_damaged_file(tmp_path: Path, caplog: pytest.LogCaptureFixture
                                           ) -> None:
    ArtCache(tmp_path).card(Card.parse("G5"))
    (tmp_path / f"art-{ART_VERSION}" / "card-G5-n-120.png").write_bytes(b"not a png")
    cache = ArtCache(tmp_path)
    with caplog.at_level(logging.WARNING):
        img = cache.card(Card.parse("G5"))
    assert img.size == (120, 180) and cache.draws == 1 and cache.disk_hits == 0


def test_unwritable_disk_cache_falls_back_to_memory(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    cache = ArtCache(blocker / "cache")  # cannot be made: a file is in the way
    with caplog.at_level(logging.WARNING, logger="cogs.uno.art._cache"):
        first = cache.card(Card.parse("R7"))
        cache.card(Card.parse("R8"))
        cache.tower(Tower.U, held=True)
    assert first.size == (120, 180)
    assert cache.draws == 3 and cache.disk_writes == 0
    assert cache.disk_dir is None
    warnings = [r for r in caplog.records if "disk cache" in r.getMessage()]
    assert len(warnings) == 1
    assert cache.card(Card.parse("R7")) is first


@pytest.mark.slow
def test_hand_image_sizes_rows_and_determinism() -> None:
    cache = ArtCache()
    cards = sorted(all_cards())[:7]
    one = hand_image(cards, None, cache=cache)
    img = _png(one)
    assert img.size == (2 * 12 + 7 * 120 + 6 * HAND_GAP, 2 * 12 + 180)
    assert hand_image(cards, None, cache=cache) == one
    assert hand_image(cards, None, cache=ArtCache()) == one  # not an accident of the cache
    assert img.mode == "P"  # 256 colours by default: smaller and faster
    exact = _png(hand_image(cards, None, cache=cache, exact=True))
    assert exact.mode == "RGBA" and exact.size == img.size
    many = [all_cards()[i % 96] for i in range(0, 30 * 7, 7)]
    big = _png(hand_image(many, set(many[:5]), cache=cache))
    assert big.width == 2 * 12 + 10 * 120 + 9 * HAND_GAP
    assert big.height > 3 * 180 and big.height < 3 * 260
    empty = _png(hand_image([], set(), cache=cache))
    assert empty.width > 0 and empty.height > 0


def test_playable_cards_are_raised_and_framed() -> None:
    """Marked by position and a frame, not by colour: the playable card's opaque pixels
    start higher than an unplayable one's, and a frame widens it."""
    cache = ArtCache()
    cards = [Card.parse("R7"), Card.parse("B3")]
    img = _png(hand_image(cards, {cards[0]}, cache=cache))
    alpha = img.convert("RGBA").getchannel("A")
    col_w = 120 + HAND_GAP
    playable = alpha.crop((0, 0, 12 + col_w - 4, img.height)).getbbox()
    other = alpha.crop((12 + col_w, 0, img.width, img.height)).getbbox()
    assert playable is not None and other is not None
    assert playable[1] < other[1] - 10  # raised
    assert playable[3] - playable[1] > 180 + 8  # framed, with the arrow under it
    assert hand_image(cards, {cards[0]}, cache=cache) != hand_image(cards, None, cache=cache)


def _table() -> TableScene:
    return TableScene(
        top=Card.parse("W+4"), color=Color.GREEN, turn=2, direction=-1, has_towers=True,
        seats=(SeatScene("Ann", 7), SeatScene("Ben", 1, uno=True),
               SeatScene("Chloé with a very long name indeed", 12, cpu=True),
               SeatScene("Дмитрий", 3)),
        towers=((Tower.U, 0), (Tower.N, None), (Tower.O, 2), (Tower.BANG, 0)),
        draw_count=40, title="UNO Power Grab: round 3",
    )


@pytest.mark.slow
def test_table_image_is_a_deterministic_png() -> None:
    view = _table()
    data = table_image(view, cache=ArtCache())
    img = _png(data)
    assert 600 <= img.width <= 1200 and 300 <= img.height <= 900
    assert table_image(view, cache=ArtCache()) == data
    assert table_image(dataclasses.replace(view, turn=0)) != data
    assert table_image(dataclasses.replace(view, direction=1)) != data
    contrast = _png(table_image(dataclasses.replace(view, contrast=True)))
    assert contrast.size == img.size


def test_table_image_without_towers_and_with_ten_seats() -> None:
    seats = tuple(SeatScene(f"P{i}", i) for i in range(10))
    view = TableScene(top=Card.parse("R5"), seats=seats, turn=9, draw_count=1)
    img = _png(table_image(view))
    assert img.height > 10 * 38


def test_table_pieces_land_where_they_belong() -> None:
    """A table is its cached base with cached pieces pasted on it: a change to one seat
    changes the pixels of that seat's row and nothing else, and a table drawn from empty
    piece caches is the same image as one drawn from warm ones."""
    view = _table()
    before = table_canvas(view, cache=ArtCache())
    seats = list(view.seats)
    seats[2] = dataclasses.replace(seats[2], cards=11)
    after = table_canvas(dataclasses.replace(view, seats=tuple(seats)), cache=ArtCache())
    box = ImageChops.difference(before.convert("RGB"), after.convert("RGB")).getbbox()
    assert box is not None
    row_top = _compose._ROWS_TOP + 2 * (_compose.ROW_H + 6)
    assert row_top <= box[1] and box[3] <= row_top + _compose.ROW_H
    assert box[0] >= _compose.SEATS_X
    for cached in (_compose._MASKS, _compose._fit, _compose._base, _compose._chip,
                   _compose._row_back, _compose._count_card, _compose._badge, _compose._tag):
        cached.cache_clear()
    assert table_canvas(view, cache=ArtCache()).tobytes() == before.tobytes()


def test_table_picture_takes_a_fixed_palette_faithfully() -> None:
    """Table pictures map their pixels to one palette made per look (fast): the frame's
    corners stay transparent and every opaque pixel stays close to the exact picture."""
    for contrast in (False, True):
        view = dataclasses.replace(_table(), contrast=contrast)
        fast = _png(table_image(view, cache=ArtCache()))
        exact = _png(table_image(view, cache=ArtCache(), exact=True)).convert("RGBA")
        assert fast.mode == "P" and fast.info.get("transparency") == 255
        fast = fast.convert("RGBA")
        assert fast.getpixel((0, 0))[3] == 0 and exact.getpixel((0, 0))[3] == 0
        centre = (fast.width // 2, fast.height // 2)
        assert fast.getpixel(centre)[3] == 255
        opaque = exact.getchannel("A").point(lambda a: 255 if a == 255 else 0)
        diff = ImageChops.difference(fast.convert("RGB"), exact.convert("RGB")).convert("L")
        worst = ImageChops.multiply(diff, opaque).getextrema()[1]
        assert worst < 48, f"a pixel is {worst} off its colour"


def test_table_words_change_the_picture_and_not_its_size() -> None:
    view = _table()
    french = TableWords(top_card="Carte du talon", draw_pile="Pioche", players="Joueurs",
                        cards="{n} cartes", colour="couleur : {color}", green="vert")
    english = _png(table_image(view, cache=ArtCache()))
    translated = _png(table_image(dataclasses.replace(view, words=french), cache=ArtCache()))
    assert english.size == translated.size
    assert ImageChops.difference(english.convert("RGB"), translated.convert("RGB")).getbbox()
    assert french.count(1) == "1 card" and french.count(5) == "5 cartes"
    assert french.color_name(Color.GREEN) == "vert"


def test_table_view_from_a_real_game() -> None:
    for name in EDITIONS:
        game = Game.new(["a", "b", "c"], edition=name, seed=3,
                        names={"a": "Ann", "b": "Ben", "c": "Cat"})
        game.start()
        public = game.public_view()
        view = TableScene.from_public_view(public, cpu={"c"}, title=game.edition.title)
        assert [s.name for s in view.seats] == ["Ann", "Ben", "Cat"]
        assert [s.cards for s in view.seats] == [p["cards"] for p in public["players"]]
        assert view.seats[2].cpu and not view.seats[0].cpu
        assert view.top == game.top
        assert view.turn == game.players.index(game.turn)
        assert view.has_towers is EDITIONS[name].towers
        assert len(view.towers) == (4 if view.has_towers else 0)
        _png(table_image(view))


def test_table_view_refuses_bad_indexes() -> None:
    seats = (SeatScene("a", 1), SeatScene("b", 2))
    with pytest.raises(ValueError):
        TableScene(top=None, seats=seats, turn=2)
    with pytest.raises(ValueError):
        TableScene(top=None, seats=seats, direction=0)
    with pytest.raises(ValueError):
        TableScene(top=None, seats=seats, towers=((Tower.U, 5),))


def test_table_view_has_no_field_that_can_carry_a_hand() -> None:
    """Only the top card is a card (``Card | None``): no other field's type mentions Card,
    so nothing can hold a list, set or tuple of cards."""
    def cards_in(tp: object) -> list[object]:
        found: list[object] = []
        if tp is Card:
            found.append(tp)
        for arg in typing.get_args(tp):
            found += cards_in(arg)
        return found

    for cls in (TableScene, SeatScene):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            tp = hints[f.name]
            if cls is TableScene and f.name == "top":
                assert tp == Card | None
            else:
                assert not cards_in(tp), f"{cls.__name__}.{f.name} holds a card"
    assert {f.name for f in dataclasses.fields(SeatScene)} == {"name", "cards", "uno", "cpu"}


def test_names_are_shown_in_the_fonts_characters() -> None:
    assert printable("Chloé") == "Chloe"
    assert printable("Straße × 2") == "Strasse x 2"
    assert printable("Дмитрий") == "?"


def test_the_art_package_imports_nothing_from_discord() -> None:
    root = Path(art.__file__).parent
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n.split(".")[0] == "discord" for n in names), path.name


@pytest.mark.slow
def test_sheet_writes_every_card(tmp_path: Path) -> None:
    from cogs.uno.art import sheet

    out = tmp_path / "sheet.png"
    assert sheet.main([str(out), "--examples"]) == 0
    img = Image.open(out)
    assert img.width > 1000 and img.height > 1000
    _png((tmp_path / "hand.png").read_bytes())
    _png((tmp_path / "table.png").read_bytes())


PHONE_W = 390
"""A phone's width in CSS pixels (390 × 844): a table picture is shown that wide there."""
READABLE_PX = 12
"""The smallest font size, in CSS pixels, a name is read at on a phone."""


def _written(img: Image.Image, other: Image.Image) -> list[tuple[int, int, int, int]]:
    """The boxes where ``img`` and ``other`` differ, one per group of touching letters
    (a group: pixels closer than 12 columns, in rows closer than 3)."""
    diff = ImageChops.difference(img.convert("RGB"), other.convert("RGB")).convert("L")
    mask = diff.point(lambda v: 255 if v > 127 else 0)  # half covered: the edge
    rows = [y for y in range(mask.height)
            if mask.crop((0, y, mask.width, y + 1)).getbbox() is not None]
    bands: list[list[int]] = []
    for y in rows:
        if bands and y - bands[-1][-1] < 3:
            bands[-1].append(y)
        else:
            bands.append([y])
    boxes = []
    for band in bands:
        strip = mask.crop((0, band[0], mask.width, band[-1] + 1))
        cols = [x for x in range(strip.width)
                if strip.crop((x, 0, x + 1, strip.height)).getbbox() is not None]
        runs: list[list[int]] = []
        for x in cols:
            if runs and x - runs[-1][-1] < 12:
                runs[-1].append(x)
            else:
                runs.append([x])
        for run in runs:
            box = strip.crop((run[0], 0, run[-1] + 1, strip.height)).getbbox()
            assert box is not None
            boxes.append((run[0], band[0] + box[1], run[-1] + 1, band[0] + box[3]))
    return boxes


def _name_sizes(view: TableScene, seat: int) -> list[float]:
    """The font size of every place seat ``seat``'s name is written, in CSS pixels once
    the picture is shown ``PHONE_W`` wide: the height of its capitals (the picture with
    the name "HHHH" against "IIII", letters as tall), through the font's capital height."""
    def named(name: str) -> Image.Image:
        seats = list(view.seats)
        seats[seat] = dataclasses.replace(seats[seat], name=name)
        return table_canvas(dataclasses.replace(view, seats=tuple(seats)), cache=ArtCache())
    img = named("HHHH")
    _x0, top, _x1, bottom = font(400).getbbox("H")
    capital = (bottom - top) / 400
    boxes = _written(img, named("IIII"))
    assert boxes, "the name is written nowhere"
    return [(b[3] - b[1]) / capital * PHONE_W / img.width for b in boxes]


@pytest.mark.parametrize("seats", [4, 10])
def test_names_are_readable_on_a_phone(seats: int) -> None:
    """On a phone (390 × 844) the table's picture is shown 390 pixels wide: every place a
    player's name is written (their seat; a tower they hold) is at least 12 px there, the
    turn's row and the others, with towers (Power Grab, four seats) and without (a
    classic table of ten). Before, a name was some 7 px (16 px in a picture 880 wide)."""
    if seats == 4:
        view = _table()
    else:
        view = TableScene(top=Card.parse("R5"), seats=tuple(SeatScene(f"P{i}", i)
                                                            for i in range(10)),
                          turn=3, draw_count=1)
    for seat in range(seats):
        if view.seats[seat].cpu:  # (its CPU tag moves with the name: not a letter)
            continue
        sizes = _name_sizes(view, seat)
        assert min(sizes) >= READABLE_PX, (seat, [round(s, 1) for s in sizes])
