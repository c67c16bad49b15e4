"""An e-bike owner's manual: numbered steps, warnings, and tables of modes, errors and data.

Held out (set ``ebike``): written on 2026-11-23 with its questions, before any code ran on
them, for the next change of the verdict rules. Not part of the ``mixed`` corpus.
"""

from __future__ import annotations

from app.ingest._mupdf import pymupdf

from .render import ChapterStyles, Flow, Style, new_document, put, save, write_chapters

FILE = "velora_trail_e5_manual.pdf"
W, H = 595.0, 842.0
M = 62.0
TITLE = "Velora Trail E5: Owner's Manual"

BODY = Style("helv", 10.0, 13.5, after=6.0)
H1 = Style("hebo", 14.0, 18.0, before=10.0, after=6.0, color=(0.55, 0.15, 0.1))
STYLES = ChapterStyles(H1, BODY)

MODES = (
    ["Mode", "Motor support", "Typical range (500 Wh battery)", "Display colour"],
    [
        ["Eco", "50 percent of rider effort", "up to 140 km", "green"],
        ["Tour", "120 percent of rider effort", "up to 95 km", "blue"],
        ["Sport", "200 percent of rider effort", "up to 70 km", "violet"],
        ["Turbo", "300 percent of rider effort", "up to 50 km", "red"],
        ["Walk", "pushes the bike at up to 6 km/h", "-", "white"],
    ],
    [60.0, 150.0, 150.0, 110.0],
)

SCHEDULE = (
    ["Task", "Interval", "Who"],
    [
        ["Check tyre pressure (2.5 to 3.5 bar)", "every week", "rider"],
        ["Clean and oil the chain", "every 300 km or after a wet ride", "rider"],
        ["Check brake pads for wear", "every month", "rider"],
        ["Tighten the motor mounting bolts", "after the first 200 km", "dealer"],
        ["Full service with software update", "every 12 months or 3,000 km", "dealer"],
        ["Replace brake fluid", "every 2 years", "dealer"],
    ],
    [210.0, 170.0, 90.0],
)

ERRORS = (
    ["Code", "Meaning", "What to do"],
    [
        ["E10", "Battery too cold to discharge", "Bring the battery indoors until it is above 0 C"],
        ["E21", "Speed sensor signal missing", "Check that the wheel magnet passes the sensor"],
        ["E33", "Motor overheated on a long climb", "Ride without assistance for ten minutes"],
        ["E45", "Battery and motor do not match", "Ask your dealer; only Velora batteries fit"],
        ["E52", "Display lost contact with the motor", "Reseat the display plug, then restart"],
    ],
    [45.0, 190.0, 235.0],
)

DATA = (
    ["Item", "Value"],
    [
        ["Motor", "Velora MidDrive M2, 250 W rated, 85 Nm peak torque"],
        ["Battery", "36 V, 500 Wh lithium-ion, frame-integrated, removable"],
        ["Charger", "4 A, 0 to 100 percent in about 5 hours"],
        ["Assistance cuts out at", "25 km/h"],
        ["Weight", "23.4 kg without pedals, battery 2.9 kg"],
        ["Maximum permitted total weight", "130 kg (bike, rider and luggage)"],
        ["Tyres", "29 x 2.35 inch, tubeless ready"],
        ["Operating temperature", "-5 C to 40 C"],
    ],
    [170.0, 300.0],
)

