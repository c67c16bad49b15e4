"""A village community hall's hire terms and price list: money and counts printed many ways.

Held out (set ``money``): written on 2026-11-24 with its questions by a helper who had not seen
the verdict rules; never used to tune. Not part of the ``mixed`` corpus.

Money appears as a hall committee really prints it: "£18.50 per hour" and "£8.00/hr" in prose,
bare numbers under a "Rate (£)" header, "GBP 15" and "40 pounds" in an equipment or charges list,
"a deposit of forty pounds" in words, "£5pp", and no amount at all ("no charge", "included in the
hire", "price on request", "half the day rate"). Some counts are in prose ("two accessible
toilets", "12 trestle tables"), some in tables. The first page has a narrow column beside shaded
side boxes; later pages run full width with shaded notes between the paragraphs.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.ingest._mupdf import pymupdf

from .render import ChapterStyles, Flow, Style, new_document, put, save, wrap, write_chapters

FILE = "oakfield_community_hall_hire.pdf"
W, H = 595.0, 842.0
M = 56.0
SIDE = (392.0, W - M)  # the first page's side boxes
TITLE = "Oakfield Community Hall"
SUBTITLE = "Hire terms and price list, 1 April 2026 to 31 March 2027"

GREEN = (0.2, 0.36, 0.16)
BODY = Style("helv", 10.0, 13.5, after=6.0)
H1 = Style("hebo", 14.0, 18.0, before=10.0, after=6.0, color=GREEN)
H2 = Style("hebo", 11.0, 14.0, before=6.0, after=4.0, color=GREEN)
NOTE_TITLE = Style("hebo", 10.0, 12.5, after=3.0, color=GREEN)
NOTE_BODY = Style("helv", 9.0, 11.5, after=4.0)
NOTE_FILL = (0.93, 0.95, 0.9)

# -- tables ---------------------------------------------------------------------------------------

ROOMS = (
    ["Room", "Floor size", "Seated in rows", "Features"],
    [
        [
            "Main Hall",
            "18 m x 10 m, plus a stage 6 m wide and 4 m deep",
            "120",
            "sprung oak floor, blackout blinds, stage curtains, hearing loop",
        ],
        [
            "Garden Room",
            "9 m x 6.5 m",
            "40",
            "glass doors onto the enclosed garden, sink, wall-mounted whiteboard",
        ],
        [
            "Committee Room",
            "5.5 m x 4.5 m",
            "16 around one boardroom table",
            "wall-mounted screen, its own tea point, quiet side of the building",
        ],
    ],
    [95.0, 130.0, 85.0, 173.0],
)

HOURS = (
    ["Days", "Earliest start", "Event ends by", "Building empty and locked by"],
    [
        ["Monday to Thursday", "08:00", "22:30", "23:00"],
        ["Friday and Saturday", "08:00", "23:00", "23:45"],
        ["Sunday and bank holidays", "09:00", "22:00", "22:30"],
    ],
    [150.0, 95.0, 95.0, 143.0],
)

RATES = (
    ["Per hour", "Residents Rate (£)", "Non-residents Rate (£)", "Commercial Rate (£)"],
    [
        ["Main Hall with stage", "18.50", "24.00", "36.00"],
        ["Garden Room", "11.00", "14.50", "22.00"],
        ["Committee Room", "8.00", "10.00", "16.00"],
        ["Kitchen, only with a room", "6.00", "6.00", "9.00"],
    ],
    [170.0, 100.0, 110.0, 103.0],
)

DAY_RATES = (
    ["Day hire, 08:00 to 18:00", "Residents", "Non-residents", "Commercial"],
    [
        ["Main Hall and kitchen", "£150", "£195", "price on request"],
        ["Garden Room and kitchen", "£90", "£115", "price on request"],
        ["Whole hall: all rooms, kitchen and garden", "£210", "£270", "price on request"],
    ],
    [200.0, 90.0, 90.0, 103.0],
)

EXTRAS = (
    ["Item", "How many", "Charge"],
    [
        ["Round tables, 5 ft across, each seating 8", "10", "£3.00 each per booking"],
        ["White tablecloths for the round tables", "20", "£4.50 each, laundered by us"],
        ["Children's tables and chairs", "6 tables, 30 chairs", "no charge"],
        ["Highchairs", "4", "no charge"],
        ["Projector, pull-down screen and laptop cable", "1 set", "GBP 15 per booking"],
        ["PA system with two radio microphones", "1", "£20 per booking"],
        ["Stage lighting, with a trained operator", "-", "price on request"],
        ["Hearing loop in the Main Hall", "-", "no charge"],
    ],
    [230.0, 90.0, 163.0],
)

CHARGES = (
    ["If", "We charge"],
    [
        [
            "our cleaner has to come in after you",
            "£22 per hour of cleaning, with a minimum charge of £44",
        ],
        ["rubbish is left in the hall, the garden or the car park", "£15 for each bag"],
        ["confetti, glitter or rice is used inside or in the car park", "40 pounds"],
        ["the keyholder is called out because you are locked out or set off the alarm", "GBP 40"],
        ["a key or key fob is lost", "£25"],
        [
            "anything is stuck or pinned to the walls, doors or ceilings",
            "£20, plus any redecoration",
        ],
        ["your event overruns the booked time", "double the hourly rate for each part hour"],
        ["the building or our equipment is damaged", "the full cost of repair or replacement"],
    ],
    [260.0, 223.0],
)

CANCEL = (
    ["When you cancel", "Cancellation fee"],
    [
        ["more than 28 days before the booking", "none: the booking deposit is returned"],
        ["14 to 28 days before", "the booking deposit is kept"],
        ["7 to 13 days before", "half the hire charge"],
        ["fewer than 7 days before", "the full hire charge"],
    ],
    [240.0, 243.0],
)

# -- the first page: a narrow column beside side boxes ---------------------------------------------

WELCOME: list[tuple[str, list[str]]] = [
    (
        "About the hall",
        [
            "Oakfield Community Hall was built in 1926 as the village reading room and has been "
            "extended twice, in 1989 and in 2019, when the Garden Room and the new kitchen were "
            "added. It is owned by the Oakfield Village Hall Trust, a registered charity, and run "
            "by a committee of volunteer trustees elected at the annual meeting each May.",
            "The hall is home to the village pre-school, the short mat bowls club, the Oakfield "
            "Players and a monthly film night, and it is available to hire for parties, meetings, "
            "classes, sales, dances and wedding receptions. Every penny of the hire charges goes "
            "on running and improving the building; none of the trustees is paid.",
        ],
    ),
    (
        "How to book",
        [
            "Ring or email the bookings secretary to check that the date is free. We can hold a "
            "date for you for seven days while you decide. The booking is confirmed once we have "
            "your signed booking form and a deposit of forty pounds, which is taken off the hire "
            "charge.",
            "The rest of the hire charge is due 14 days before the booking. Regular hirers are "
            "invoiced at the end of each month for the sessions they have used. We accept bank "
            "transfer and cheques payable to Oakfield Village Hall Trust; we cannot take cards.",
            "Whoever signs the booking form is the hirer. The hirer must be 21 or over, must be "
            "present for the whole booking and is responsible for everyone who comes, for "
            "keeping to these terms and for leaving the hall as they found it.",
        ],
    ),
]

SIDE_BOXES: list[tuple[str, list[str]]] = [
    (
        "At a glance",
        [
            "Oakfield Community Hall, Church Lane, Oakfield OK7 2HB",
            "Bookings secretary: Janet Hollis, 01632 960772",
            "bookings@oakfieldhall.example",
            "www.oakfieldhall.example",
        ],
    ),
    (
        "Hourly rates from",
        [
            "Committee Room £8.00/hr, Garden Room £11.00/hr, Main Hall £18.50/hr for Oakfield "
            "residents. Full price list in section 3.",
        ],
    ),
    (
        "Viewing",
        [
            "You are welcome to look round before you book. Viewings are on Tuesday evenings "
            "between 18:00 and 19:00, or by arrangement.",
        ],
    ),
]

# -- the rest of the terms ------------------------------------------------------------------------

Block = object
"""A paragraph string, ("h2", heading), ("note", title, paragraphs) or ("table", Table, caption)."""

CHAPTERS: list[tuple[str, list[Block]]] = [
    (
        "1 The rooms",
        [
            "Three rooms can be hired, separately or together. All of them are on the ground "
            "floor and open off the entrance lobby, where there are coat hooks and the toilets.",
            ("table", ROOMS, "Table 1: The rooms"),
            "The Main Hall seats 120 theatre-style. Laid out for a sit-down meal at round tables "
            "it takes 80, and for a dance or a party with guests standing the fire limit is 150 "
            "people, including the hirer and any staff. These limits must never be exceeded.",
            "The stage is reached by four steps at each side. An upright piano stands at the back "
            "of the stage and may be used by arrangement; please do not move it yourself. The "
            "Garden Room opens onto a lawn with picnic benches, which hirers of the room may use "
            "until dusk. The play equipment in the garden belongs to the pre-school and is not "
            "for hirers' use.",
            "The hall owns 120 padded stacking chairs and 12 trestle tables, 6 ft by 2 ft 6 in, "
            "and both are included in the hire. They are kept in the store beside the stage. "
            "Please stack chairs no more than eight high and put the tables back on their racks.",
        ],
    ),
    (
        "2 When you can hire",
        [
            "The hall can be hired on every day of the year except Christmas Day. Your booking "
            "must include the time you need for setting up and clearing away.",
            ("table", HOURS, "Table 2: Hiring hours"),
            "In school term time the pre-school uses the Garden Room from 08:30 to 15:15 on "
            "weekdays, so the room cannot be hired then. The Main Hall and the Committee Room "
            "are not affected.",
            ("h2", "Keys"),
            "Collect the key from the bookings secretary at 2 Church Lane, next door to the "
            "hall, between 18:00 and 19:30 on the weekday before your booking; for a weekend "
            "booking, collect it on the Friday. Return it through the letterbox of 2 Church Lane "
            "by 10:00 the morning after. Regular hirers are given a key fob of their own, which "
            "they keep while their booking continues.",
        ],
    ),
    (
        "3 Hire charges",
        [
            "All charges are for whole hours and include the time you spend setting up and "
            "clearing away. The shortest booking is two hours for the Main Hall and one hour for "
            "the other rooms. Which rate you pay depends on who is hiring. Residents are people "
            "who live in the parish of Oakfield and groups based in it. Non-residents are private "
            "hirers from outside the parish. Commercial hirers are anyone hiring to run a "
            "business, a paid class or an event for profit, wherever they live.",
            ("table", RATES, "Table 3: Hourly rates"),
            "The Main Hall costs £18.50 per hour for residents, and a resident hiring the Main "
            "Hall with the kitchen for a Friday party from 18:00 to 23:00 therefore pays "
            "£122.50.",
            ("table", DAY_RATES, "Table 4: Day rates"),
            "A half day, either from 08:00 to 13:00 or from 13:00 to 18:00, is charged at half "
            "the day rate. Evenings after 18:00 are always charged by the hour.",
            (
                "note",
                "Charities and village groups",
                [
                    "Registered charities pay the residents' rate wherever they are based. The "
                    "Committee Room is free for registered charities on weekdays before 17:00.",
                    "Oakfield Parish Council meetings, the annual parish meeting and the hall's "
                    "own fundraising events: no charge.",
                ],
            ),
            (
                "note",
                "Wedding receptions",
                [
                    "The whole hall from 10:00 on Saturday until 12:00 on Sunday, so you can "
                    "clear away in the morning: £480 for residents and £620 for everyone else, "
                    "with the kitchen, all tables and chairs and the garden for photographs.",
                ],
            ),
            "Groups that book the same room at the same time every week for a school term or "
            "longer get 15% off the hourly rate. Commercial hirers do not get this reduction.",
        ],
    ),
    (
        "4 Kitchen and equipment",
        [
            "The kitchen serves the Main Hall through a hatch and the Garden Room through a door. "
            "It has an electric cooker with two ovens and a six-ring hob, fridges and a chest "
            "freezer, a microwave, a commercial dishwasher and a 20-litre hot water urn. "
            "Crockery, cutlery and glasses for 100 people are provided. Bring your own tea "
            "towels, washing-up liquid and bin bags.",
            "The kitchen is hired with a room, never on its own. Food hygiene is the hirer's "
            "responsibility: if you are preparing food for the public, you must hold a food "
            "hygiene certificate.",
            ("table", EXTRAS, "Table 5: Equipment you can add to your booking"),
            (
                "note",
                "Teas by the Friends of Oakfield Hall",
                [
                    "Our volunteers will serve tea, coffee and home-made cakes at your meeting, "
                    "class or sale for £5pp, with a minimum of 15 people. Book them at least two "
                    "weeks ahead with the bookings secretary.",
                ],
            ),
            "Bouncy castles and other inflatables are allowed in the Main Hall only. They must "
            "stand on their own mats, with nothing fixed to the walls or floor, and the supplier "
            "must have its own public liability insurance.",
        ],
    ),
    (
        "5 Deposits, cleaning and damage",
        [
            "Besides the booking deposit, a security deposit is payable for every private party "
            "or dance in the Main Hall: £150, and £250 when alcohol is served or sold. It is due "
            "with the rest of the hire charge and refunded within 14 days of your booking, once "
            "the hall has been checked. Regular hirers and registered charities pay no security "
            "deposit.",
            "Please leave every room as you found it: chairs and tables cleared away, floors "
            "swept, the kitchen cleaned and all rubbish taken home. The hall has no bins for "
            "hirers' rubbish. The charges below are taken from the security deposit, or invoiced "
            "if there is none.",
            ("table", CHARGES, "Table 6: Cleaning and damage charges"),
        ],
    ),
    (
        "6 Cancelling",
        [
            "If you need to cancel, tell the bookings secretary in writing as soon as you can. "
            "The fee depends on how much notice you give.",
            ("table", CANCEL, "Table 7: Cancellation fees"),
            "If we have to cancel your booking, for example after a burst pipe or because the "
            "hall is needed as a polling station or an emergency rest centre, we will give you as "
            "much notice as we can and refund everything you have paid, but we cannot pay any "
            "other costs. Regular hirers give four weeks' notice to end a regular booking, with "
            "no fee.",
        ],
    ),
    (
        "7 Insurance",
        [
            "The hall's insurance covers the building, the hall's own equipment and the "
            "trustees' public liability. It does not cover hirers' belongings or anything "
            "brought into the hall by hirers or their guests.",
            "Commercial hirers, and anyone running a class, performance or other activity for "
            "payment, must have their own public liability insurance with cover of at least "
            "£5 million and show the certificate when they book and every year after that.",
            "Private hirers holding a family party are covered for their own liability by the "
            "hall's hirer's liability extension, and there is no charge for this.",
        ],
    ),
    (
        "8 Music, alcohol and licensing",
        [
            "The hall's premises licence allows recorded and live music, dancing, plays and film "
            "shows until the end times in Table 2. The hall's music licences are paid by the "
            "trust, so hirers do not pay anything extra to play music. Keep the Main Hall's doors "
            "and windows shut while music is playing and turn it down after 22:00: we have "
            "neighbours on three sides.",
            "You may give alcohol to your guests at a private party without a licence. You may "
            "not sell it, and a ticket or raffle that includes drinks counts as selling, unless a "
            "Temporary Event Notice has been given to Wenborough District Council at least ten "
            "working days before the event. The council's fee for a notice is £21. Give a copy "
            "to the bookings secretary. The hall has no bar of its own; you may bring your own "
            "bar staff.",
            "Smoking and vaping are not allowed anywhere in the building, nor within 5 m of the "
            "doors. Candles and other naked flames are not allowed, except on a birthday cake.",
        ],
    ),
    (
        "9 Parking, access and safety",
        [
            "The car park beside the hall has 22 spaces, two of them wide bays for Blue Badge "
            "holders next to the main doors. Parking is free for people using the hall. On "
            "Sunday mornings until 12:30 the car park is shared with St Mary's church. There is a "
            "covered cycle rack by the side door. Please do not park on Church Lane: it is too "
            "narrow for emergency vehicles to pass.",
            "There is level access from the car park to the main doors and into every room. The "
            "hall has two accessible toilets, one of them with a baby-changing table, and a "
            "hearing loop in the Main Hall, switched on at the panel by the stage door. A "
            "portable ramp for the stage is kept in the store. Assistance dogs are welcome; other "
            "dogs only at dog training classes.",
            "Before your event, check that the four fire exits are clear and unlocked and show "
            "your guests where they are. The fire assembly point is at the far end of the car "
            "park. A first aid kit hangs in the kitchen, and a defibrillator is in the yellow "
            "cabinet outside the main doors. Report any accident to the bookings secretary "
            "within 24 hours.",
        ],
    ),
]

BREAK_BEFORE = {"1 The rooms"}
STYLES = ChapterStyles(H1, BODY, subheading=H2)


def _columns(pno: int) -> list[pymupdf.Rect]:
    if pno == 0:
        return [pymupdf.Rect(M, 150, SIDE[0] - 16, H - 60)]
    return [pymupdf.Rect(M, 70, W - M, H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    grey = Style("helv", 8, color=(0.4, 0.4, 0.4))
    if n > 1:
        put(page, M, 42, "Oakfield Community Hall  |  Hire terms and price list 2026/27", grey)
    put(page, M, H - 30, f"Oakfield Village Hall Trust  |  page {n}", grey)


def _note(flow: Flow, title: str, paragraphs: Sequence[str]) -> None:
    """A shaded note across the column, kept whole on one page, then the flow goes on below it."""
    pad = 6.0
    width = flow.rect.width - 2 * pad
    blocks = [(title, NOTE_TITLE)] + [(p, NOTE_BODY) for p in paragraphs]
    height = 2 * pad + sum(len(wrap(t, width, st)) * st.leading + st.after for t, st in blocks)
    flow.space(4.0)
    flow.need(height)
    assert flow.page is not None
    rect = pymupdf.Rect(flow.rect.x0, flow.y, flow.rect.x1, H)
    flow.y = (
        flow.box(flow.page, rect, title, paragraphs, NOTE_BODY, NOTE_TITLE, fill=NOTE_FILL) + 10.0
    )


def build(path: str) -> None:
    doc = new_document(f"{TITLE}: {SUBTITLE}", "Oakfield Village Hall Trust", "Hire terms")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    page.draw_rect(pymupdf.Rect(0, 0, W, 118), color=None, fill=GREEN)
    put(page, M, 64, TITLE, Style("hebo", 24.0, color=(1, 1, 1)))
    put(page, M, 92, SUBTITLE, Style("helv", 12.0, color=(1, 1, 1)))
    for heading, paragraphs in WELCOME:
        flow.heading(heading, H1)
        for p in paragraphs:
            flow.para(p, BODY)
    y = 150.0
    for title, paragraphs in SIDE_BOXES:
        rect = pymupdf.Rect(SIDE[0], y, SIDE[1], H)
        y = flow.box(doc[0], rect, title, paragraphs, NOTE_BODY, NOTE_TITLE, fill=NOTE_FILL) + 14.0
    write_chapters(flow, CHAPTERS, STYLES, break_before=BREAK_BEFORE, note=_note)
    save(doc, path)
