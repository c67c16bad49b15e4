"""A leisure centre's visitor and member guide: prices printed several ways, hours and a timetable.

Held out (set ``leisure``): written on 2026-11-24 with its questions by a helper who had not seen
the verdict rules; never used to tune. Not part of the ``mixed`` corpus.

Prices appear as real brochures print them: with a pound sign in prose and in table cells, as bare
numbers under a header that names the currency, as "Adults 7.80" in a note, and as "free". The
first page has a narrow main column beside shaded side boxes; later pages run full width with
shaded notes between the paragraphs.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.ingest._mupdf import pymupdf

from .render import (
    ChapterStyles,
    Flow,
    Style,
    new_document,
    put,
    save,
    wrap,
    write_chapters,
)

FILE = "riverside_leisure_centre_guide.pdf"
W, H = 595.0, 842.0
M = 56.0
SIDE = (392.0, W - M)  # the first page's side boxes
TITLE = "Riverside Leisure Centre"
SUBTITLE = "Visitor and member guide, 1 September 2026 to 31 August 2027"

TEAL = (0.0, 0.38, 0.42)
BODY = Style("helv", 10.0, 13.5, after=6.0)
H1 = Style("hebo", 14.0, 18.0, before=10.0, after=6.0, color=TEAL)
H2 = Style("hebo", 11.0, 14.0, before=6.0, after=4.0, color=TEAL)
NOTE_TITLE = Style("hebo", 10.0, 12.5, after=3.0, color=TEAL)
NOTE_BODY = Style("helv", 9.0, 11.5, after=4.0)

# -- tables ---------------------------------------------------------------------------------------

HOURS = (
    ["Area", "Monday to Friday", "Saturday", "Sunday"],
    [
        ["Centre and reception", "06:30 to 22:00", "07:30 to 20:00", "08:00 to 18:00"],
        ["Main pool", "06:30 to 21:30", "07:30 to 19:00", "08:00 to 17:30"],
        ["Learner pool", "09:00 to 20:00", "08:00 to 16:00", "09:00 to 16:00"],
        ["Gym", "06:30 to 21:45", "07:30 to 19:45", "08:00 to 17:45"],
        ["Sauna suite", "07:00 to 21:30", "08:00 to 19:00", "09:00 to 17:30"],
        ["Sports hall and squash courts", "08:00 to 22:00", "08:00 to 20:00", "09:00 to 18:00"],
        ["Boathouse Cafe", "08:30 to 20:00", "09:00 to 17:00", "09:00 to 16:00"],
    ],
    [160.0, 110.0, 105.0, 105.0],
)

POOLS = (
    ["Pool", "Size", "Depth", "Set-up"],
    [
        [
            "Main pool",
            "25 m long, 12.5 m wide",
            "1.0 m at the shallow end to 2.0 m at the deep end",
            "six lanes; diving from the side at the deep end only",
        ],
        [
            "Learner pool",
            "13 m long, 7 m wide",
            "0.6 m to 0.9 m",
            "steps with handrails and a gentle ramp along one side",
        ],
    ],
    [80.0, 110.0, 140.0, 153.0],
)

SWIM_PRICES = (
    ["Session", "Adult (£)", "Junior (£)", "Concession (£)"],
    [
        ["Public swim, main or learner pool", "5.20", "3.10", "3.60"],
        ["Lane swim, main pool", "5.60", "3.10", "3.90"],
        ["Adult quiet swim", "4.70", "-", "3.30"],
        ["Aqua aerobics or aquanatal class", "6.40", "-", "4.50"],
        ["Family fun session, up to 2 adults and 3 juniors", "15.80", "-", "-"],
    ],
    [215.0, 85.0, 85.0, 98.0],
)

HIRE = (
    ["Court or space", "Peak", "Off peak"],
    [
        ["Badminton court, per hour", "£11.40", "£8.60"],
        ["Squash court, per 40 minutes", "£9.20", "£7.10"],
        ["Whole sports hall, per hour", "£58.00", "£44.00"],
        ["Studio 2, per hour (private groups)", "£32.00", "£26.00"],
    ],
    [243.0, 120.0, 120.0],
)

MEMBERSHIPS = (
    ["Membership", "What it includes", "Monthly", "Annual"],
    [
        [
            "Riverside Complete",
            "gym, all classes, swimming and the sauna suite",
            "£42.00",
            "£462.00",
        ],
        [
            "Off-Peak Complete",
            "as Complete, on weekdays 09:00 to 16:00 and at weekends after 14:00",
            "£31.00",
            "£341.00",
        ],
        ["Swim", "all public and lane swims and the adult quiet swims", "£28.50", "£313.50"],
        [
            "Junior Active (ages 11 to 17)",
            "swimming, junior gym sessions from age 14, sports hall clubs",
            "£16.00",
            "£176.00",
        ],
        [
            "Concession Complete",
            "as Complete, for anyone who qualifies for concession prices",
            "£29.40",
            "£323.40",
        ],
    ],
    [120.0, 213.0, 75.0, 75.0],
)

TIMETABLE = (
    ["Day", "Time", "Class", "Where", "Level"],
    [
        ["Monday", "07:00", "Spin 45", "Spin studio", "All levels"],
        ["Monday", "12:15", "Pilates", "Studio 2", "Beginners"],
        ["Monday", "18:30", "Circuits", "Sports hall", "Intermediate"],
        ["Tuesday", "09:30", "Aqua aerobics", "Main pool", "All levels"],
        ["Tuesday", "19:00", "Yoga flow (60 minutes)", "Studio 1", "All levels"],
        ["Wednesday", "06:45", "HIIT 30 (30 minutes)", "Studio 1", "Advanced"],
        ["Wednesday", "10:00", "Chair-based exercise", "Studio 2", "Gentle"],
        ["Wednesday", "18:00", "Boxfit", "Studio 1", "Intermediate"],
        ["Thursday", "11:00", "Aquanatal", "Learner pool", "Pregnancy"],
        ["Thursday", "19:15", "Spin 45", "Spin studio", "All levels"],
        ["Friday", "07:00", "Kettlebells", "Studio 1", "Intermediate"],
        ["Friday", "17:30", "Dance fitness", "Studio 1", "All levels"],
        ["Saturday", "09:00", "Spin 45", "Spin studio", "All levels"],
        ["Saturday", "10:15", "Family yoga (children 5 to 11 with an adult)", "Studio 2", "Family"],
        ["Sunday", "10:00", "Pilates", "Studio 2", "Intermediate"],
    ],
    [70.0, 50.0, 183.0, 90.0, 90.0],
)

AGES = (
    ["Activity", "Minimum age", "Conditions"],
    [
        ["Gym", "16", "after a gym induction"],
        [
            "Junior gym sessions",
            "14",
            "after a junior induction; Monday, Wednesday and Friday 16:00 to 18:00",
        ],
        ["Studio and spin classes", "16", "except family yoga, for children 5 to 11 with an adult"],
        ["Sauna suite", "18", "proof of age may be asked for"],
        ["Swimming without an adult", "8", "see the pool rules in section 6"],
    ],
    [140.0, 80.0, 263.0],
)

CONTACTS = (
    ["Who", "Telephone", "Email and hours"],
    [
        [
            "Reception: general enquiries and bookings",
            "01632 960418",
            "hello@riversideleisure.example, during opening hours",
        ],
        [
            "Swimming lessons office",
            "01632 960425",
            "swim@riversideleisure.example, Monday to Friday 09:00 to 17:00",
        ],
        [
            "Membership team",
            "01632 960433",
            "membership@riversideleisure.example, Monday to Saturday 09:00 to 17:00",
        ],
        [
            "Sports development (clubs and block bookings)",
            "01632 960441",
            "sports@riversideleisure.example, Monday to Friday 09:00 to 17:00",
        ],
    ],
    [165.0, 85.0, 233.0],
)

# -- the first page: a narrow column beside side boxes ---------------------------------------------

WELCOME: list[tuple[str, list[str]]] = [
    (
        "Welcome to Riverside",
        [
            "Riverside Leisure Centre stands on the bank of the River Wen, a short walk from "
            "Wenbury town centre. It opened in 1998 and reopened in March 2024 after an "
            "eighteen-month refurbishment that replaced the roof of the pool hall, rebuilt the "
            "changing village and doubled the size of the gym.",
            "The centre is run by the Wenbury Community Leisure Trust, a registered charity, on "
            "behalf of Wenbury Borough Council. Every pound spent here goes back into the centre "
            "and into our community programmes, from holiday swimming for children to low-cost "
            "exercise sessions for people living with long-term health conditions.",
            "This guide covers the year from 1 September 2026 to 31 August 2027. It tells you "
            "when we are open, what things cost, how to book and what we ask of everyone who uses "
            "the centre. Prices and times can change during the year; the current versions are "
            "always on the noticeboard in the entrance hall and on our website.",
        ],
    ),
    (
        "Your first visit",
        [
            "If you have not been before, start at reception. Staff will take your details, "
            "issue your Riverside card and show you the way to the changing village. The card "
            "opens the entrance gates and carries your bookings and any membership or "
            "concession, so bring it every time you come. The first card is free; a replacement "
            "for a lost or damaged card costs £3.",
            "Reception, the changing village, both pools, the sauna suite and the Boathouse Cafe "
            "are on the ground floor. The gym, Studio 1, Studio 2 and the spin studio are on the "
            "first floor, up the main staircase or in the lift beside reception. The sports hall "
            "and the squash courts are in the east wing, along the glass corridor behind the "
            "cafe.",
        ],
    ),
]

SIDE_BOXES: list[tuple[str, list[str]]] = [
    (
        "At a glance",
        [
            "Riverside Leisure Centre, 14 Mill Lane, Wenbury WB3 7RT",
            "Reception: 01632 960418",
            "hello@riversideleisure.example",
            "www.riversideleisure.example",
        ],
    ),
    (
        "The Riverside app",
        [
            "The free app shows the live pool programme, lets you book and cancel swims, classes "
            "and courts, and puts your Riverside card on your phone so you can scan it at the "
            "gates.",
        ],
    ),
    (
        "What to bring",
        [
            "Your Riverside card, a swimming costume (not shorts with pockets or zips) and a "
            "water bottle for the gym and classes.",
        ],
    ),
]

# -- the rest of the guide ------------------------------------------------------------------------

Block = object
"""A paragraph string, ("h2", heading), ("note", title, paragraphs) or ("table", Table, caption)."""

CHAPTERS: list[tuple[str, list[Block]]] = [
    (
        "1 Opening hours",
        [
            "The centre is open every day of the year except 25 and 26 December and 1 January. "
            "Each area keeps its own hours within the centre's opening times, as the table shows.",
            ("table", HOURS, "Table 1: Opening hours"),
            "Last entry to the pools and the sauna suite is 30 minutes before they close. We "
            "clear the water ten minutes before closing time so that everyone has time to shower "
            "and change before the building shuts.",
            "On bank holidays the whole centre opens from 09:00 to 17:00 with a reduced "
            "programme: the pools, gym and sauna suite are open as usual within those hours, but "
            "there are no swimming lessons and no studio classes.",
            ("h2", "How the main pool is shared"),
            "The main pool is set out in different ways through the day. On weekdays before "
            "09:00 and after 19:00 it is all lane swimming, with slow, medium and fast lanes "
            "marked on boards at the shallow end. Between 09:00 and 16:00 three lanes stay in "
            "place and the rest of the pool is open for general swimming. From 16:00 to 19:00 the "
            "pool is busy with swimming lessons and the Wenbury Otters swimming club, and only two "
            "lanes are open to the public.",
            "Adult quiet swims, with no music and no inflatables, run on Tuesday and Thursday "
            "from 20:00 to 21:30. Family fun sessions, with floats and the inflatable obstacle "
            "course, run on Saturday and Sunday afternoons from 14:00 to 16:00.",
            (
                "note",
                "Maintenance closures",
                [
                    "Each pool closes for three days a year for a deep clean, usually in the first "
                    "week of June. We post the dates on the noticeboard and in the app at least "
                    "four weeks before.",
                ],
            ),
        ],
    ),
    (
        "2 Our facilities",
        [
            "Riverside has two pools, a gym, three studios, a sauna suite, a sports hall and two "
            "squash courts, all under one roof.",
            ("table", POOLS, "Table 2: The pools"),
            "The main pool water is kept at 29 degrees. The learner pool is used for lessons, "
            "parent and baby sessions and general swimming, and is the pool to choose if you "
            "are nervous in the water. A spectator gallery with fixed seating runs along the "
            "window side of the pool hall.",
            "The gym has 90 stations: treadmills, bikes, rowers and cross-trainers along the "
            "river windows, a free-weights area with four lifting platforms, and a functional "
            "zone with turf, sleds and kettlebells. Before your first session you must book a "
            "gym induction with one of our instructors. An induction lasts 45 minutes and is free "
            "for members; anyone else pays £15.",
            "Studio 1 has a sprung floor and mirrors and hosts most of the classes in the "
            "timetable. Studio 2 is smaller and quieter and is used for Pilates, yoga and "
            "chair-based exercise. The spin studio has 24 bikes, each with a power meter.",
            "The sauna suite, beside the main pool, has a Finnish sauna, a steam room and a "
            "relaxation area with heated loungers. The sports hall is the size of four badminton "
            "courts and can be booked as a whole for five-a-side football, basketball or "
            "netball. The two squash courts have glass back walls and a viewing area above.",
            "The Boathouse Cafe looks out over the river and the learner pool. It serves hot "
            "drinks, breakfasts, sandwiches and children's lunch boxes, and you do not need to "
            "pay for entry to use it.",
        ],
    ),
    (
        "3 Prices: pay as you go",
        [
            "You can use the centre without a membership and pay each time you come. Junior "
            "prices are for children aged 4 to 17. Concession prices are for people aged 65 and "
            "over, students in full-time education and people who receive a means-tested "
            "benefit: show proof at reception the first time and we will add the concession to "
            "your card.",
            ("table", SWIM_PRICES, "Table 3: Swimming, pay as you go"),
            (
                "note",
                "Sauna suite",
                [
                    "Adults 7.80, concessions 5.90 per visit, including a swim in the main pool on "
                    "the same visit. Included in the Riverside Complete memberships.",
                ],
            ),
            "Courts and the sports hall are priced per booking, not per player. Peak times are "
            "weekdays from 17:00 and all day at weekends; all other times are off peak.",
            ("table", HIRE, "Table 4: Court and hall hire"),
            (
                "note",
                "Free of charge",
                [
                    "Children under 4 swim free with a paying adult.",
                    "A carer who comes with a disabled visitor goes in free: ask at reception for "
                    "a carer's pass.",
                    "Watching from the pool gallery or the squash viewing area costs nothing.",
                    "In the school summer holidays, swimming is free for anyone aged 16 or under "
                    "on weekdays from 10:00 to 12:00.",
                ],
            ),
            "Members who bring a friend pay the friend's entry at the junior price on Fridays, "
            "for up to four visits a year.",
        ],
    ),
    (
        "4 Memberships",
        [
            "A membership pays for itself if you come more than about twice a week, and members "
            "also book classes and courts earlier than other visitors (see section 7).",
            ("table", MEMBERSHIPS, "Table 5: Memberships"),
            "Monthly memberships are paid by direct debit and carry a one-off joining fee of £25. "
            "Annual memberships have no joining fee; they are paid in full when you join and cost "
            "eleven times the monthly price, so you get one month free.",
            ("h2", "Freezing and cancelling"),
            "You can freeze a monthly membership for one to three months if you are ill, injured "
            "or pregnant: send the membership team a note from your doctor or midwife and we will "
            "pause your payments at no charge. A freeze for any other reason, such as a long "
            "trip abroad, costs £5 a month.",
            "To cancel a monthly membership, give one full calendar month's notice by email to "
            "the membership team or on the form at reception. We cannot cancel memberships over "
            "the phone. Annual memberships are not refundable, but you may transfer one once to "
            "another person for an administration fee of £10.",
            (
                "note",
                "Active Health referrals",
                [
                    "If your GP, practice nurse or physiotherapist refers you, you can join our "
                    "12-week Active Health programme of supervised gym and pool sessions for 2.50 "
                    "a session, with a free review with an instructor at the start and the end.",
                ],
            ),
            (
                "note",
                "Moving up or down",
                [
                    "You can change to another membership at any time; the new price applies from "
                    "your next payment date. Moving to Off-Peak Complete takes effect from the "
                    "first of the following month.",
                ],
            ),
        ],
    ),
    (
        "5 Classes",
        [
            "Classes last 45 minutes unless the timetable says otherwise. They take place in "
            "Studio 1, Studio 2, the spin studio, the sports hall or the pools, as shown.",
            ("table", TIMETABLE, "Table 6: Weekly class timetable"),
            "Members book classes free of charge. Everyone else pays £6.80 per class when "
            "booking, or the aqua price in Table 3 for pool classes. If you cannot come, cancel "
            "at least two hours before the start so someone on the waiting list can have your "
            "place. Anyone who misses three booked classes without cancelling within 30 days "
            "cannot book online for the next 14 days.",
            "Doors close five minutes after a class begins: once the warm-up is over, latecomers "
            "cannot join, for their own safety.",
        ],
    ),
    (
        "6 Swimming lessons and pool rules",
        [
            "Our lessons for children aged 4 to 11 run in ten-week terms on weekday afternoons "
            "and on Saturday mornings, through seven stages from first splashes to confident "
            "swimming. A term costs £72.00, paid when you book. Children are assessed at their "
            "first lesson, and move up a stage as soon as they pass all its skills rather than "
            "at the end of a term.",
            "Parent and baby sessions, for babies from 3 months to 3 years with one adult each, "
            "take place in the learner pool on Saturday and Sunday mornings. Adult lessons for "
            "beginners and improvers run on Wednesday evenings at 20:00.",
            ("h2", "Keeping everyone safe in the water"),
            "Children under 8 must be accompanied in the water by a responsible person aged 16 "
            "or over, who stays close enough to reach them at all times. One adult may bring "
            "into the water no more than two children under 4, or no more than four children "
            "aged 4 to 7. Children aged 8 and over may swim on their own.",
            "Please shower before you swim. Swimming caps are not compulsory, but long hair must "
            "be tied back or covered. Outdoor shoes stay behind the shoe line at the entrance to "
            "the changing village; walk poolside barefoot or in pool shoes.",
            "Armbands, floats and other swimming aids are welcome in general swimming but not in "
            "the lanes. Non-swimmers should stay where they can stand.",
            "Taking photographs or filming in the pool hall and the changing village is not "
            "allowed. If you would like a photograph of your child's lesson, ask the duty manager "
            "for a photography permit.",
            (
                "note",
                "Lifeguards",
                [
                    "Lifeguards are on duty whenever a pool is open. Their whistle means stop and "
                    "look at the lifeguard; three long blasts mean everyone must leave the water "
                    "at once.",
                ],
            ),
        ],
    ),
    (
        "7 Gym, sauna and age limits",
        [
            ("table", AGES, "Table 7: Minimum ages"),
            "Do not stay in the sauna or the steam room for more than 15 minutes at a time, and "
            "leave straight away if you feel dizzy or unwell. If you are pregnant or have a heart "
            "condition, ask your doctor before using them.",
            "In the gym, wipe down equipment after use, and put weights back on the racks. "
            "Personal trainers who are not employed by the Trust may not coach clients in the "
            "centre.",
            ("h2", "Booking and cancelling"),
            "You can book swims, classes and courts in the Riverside app, on our website, by "
            "phone or at reception. Members can book eight days ahead from 07:00; everyone else "
            "can book six days ahead.",
            "Court and hall bookings can be cancelled free up to 24 hours before the start. After "
            "that we cannot refund you, but if we manage to re-let the court we will put the "
            "money back on your card as credit.",
            "A term of swimming lessons cannot be refunded after the second lesson, except on "
            "medical grounds. If we have to cancel a session ourselves, for example when a pool "
            "closes after an incident, you may choose a full refund or a credit.",
        ],
    ),
    (
        "8 Accessibility",
        [
            "There is level access from the car park to reception, the main doors open "
            "automatically, and a lift serves the first floor. There are accessible toilets on "
            "both floors.",
            "The changing village has three accessible changing rooms. The largest has a ceiling "
            "track hoist, a height-adjustable changing bench and a shower with a fold-down seat.",
            "Both pools have a poolside hoist, and our lifeguards are trained to use it. Please "
            "tell reception when you arrive so a lifeguard can be ready. A waterproof poolside "
            "wheelchair can be borrowed from reception.",
            "Hearing loops are fitted at reception and in Studio 1. Assistance dogs are welcome "
            "in every part of the building apart from the pools and the sauna suite.",
        ],
    ),
    (
        "9 Getting here and parking",
        [
            "The centre is on Mill Lane, next to the Riverside Park footbridge. Buses 7 and 12 "
            "stop outside the main entrance about every 15 minutes, and Wenbury railway station "
            "is a 15-minute walk along the riverside path.",
            "Our car park has 140 spaces, including 10 blue badge bays next to the entrance and "
            "6 charging points for electric cars. Parking is free for up to three hours while you "
            "use the centre: type your car registration into the screen at reception when you "
            "arrive. Longer stays, and drivers who are not using the centre, pay £1.50 an hour "
            "at the machine or in the parking app.",
            "The car park gates are locked at 22:30. A vehicle left overnight may be given a "
            "parking charge notice.",
            "There are 40 covered cycle stands by the main entrance, watched by CCTV.",
        ],
    ),
    (
        "10 Lockers, lost property and contacts",
        [
            "Lockers in the changing village are free of charge. Choose your own four-digit code "
            "when you close the door; the code is cleared when you open it again. Lockers must be "
            "emptied before you leave: any locker still closed at the end of the day is opened "
            "by staff and its contents go to lost property.",
            "The small lockers in the gym corridor, for phones and keys, take a returnable £1 "
            "coin.",
            "Ask at reception for lost property. Valuables such as phones, keys, jewellery and "
            "bank cards are kept in the safe for 30 days. Clothing, goggles and everything else "
            "is kept for 7 days and then given to charity or thrown away.",
            ("table", CONTACTS, "Table 8: Who to contact"),
            "If something needs sorting out while you are here, ask for the duty manager, who is "
            "on site whenever the centre is open. Feedback cards are at reception, and we reply "
            "to written complaints within ten working days.",
        ],
    ),
]

BREAK_BEFORE = {"1 Opening hours", "5 Classes", "8 Accessibility"}
STYLES = ChapterStyles(H1, BODY, subheading=H2)


def _columns(pno: int) -> list[pymupdf.Rect]:
    if pno == 0:
        return [pymupdf.Rect(M, 150, SIDE[0] - 16, H - 60)]
    return [pymupdf.Rect(M, 70, W - M, H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    grey = Style("helv", 8, color=(0.4, 0.4, 0.4))
    if n > 1:
        put(page, M, 42, "Riverside Leisure Centre  |  Visitor and member guide 2026/27", grey)
    put(page, M, H - 30, f"Wenbury Community Leisure Trust  |  {n}", grey)


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
    flow.y = flow.box(flow.page, rect, title, paragraphs, NOTE_BODY, NOTE_TITLE) + 10.0


def build(path: str) -> None:
    doc = new_document(f"{TITLE}: {SUBTITLE}", "Wenbury Community Leisure Trust", "Visitor guide")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    page.draw_rect(pymupdf.Rect(0, 0, W, 118), color=None, fill=TEAL)
    put(page, M, 64, TITLE, Style("hebo", 24.0, color=(1, 1, 1)))
    put(page, M, 92, SUBTITLE, Style("helv", 12.0, color=(1, 1, 1)))
    for heading, paragraphs in WELCOME:
        flow.heading(heading, H1)
        for p in paragraphs:
            flow.para(p, BODY)
    y = 150.0
    for title, paragraphs in SIDE_BOXES:
        rect = pymupdf.Rect(SIDE[0], y, SIDE[1], H)
        y = flow.box(doc[0], rect, title, paragraphs, NOTE_BODY, NOTE_TITLE) + 14.0
    write_chapters(flow, CHAPTERS, STYLES, break_before=BREAK_BEFORE, note=_note)
    save(doc, path)