CHAPTERS: list[tuple[str, list[object]]] = [
    (
        "1 Before your first ride",
        [
            "Thank you for choosing the Velora Trail E5. This manual explains how to charge the "
            "battery, how the assistance modes work and how to look after your bike. Keep it with "
            "the bike, and pass it on if you sell the bike.",
            "Your dealer has fitted the pedals, set the saddle height and checked the brakes. Before "
            "the first ride, make sure you can reach the ground with the tips of both feet while "
            "sitting on the saddle, and try the brakes at walking pace: the motor makes the bike "
            "accelerate faster than you may be used to.",
            "Never ride with a damaged battery. A battery that has been dropped, is swollen or "
            "smells of burning must not be charged again; place it outdoors away from anything "
            "that can catch fire and call your dealer.",
        ],
    ),
    (
        "2 Charging the battery",
        [
            "The battery can be charged on the bike or removed. To remove it, switch the system "
            "off, turn the key in the lock on the down tube to the left and lift the battery out "
            "sideways. To put it back, slide the lower end in first and press the top until the "
            "lock clicks.",
            "Charge only with the Velora charger supplied, indoors, on a dry surface and at a room "
            "temperature between 10 and 30 degrees. A full charge from empty takes about five "
            "hours; the first 80 percent takes about three. The five lights on the battery show "
            "its charge in steps of 20 percent and blink while it charges.",
            "If you store the bike for more than a month, leave the battery at 30 to 60 percent "
            "and check it every three months. A battery kept full for long periods, or left empty, "
            "loses capacity faster.",
        ],
    ),
    (
        "3 Riding with assistance",
        [
            "Press the power button on the display for one second to switch the system on. The "
            "plus and minus buttons change the assistance mode; the motor only helps while you "
            "pedal, and stops helping at 25 km/h, as the law requires for a pedelec.",
            ("table", MODES, "Table 1: Assistance modes"),
            "The ranges in Table 1 were measured on mixed terrain with a rider of 75 kg at 20 "
            "degrees. Cold weather, headwind, steep hills, low tyre pressure and frequent starts "
            "all shorten the range; in winter expect about a third less.",
            "To use the walk mode, press and hold the minus button for two seconds, then hold the "
            "plus button: the motor pushes the bike while you walk beside it, for example up a "
            "ramp with shopping.",
        ],
    ),
    (
        "4 Care and maintenance",
        [
            "Clean the bike with a soft brush, a sponge and a bucket of water. Do not use a "
            "pressure washer: the jet forces water past the seals of the motor and the bearings. "
            "Remove the battery before cleaning and keep its contacts dry.",
            ("table", SCHEDULE, "Table 2: Maintenance schedule"),
            "Brake pads are worn when less than 1.5 millimetres of pad material remains. Worn "
            "pads lengthen the braking distance and damage the discs, so have them replaced at "
            "once.",
        ],
    ),
    (
        "5 If something goes wrong",
        [
            "When the system detects a fault it shows a code on the display and the motor stops "
            "helping. Most faults clear when you switch the system off and on again. Table 3 "
            "lists the codes you can deal with yourself; for any other code, see your dealer.",
            ("table", ERRORS, "Table 3: Error codes"),
            "If the display stays dark, first check that the battery is charged and locked in "
            "place. The display has no battery of its own and takes its power from the main "
            "battery.",
        ],
    ),
    (
        "6 Technical data",
        [
            ("table", DATA, "Table 4: Technical data"),
            "The Trail E5 is a pedelec under European standard EN 15194: you may ride it without "
            "a licence, insurance or number plate wherever bicycles are allowed.",
        ],
    ),
    (
        "7 Warranty",
        [
            "Velora gives a warranty of five years on the frame and two years on the motor, the "
            "battery and the display, from the date of purchase. The battery is covered if it "
            "keeps less than 60 percent of its capacity within the warranty period, unless it "
            "was stored empty or charged with another charger.",
            "The warranty does not cover wear parts such as tyres, chain, brake pads and grips, "
            "or damage from accidents, racing or changes to the motor software. To make a claim, "
            "bring the bike and the receipt to any Velora dealer.",
        ],
    ),
]


def _columns(pno: int) -> list[pymupdf.Rect]:
    return [pymupdf.Rect(M, 70 if pno else 180, W - M, H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    grey = Style("helv", 8, color=(0.4, 0.4, 0.4))
    if n > 1:
        put(page, M, 40, "Velora Trail E5  -  Owner's Manual", grey)
    put(page, W - M - 30, H - 30, f"Page {n}", grey)


def build(path: str) -> None:
    doc = new_document(TITLE, "Velora Bikes", "Owner's manual")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    put(page, M, 100, TITLE, Style("hebo", 22.0, color=(0.55, 0.15, 0.1)))
    put(page, M, 130, "Electric mountain bike (pedelec), model year 2026", Style("helv", 12.0))
    write_chapters(flow, CHAPTERS, STYLES)
    save(doc, path)
