"""A long book-like PDF (A5, 60+ pages): a practical orchard handbook with prose chapters and a
register of apple varieties, one per page, as pomological handbooks have.

The register is generated from seeded choices, so it is varied but identical on every run.
"""

from __future__ import annotations

import random

from app.ingest._mupdf import pymupdf

from .render import Flow, Style, new_document, put, save

FILE = "small_orchard_handbook.pdf"
W, H = 420.0, 595.0
M = 46.0
TITLE = "The Small Orchard: A Practical Handbook"

BODY = Style("tiro", 10.0, 13.0, after=5.0, indent=12.0)
H1 = Style("tibo", 15.0, 19.0, before=10.0, after=8.0)
H2 = Style("tibo", 11.5, 14.0, before=6.0, after=4.0)
ENTRY = Style("tiro", 10.0, 13.0, after=6.0)

CHAPTERS: list[tuple[str, list[str]]] = [
    (
        "Chapter 1. Choosing a site",
        [
            "Fruit trees forgive poor soil more readily than a poor position. Above all they need "
            "sun: an apple tree that stands in shade for half the day will flower thinly and its "
            "fruit will never colour or sweeten properly.",
            "Cold air flows downhill like water and settles in hollows. A garden at the bottom of a "
            "slope is a frost pocket, and a late frost at blossom time can destroy a whole year's "
            "crop in a single night. If you must plant low down, choose late-flowering varieties and "
            "leave a gap in the lowest hedge so that the cold air can drain away.",
            "Wind does as much harm as frost. Bees will not fly in a strong wind, so blossom goes "
            "unpollinated, and young trees rock loose in the ground. A hedge or a permeable fence "
            "that filters the wind is better than a solid wall, which only creates eddies on its "
            "sheltered side.",
            "Most fruit grows well in any reasonably deep, well-drained soil. Waterlogging is the one "
            "thing few trees survive; if water stands in a planting hole for more than a day after "
            "rain, plant on a low mound or choose another spot.",
        ],
    ),
    (
        "Chapter 2. Rootstocks and tree size",
        [
            "Almost every apple tree you can buy is two plants joined together: a named variety "
            "grafted onto a rootstock. The variety decides what the fruit is like, but the rootstock "
            "decides how large the tree grows, how soon it crops and how long it lives.",
            "M27 is the most dwarfing rootstock in common use and produces a tree of about 1.5 "
            "metres, suitable for a large pot or a step-over edging. It needs a permanent stake and "
            "good soil all its life. M9 gives a tree of about 2 to 2.5 metres and is the standard "
            "choice for small gardens and trained forms.",
            "MM106 is the most widely planted semi-vigorous rootstock: it grows a tree of 3.5 to 5 "
            "metres and tolerates a wide range of soils. For a large traditional tree that will "
            "shade a picnic in fifty years' time, choose M25, which can reach 6 metres or more.",
            "Pears are usually grafted onto quince roots. Quince A is moderately vigorous, while "
            "Quince C is more dwarfing and brings trees into bearing a year or two sooner.",
        ],
    ),
    (
        "Chapter 3. Planting",
        [
            "Bare-root trees are planted while dormant, between November and March, whenever the "
            "ground is neither frozen nor waterlogged. Container-grown trees can go in at any time "
            "of year, but need careful watering through their first summer.",
            "Dig a square hole as deep as the roots and three times as wide. A square hole matters "
            "more than it seems: in heavy clay, roots tend to circle inside a round hole as if it "
            "were a pot. Spread the roots out, and make sure the graft union, the knobbly joint on "
            "the stem, ends up at least a hand's width above the soil.",
            "Drive a stake in on the side of the prevailing wind before you backfill, so that you do "
            "not drive it through the roots. Tie the tree low down, about a third of the way up the "
            "stem; a tree allowed to flex a little above the tie grows a sturdier trunk.",
            "Keep a circle of one metre around each young tree free of grass for at least the first "
            "three years. Grass competes fiercely for water and nitrogen, and a tree in a lawn can "
            "grow at half the rate of one in clear soil.",
        ],
    ),
    (
        "Chapter 4. Pruning apples and pears",
        [
            "Apples and pears are pruned in winter, between leaf fall and bud burst, to shape the "
            "tree and to encourage fruiting wood. Trained forms such as cordons and espaliers are "
            "pruned in summer instead, in late July or August, when the new shoots have become "
            "woody at the base.",
            "Start by removing dead, diseased and damaged wood, and any branch that crosses or rubs "
            "against another. Aim for an open, goblet-shaped centre through which light and air can "
            "reach every branch. Never remove more than a quarter of the canopy in one winter: hard "
            "pruning provokes a thicket of vigorous upright shoots, called water shoots, that bear "
            "no fruit.",
            "Most varieties carry their fruit on short spurs. A few, such as Worcester Pearmain and "
            "Irish Peach, fruit mainly at the tips of last year's shoots; if you shorten every shoot "
            "on these tip-bearers you will cut off most of next year's crop.",
        ],
    ),
    (
        "Chapter 5. Plums and cherries",
        [
            "Stone fruit must never be pruned in winter. The spores of silver leaf disease are "
            "released in autumn and winter and enter through fresh cuts, so plums, cherries and "
            "apricots are pruned only when they are in growth, between spring and midsummer.",
            "Plums often set more fruit than the branches can carry, and heavily laden branches of "
            "Victoria are notorious for snapping. Thin the fruit in early June to one every 5 to 8 "
            "centimetres, and prop up heavy branches with forked poles.",
            "Sweet cherries are eaten by birds the moment they colour. On a small tree the only "
            "reliable defence is a net, held clear of the fruit on a frame and pegged tight to the "
            "ground so that blackbirds cannot creep underneath.",
        ],
    ),
    (
        "Chapter 6. Pests and diseases",
        [
            "Codling moth is responsible for most maggoty apples. The adult moths fly in June and "
            "July, and each caterpillar tunnels into a fruit and eats its way to the core. Pheromone "
            "traps hung in the tree from mid-May catch the males and tell you when egg-laying has "
            "begun; in a small garden, several traps can reduce the damage noticeably.",
            "Apple scab shows as olive-brown blotches on leaves and corky, cracked patches on the "
            "fruit. The fungus overwinters on fallen leaves, so rake them up and compost them "
            "thoroughly in autumn, and prune to keep the canopy open and quick to dry.",
            "Canker causes sunken, flaking wounds on branches, often around a bud or an old pruning "
            "cut. Cut out infected wood back to clean, healthy tissue in dry weather and burn it. "
            "Canker is worst on wet, heavy soils, and some old varieties such as Cox's Orange Pippin "
            "are especially prone to it.",
            "Woolly aphid colonies look like tufts of cotton wool in cracks of the bark. They are "
            "mostly harmless to a healthy tree and are kept in check by a tiny parasitic wasp; "
            "brush off large colonies with a stiff brush and soapy water.",
        ],
    ),
    (
        "Chapter 7. Harvest and storage",
        [
            "An apple is ready to pick when it comes away in your hand with a gentle lift and twist. "
            "If you have to pull, it is not ready. Another sign is the colour of the pips: they turn "
            "from white to brown as the fruit ripens.",
            "Early apples do not keep and should be eaten within days of picking. Late varieties "
            "must be picked before the first hard frosts but often taste sharp at harvest; they "
            "improve over weeks or months in store as their starch turns to sugar.",
            "Store only perfect fruit: a single bruised apple can rot its neighbours. Wrap each fruit "
            "in newspaper or lay them in slatted trays so that they do not touch, and keep them "
            "somewhere dark, humid and cool, ideally between 3 and 5 degrees Celsius. A garage or "
            "shed is fine if it is free of mice and does not freeze.",
            "Pears are harvested before they are ripe, while still hard, and ripened indoors. Bring "
            "a few at a time into a warm room; they are ready when the flesh near the stalk yields "
            "to gentle pressure from a thumb.",
        ],
    ),
]

