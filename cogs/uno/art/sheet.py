"""Write a contact sheet of every card, tower and card back, normal and high contrast.

    python -m cogs.uno.art.sheet docs/art/sheet.png
    python -m cogs.uno.art.sheet docs/art/sheet.png --examples   # also hand.png, table.png

Each card is labelled with its code. ``--examples`` writes an example hand (playable cards
marked) and an example table beside the sheet.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image, ImageDraw

from engine.cards import Card, Color, Tower

from . import (
    ArtCache,
    SeatScene,
    TableScene,
    all_cards,
    card_height,
    hand_image,
    table_image,
    tower_height,
)
from ._draw import font

PER_ROW = 16
GAP = 10
LABEL = 18


def sheet(cache: ArtCache | None = None, *, width: int = 96) -> Image.Image:
    """Every card (both looks), the towers (held and in the tray, both looks), the back."""
    art = cache if cache is not None else ArtCache()
    cards = all_cards()
    ch = card_height(width)
    tw = width
    th = tower_height(tw)
    sections: list[tuple[str, list[tuple[Image.Image, str]]]] = []
    for contrast in (False, True):
        look = "high contrast" if contrast else "normal"
        items = [(art.card(c, contrast=contrast, width=width), c.code) for c in cards]
        items.append((art.back(contrast=contrast, width=width), "back"))
        sections.append((f"Cards ({look})", items))
        towers = [(art.tower(t, held=held, contrast=contrast, width=tw),
                   f"{t.value} {'held' if held else 'tray'}")
                  for held in (True, False) for t in Tower]
        sections.append((f"Towers ({look})", towers))
    label_font = font(13)
    title_font = font(18)
    row_h = max(ch, th) + LABEL + GAP
    height = GAP
    for _title, items in sections:
        height += 28 + (-(-len(items) // PER_ROW)) * row_h
    img = Image.new("RGBA", (GAP + PER_ROW * (width + GAP), height + GAP), (54, 57, 63, 255))
    d = ImageDraw.Draw(img)
    y = GAP
    for title, items in sections:
        d.text((GAP, y + 2), title, font=title_font, fill=(240, 240, 240))
        y += 28
        for i, (im, label) in enumerate(items):
            r, c = divmod(i, PER_ROW)
            x = GAP + c * (width + GAP)
            yy = y + r * row_h
            img.alpha_composite(im, (x, yy))
            tw_ = d.textlength(label, font=label_font)
            d.text((x + (width - tw_) / 2, yy + im.height + 2), label, font=label_font,
                   fill=(220, 220, 220))
        y += (-(-len(items) // PER_ROW)) * row_h
    return img


def example_hand() -> tuple[list[Card], set[Card]]:
    hand = [Card.parse(c) for c in ("R1U", "R7", "B+2", "BS", "G6", "G3O", "YR", "Y4!", "RG",
                                    "W+4")]
    playable = {Card.parse(c) for c in ("R1U", "R7", "RG", "W+4")}
    return hand, playable


def example_table() -> TableScene:
    return TableScene(
        top=Card.parse("WG"), color=Color.BLUE, turn=1, direction=1, has_towers=True,
        seats=(SeatScene("Alice", 11), SeatScene("Ben", 5), SeatScene("Chloé", 1, uno=True),
               SeatScene("Computer 1", 8, cpu=True)),
        towers=((Tower.U, 0), (Tower.N, None), (Tower.O, 3), (Tower.BANG, 0)),
        draw_count=61, title="UNO Power Grab: round 2",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to write the sheet (PNG)")
    parser.add_argument("--examples", action="store_true",
                        help="also write hand.png and table.png beside it")
    args = parser.parse_args(argv)
    cache = ArtCache()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet(cache).save(args.out, format="PNG", optimize=True)
    written = [args.out]
    if args.examples:
        hand, playable = example_hand()
        (args.out.parent / "hand.png").write_bytes(hand_image(hand, playable, cache=cache))
        (args.out.parent / "table.png").write_bytes(table_image(example_table(), cache=cache))
        written += [args.out.parent / "hand.png", args.out.parent / "table.png"]
    sys.stdout.write("".join(f"wrote {p}\n" for p in written))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
