"""A long generated document for summaries: chapters with subsections and an outline.

``make_long_pdf(path, pages=100)`` writes ``CHAPTERS`` top-level chapters (each with three
subsections) over ``pages`` pages of prose about each chapter's own topic; its outline
(PDF bookmarks) gives the section paths. Deterministic (seeded), no network.
"""

from __future__ import annotations

import random
from pathlib import Path

from app.ingest._mupdf import pymupdf

TOPICS: list[tuple[str, list[str]]] = [
    ("Soil and Compost", ["soil", "compost", "humus", "worms", "mulch", "nitrogen", "clay"]),
    ("Watering Systems", ["irrigation", "drip lines", "sprinklers", "rain barrels", "valves"]),
    ("Fruit Trees", ["apple trees", "pruning", "grafting", "orchards", "blossoms", "rootstock"]),
    ("Vegetable Beds", ["tomatoes", "raised beds", "seedlings", "lettuce", "crop rotation"]),
    ("Garden Pests", ["aphids", "slugs", "ladybirds", "netting", "caterpillars", "traps"]),
    ("Greenhouses", ["glazing", "ventilation", "heaters", "benches", "humidity", "shading"]),
    ("Lawn Care", ["mowing", "grass seed", "moss", "aeration", "scarifying", "edging"]),
    ("Flower Borders", ["perennials", "bulbs", "deadheading", "colour schemes", "dahlias"]),
    ("Garden Tools", ["spades", "secateurs", "sharpening", "wheelbarrows", "hoes", "rust"]),
    ("Wildlife Ponds", ["pond liners", "frogs", "oxygenating plants", "dragonflies", "algae"]),
    ("Herb Gardens", ["basil", "rosemary", "thyme", "drying herbs", "containers", "mint"]),
    ("Winter Tasks", ["frost", "fleece", "leaf mould", "bare-root planting", "storing tubers"]),
]
CHAPTERS = len(TOPICS)
SUBSECTIONS = ("Basics", "Methods", "Common Problems")

_TEMPLATES = [
    "Good {a} depends on how carefully you manage {b} through the season.",
    "Most gardeners find that {a} improves when {b} is checked every week.",
    "The main reason to plan {a} early is that {b} takes months to settle.",
    "Experienced growers treat {a} and {b} as two parts of the same job.",
    "A common mistake is to ignore {b} until {a} has already failed.",
    "In small gardens {a} can be handled by hand, while {b} needs more care.",
    "Records of {a} kept over several years show how much {b} matters.",
    "When {b} is poor, no amount of extra {a} will make up for it.",
    "Many beginners ask whether {a} is worth the effort compared with {b}.",
    "The best results with {a} come from patience and attention to {b}.",
]


def _paragraph(rng: random.Random, words: list[str]) -> str:
    out = []
    for _ in range(rng.randint(3, 5)):
        a, b = rng.sample(words, 2)
        out.append(rng.choice(_TEMPLATES).format(a=a, b=b))
    text = " ".join(out)
    return text[0].upper() + text[1:]


def make_long_pdf(path: Path | str, pages: int = 100, *, seed: int = 7) -> Path:
    """A ``pages``-page gardening handbook of ``CHAPTERS`` chapters, with an outline."""
    path = Path(path)
    rng = random.Random(seed)
    doc = pymupdf.open()
    toc: list[list[object]] = []
    starts = [round(i * pages / CHAPTERS) for i in range(CHAPTERS + 1)]
    for pno in range(pages):
        chapter = max(i for i in range(CHAPTERS) if starts[i] <= pno)
        first = starts[chapter]
        span = starts[chapter + 1] - first
        sub = min(len(SUBSECTIONS) - 1, (pno - first) * len(SUBSECTIONS) // max(span, 1))
        title, words = TOPICS[chapter]
        page = doc.new_page(width=595, height=842)
        y = 72.0
        if pno == first:
            heading = f"{chapter + 1} {title}"
            page.insert_text((72, y + 16), heading, fontsize=16, fontname="hebo")
            toc.append(
                [1, heading, pno + 1, {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(72, y)}]
            )
            y += 30
        starts_sub = pno == first or sub != min(
            len(SUBSECTIONS) - 1, (pno - 1 - first) * len(SUBSECTIONS) // max(span, 1)
        )
        if starts_sub:
            heading = f"{chapter + 1}.{sub + 1} {SUBSECTIONS[sub]}"
            page.insert_text((72, y + 12), heading, fontsize=12, fontname="hebo")
            toc.append(
                [2, heading, pno + 1, {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(72, y)}]
            )
            y += 24
        while y < 700:
            rect = pymupdf.Rect(72, y, 523, y + 160)
            spare = page.insert_textbox(rect, _paragraph(rng, words), fontsize=10, fontname="helv")
            if spare < 0:
                break
            y = rect.y1 - spare + 10
    doc.set_toc(toc)
    doc.set_metadata({"title": "The Practical Garden Handbook", "producer": "summary_factory"})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path