_PLACES = [
    "Ashby",
    "Bramcote",
    "Coldridge",
    "Dunmore",
    "Eversley",
    "Farleigh",
    "Glenholm",
    "Hartwell",
    "Ilsington",
    "Kelmscot",
    "Langstone",
    "Marden",
    "Netherby",
    "Oakhanger",
    "Pendle",
    "Quenby",
    "Rosedale",
    "Stanwick",
    "Tresillian",
    "Upton",
    "Wickham",
    "Yardley",
    "Alderholt",
    "Brockley",
    "Carrow",
    "Dinton",
    "Elmsett",
    "Fownhope",
    "Goring",
    "Hadlow",
]
_KINDS = ["Russet", "Pippin", "Pearmain", "Seedling", "Beauty", "Codlin", "Queen", "Nonpareil"]
_COUNTIES = [
    "Kent",
    "Devon",
    "Herefordshire",
    "Norfolk",
    "Somerset",
    "Worcestershire",
    "Suffolk",
    "Gloucestershire",
    "Cornwall",
    "Yorkshire",
    "Sussex",
    "Shropshire",
]
_RAISERS = [
    "the nurseryman",
    "the head gardener",
    "the schoolmaster",
    "the cottage gardener",
    "the parish rector",
    "the market grower",
]
_SURNAMES = [
    "Thomas Pell",
    "William Ashdown",
    "Eliza Crane",
    "John Merriot",
    "Hannah Lisle",
    "Samuel Bray",
    "Edith Maunder",
    "George Tull",
    "Martha Quaile",
    "Robert Fennel",
    "Ann Hollis",
    "Joseph Keble",
]
_FLAVOURS = [
    "a rich, nutty flavour",
    "sweet, aromatic flesh with a hint of pear",
    "crisp, juicy flesh with a sharp, lemony finish",
    "soft, honeyed flesh",
    "firm flesh with a strawberry-like aroma",
    "a balance of sugar and acid that suits both dessert and cooking",
    "dense, creamy flesh with an aniseed note",
    "very sharp juice that mellows in store",
]
_SKINS = [
    "golden skin covered in fine russet",
    "green skin flushed with crimson",
    "bright red, waxy skin",
    "yellow skin striped with orange",
    "dull green skin with brown freckles",
    "deep maroon skin with a heavy bloom",
]
_USES = [
    "a dessert apple",
    "a cooking apple that cooks to a froth",
    "a dual-purpose apple",
    "a cider apple of the bittersweet kind",
    "a cooking apple that keeps its shape when baked",
    "a dessert apple much used for juice",
]
_MONTHS = [
    "late August",
    "early September",
    "mid September",
    "late September",
    "early October",
    "mid October",
    "late October",
]
_KEEPS = [
    "does not keep beyond a fortnight",
    "keeps until November",
    "keeps until Christmas",
    "keeps until February",
    "keeps until March",
    "keeps until April if picked late",
]
_VIGOUR = ["weak", "moderately vigorous", "vigorous", "very vigorous", "compact, upright"]
_HEALTH = [
    "It is resistant to scab and mildew and does well in wet western districts.",
    "It is prone to scab in wet seasons but shows little canker.",
    "It is susceptible to canker on heavy soils.",
    "It is hardy and flowers late, so it escapes most spring frosts.",
    "It suffers badly from mildew and needs an open, airy position.",
    "It is a reliable cropper but tends to crop biennially unless thinned.",
]


