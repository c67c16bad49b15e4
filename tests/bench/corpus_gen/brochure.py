"""A visitor brochure: a main text column and shaded side boxes in a narrow right column."""

from __future__ import annotations

from app.ingest._mupdf import pymupdf

from .render import Flow, Style, new_document, put, save

FILE = "kestrel_point_brochure.pdf"
W, H = 595.0, 842.0
MAIN = (48.0, 360.0)
SIDE = (380.0, 547.0)

TITLE = "Kestrel Point Lighthouse and the Cliff Path"

MAIN_TEXT: list[tuple[str, list[str]]] = [
    (
        "Welcome to Kestrel Point",
        [
            "Standing on a granite headland at the mouth of the Arran Sound, Kestrel Point "
            "lighthouse has guided ships past the Skerry reef for over a century and a half. "
            "Today the tower, the keepers' cottages and the cliff path around the headland are "
            "cared for by the Kestrel Point Trust, a small charity run largely by volunteers.",
            "This leaflet helps you plan a visit: what to see in the tower and the exhibition, how "
            "to walk the cliff path safely, and how to reach us without a car.",
        ],
    ),
    (
        "A short history",
        [
            "The tower was designed by the engineer Margaret Fennick and first lit in 1871, after "
            "the loss of the emigrant ship Corran with 112 people on the reef two winters before. "
            "Its light was first produced by a paraffin lamp magnified by a great glass lens made "
            "of 96 prisms, which still turns in the lantern today.",
            "Three keepers and their families lived at the point until the light was automated in "
            "1989. The last principal keeper, Donald McRae, wrote a logbook entry every four hours "
            "for twenty-two years; pages of his logbook are on show in the exhibition.",
            "The fog signal, a pair of compressed-air horns that could be heard twelve miles out to "
            "sea, was switched off in 2005 and is now sounded only once a year, on the first "
            "Sunday of August, for the Point's open day.",
        ],
    ),
    (
        "Inside the tower",
        [
            "A climb of 117 steps takes you past the keepers' store rooms to the lantern gallery, "
            "where on a clear day you can see across the Sound to the hills of Morvane. Guided "
            "climbs leave every half hour and last about forty minutes; groups are limited to "
            "twelve people because the gallery is narrow.",
            "The ground-floor exhibition tells the story of the keepers and of the ships lost on "
            "the reef, with a working model of the lens mechanism that children can turn by hand.",
        ],
    ),
    (
        "The cliff path",
        [
            "The cliff path is a waymarked loop of 9.5 kilometres that starts at the car park, "
            "follows the cliff edge around the headland and returns through Tollan woods. Most "
            "walkers take about three hours. The path is uneven and steep in places, with a "
            "stepped descent to Seal Cove, so wear walking boots and take water.",
            "At low tide a shingle causeway links the headland to Gull Island, home to a colony of "
            "puffins from May to July. The island can only be visited on foot across the causeway.",
            "The cliff path is open all year, but parts of it close after heavy rain when the "
            "ground above Seal Cove becomes unstable. Closures are posted at the car park.",
        ],
    ),
    (
        "Wildlife",
        [
            "Grey seals haul out on the rocks below Seal Cove throughout the year, and their pups "
            "are born there in November and December. A mother may abandon a pup if she is "
            "disturbed, so please stay at least fifty metres away and never come between a pup "
            "and the sea.",
            "From the gallery, volunteers keep a record of passing whales and dolphins. Minke "
            "whales are seen most often in late summer, and a pod of bottlenose dolphins visits "
            "the Sound in most years.",
        ],
    ),
    (
        "Eating and shopping",
        [
            "The Lamp Room cafe in the former oil store serves soup, sandwiches and home baking, "
            "and the shop sells maps, books and local crafts. All profits go to the upkeep of the "
            "tower.",
        ],
    ),
]

BOXES: list[list[tuple[str, list[str]]]] = [
    [
        (
            "Opening times",
            [
                "Tower and exhibition: 1 April to 31 October, daily 10:00 to 17:00, last climb at "
                "16:15.",
                "Winter: weekends only, 11:00 to 15:00; the tower is closed in high winds.",
            ],
        ),
        (
            "Tickets",
            [
                "Adults 7.50, children aged 5 to 16 3.50, under-fives go free. A family ticket for "
                "two adults and up to three children costs 19.",
                "Trust members enter free all year.",
            ],
        ),
    ],
    [
        (
            "Tide safety",
            [
                "The causeway to Gull Island floods quickly. Cross only within two hours either side "
                "of low water, and check the tide table at the car park before you set out.",
                "If you are cut off, stay on the island and call the coastguard on 999; do not try "
                "to wade back.",
            ],
        ),
        (
            "Dogs",
            [
                "Dogs on a short lead are welcome on the cliff path and in the cafe garden. Only "
                "assistance dogs may enter the tower and the exhibition.",
            ],
        ),
    ],
    [
        (
            "Getting here",
            [
                "By bus: route 42 from Harbour Street in Portcullen to the lighthouse road end, "
                "every two hours in summer; then a 20-minute walk.",
                "By car: follow the brown signs from the A871. The car park has 60 spaces and costs "
                "3 for the day; the ticket office refunds it with a tower ticket.",
            ],
        ),
        (
            "Accessibility",
            [
                "The exhibition, cafe and shop are on the ground floor with level access, and an "
                "accessible toilet is beside the cafe. The tower itself can only be reached by its "
                "stairs. A virtual climb plays on a screen in the exhibition.",
            ],
        ),
    ],
]

BODY = Style("helv", 10.0, 13.5, after=5.0)
HEAD = Style("hebo", 13.0, 16.0, before=6.0, after=4.0, color=(0.05, 0.25, 0.45))
BOX_TITLE = Style("hebo", 10.5, 13.0, after=3.0, color=(0.05, 0.25, 0.45))
BOX_BODY = Style("helv", 9.0, 11.5, after=4.0)


def _columns(pno: int) -> list[pymupdf.Rect]:
    top = 150.0 if pno == 0 else 60.0
    return [pymupdf.Rect(MAIN[0], top, MAIN[1], H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    put(page, MAIN[0], H - 30, f"Kestrel Point Trust  |  {n}", Style("helv", 8))


def build(path: str) -> None:
    doc = new_document(TITLE, "Kestrel Point Trust", "Visitor leaflet")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    page.draw_rect(pymupdf.Rect(0, 0, W, 120), color=None, fill=(0.05, 0.25, 0.45))
    put(page, MAIN[0], 70, TITLE, Style("hebo", 22, 26, color=(1, 1, 1)))
    put(
        page,
        MAIN[0],
        98,
        "Visitor guide: tower, exhibition, cliff path and wildlife",
        Style("helv", 12, 15, color=(1, 1, 1)),
    )
    for heading, paras in MAIN_TEXT:
        flow.heading(heading, HEAD)
        for p in paras:
            flow.para(p, BODY)
    for pno, boxes in enumerate(BOXES):
        while pno >= doc.page_count:
            flow.new_page()
        page = doc[pno]
        y = 150.0 if pno == 0 else 60.0
        for title, paras in boxes:
            y = (
                flow.box(
                    page, pymupdf.Rect(SIDE[0], y, SIDE[1], H), title, paras, BOX_BODY, BOX_TITLE
                )
                + 14
            )
    save(doc, path)