def varieties(n: int = 52) -> list[dict[str, str]]:
    """The register entries: seeded, unique names, plausible attributes."""
    rng = random.Random(1871)
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n:
        name = f"{rng.choice(_PLACES)} {rng.choice(_KINDS)}"
        if name not in seen:
            seen.add(name)
            names.append(name)
    out = []
    for name in names:
        year = rng.randrange(1780, 1960)
        group = rng.randrange(1, 7)
        month = rng.randrange(len(_MONTHS))
        out.append(
            {
                "name": name,
                "county": rng.choice(_COUNTIES),
                "year": str(year),
                "raiser": f"{rng.choice(_RAISERS)} {rng.choice(_SURNAMES)}",
                "flavour": rng.choice(_FLAVOURS),
                "skin": rng.choice(_SKINS),
                "use": rng.choice(_USES),
                "month": _MONTHS[month],
                # early apples do not keep (chapter 7 says so): later picking, longer keeping
                "keeps": _KEEPS[min(len(_KEEPS) - 1, max(0, month - 1 + rng.randrange(2)))],
                "vigour": rng.choice(_VIGOUR),
                "health": rng.choice(_HEALTH),
                "group": str(group),
            }
        )
    return out


def entry_text(v: dict[str, str]) -> list[str]:
    """Three paragraphs describing one variety."""
    return [
        f"Raised in {v['county']} in {v['year']} by {v['raiser']}, it was first exhibited at a "
        f"local fruit show and spread slowly through the nurseries of the region. The "
        f"{v['name']} is {v['use']}, with {v['skin']} and {v['flavour']}.",
        f"As a tree, the {v['name']} is {v['vigour']} and flowers in pollination group "
        f"{v['group']}, so it needs a partner that flowers at the same time. Its fruit is picked "
        f"in {v['month']} and {v['keeps']}. {v['health']}",
        f"Synonyms and history: records of the {v['name']} in old nursery catalogues are "
        f"scarce, and trees sold under this name should be checked against a true specimen "
        f"before grafting.",
    ]


def _columns(pno: int) -> list[pymupdf.Rect]:
    return [pymupdf.Rect(M, 58, W - M, H - 52)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    if n > 2:
        put(page, M, 34, "The Small Orchard", Style("tiit", 8))
        put(page, W / 2 - 6, H - 28, str(n), Style("tiro", 8))


def build(path: str) -> None:
    doc = new_document(TITLE, "Harriet Coombe", "Fruit growing")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    put(page, M, 200, "The Small Orchard", Style("tibo", 26))
    put(page, M, 232, "A Practical Handbook", Style("tiro", 15))
    put(page, M, 300, "Harriet Coombe", Style("tiit", 12))
    page = flow.new_page()
    put(page, M, 90, "Contents", Style("tibo", 14))
    y = 120.0
    for heading, _ in CHAPTERS:
        put(page, M, y, heading, Style("tiro", 10))
        y += 16
    put(page, M, y + 8, "A register of apple varieties", Style("tiro", 10))
    for heading, paras in CHAPTERS:
        flow.page_break()
        flow.heading(heading, H1)
        for p in paras:
            flow.para(p, BODY)
    flow.page_break()
    flow.heading("A register of apple varieties", H1)
    flow.para(
        "The entries that follow describe apples that can still be found in old gardens and "
        "in the collections of county orchard groups. Each entry gives the origin of the "
        "variety, its fruit, its season and how it behaves as a tree.",
        BODY,
    )
    for v in varieties():
        flow.page_break()
        flow.heading(v["name"], H2)
        for p in entry_text(v):
            flow.para(p, ENTRY)
    save(doc, path)
