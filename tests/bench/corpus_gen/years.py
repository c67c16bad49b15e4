"""A charity's annual report and a German town museum's Jahresbericht: years printed many ways.

Held out (set ``years``): written on 2026-11-24 with its questions by a helper who had not seen
the verdict rules; never used to tune. Not part of the ``mixed`` corpus.

Two PDFs. ``REPORT_FILE`` is a small community trust's annual report for the year to 31 March
2025: its years appear as charity reports print them, "FY2024/25", "2024-25", "the year to 31
March 2025", comparative table columns headed "2025" and "2024", a history timeline ("founded in
1987", "in the 1990s", "since 2011"), a five-year plan "2026-2030" and targets for 2027-28 and
2030-31, with shaded side notes between the paragraphs. ``MUSEUM_FILE`` is a German town museum's
Jahresbericht 2025 with a Chronik (1908 to 2025, "in den 1970er-Jahren", "seit 2019"),
Besucherzahlen for 2023, 2024 and 2025 in a table, and admission prices "gültig ab 1. Januar
2026" beside the old ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.ingest._mupdf import pymupdf

from .render import ChapterStyles, Flow, Style, new_document, put, save, wrap, write_chapters

REPORT_FILE = "ashcombe_community_trust_annual_report_2024_25.pdf"
MUSEUM_FILE = "stadtmuseum_bergfelden_jahresbericht_2025.pdf"
W, H = 595.0, 842.0
M = 58.0

Block = object
"""A paragraph string, ("h2", heading), ("note", title, paragraphs) or ("table", Table, caption)."""

# == the English annual report ====================================================================

R_TITLE = "Ashcombe Community Trust"
R_SUBTITLE = "Annual report and financial statements for the year to 31 March 2025"
PLUM = (0.36, 0.14, 0.36)
R_BODY = Style("helv", 10.0, 13.5, after=6.0)
R_H1 = Style("hebo", 14.0, 18.0, before=10.0, after=6.0, color=PLUM)
R_H2 = Style("hebo", 11.0, 14.0, before=6.0, after=4.0, color=PLUM)
R_NOTE_TITLE = Style("hebo", 10.0, 12.5, after=3.0, color=PLUM)
R_NOTE_BODY = Style("helv", 9.0, 11.5, after=3.0)
R_NOTE_FILL = (0.95, 0.92, 0.95)

MILESTONES = (
    ["Year", "What happened"],
    [
        [
            "1987",
            "Founded as the Ashcombe Play Association; one after-school club in a church hall",
        ],
        ["1992", "Registered as a charity with the Charity Commission"],
        ["1998", "Bought the former public library on Mill Street, still our main building"],
        ["2004", "Renamed Ashcombe Community Trust; first adult learning courses"],
        ["2011", "Opened the food pantry in the Mill Street basement"],
        ["2016", "Youth club moved into the new Mill Street annex"],
        ["2020", "Emergency food deliveries to housebound residents during the pandemic"],
        ["2024", "Riverside Hub opened in the old boatyard office on Quay Street"],
    ],
    [60.0, 419.0],
)

ACTIVITY = (
    ["What we did in the year to 31 March", "2025", "2024"],
    [
        ["Households using the food pantry", "1,842", "1,517"],
        ["Food parcels given out", "9,960", "8,305"],
        ["Young people registered at the youth club", "214", "187"],
        ["Adult learning course places filled", "486", "512"],
        ["Advice appointments on benefits, debt and housing", "1,130", "968"],
        ["Volunteers active during the year", "312", "276"],
        ["Volunteer hours given", "41,600", "37,250"],
    ],
    [299.0, 90.0, 90.0],
)

ACCOUNTS = (
    ["Income and spending (£)", "2025", "2024"],
    [
        ["Donations and legacies", "198,300", "221,700"],
        ["Grants from trusts, councils and the Lottery", "331,600", "262,400"],
        ["Course fees and room hire", "64,200", "49,800"],
        ["Investment income", "18,300", "15,000"],
        ["Total income for the year", "612,400", "548,900"],
        ["Spending on charitable activities", "571,900", "503,200"],
        ["Spending on raising funds", "22,700", "19,800"],
        ["Total spending for the year", "594,600", "523,000"],
        ["Net income for the year", "17,800", "25,900"],
    ],
    [299.0, 90.0, 90.0],
)

TARGETS = (
    ["Measure", "2024-25", "Target 2027-28", "Target 2030-31"],
    [
        ["Households using the food pantry", "1,842", "2,000", "2,400"],
        ["Active volunteers", "312", "350", "400"],
        ["Share of income from donations", "32%", "35%", "40%"],
        ["Carbon emissions from our buildings (tonnes)", "58", "45", "25"],
    ],
    [209.0, 80.0, 95.0, 95.0],
)

R_FIRST: list[tuple[str, list[Block]]] = [
    (
        "Chair's welcome",
        [
            "Ashcombe Community Trust works in the market town of Ashcombe and the four villages "
            "around it. We run a food pantry, a youth club, adult learning courses and a free "
            "advice service, from our building on Mill Street and, since last autumn, from the "
            "Riverside Hub on Quay Street.",
            "This report covers FY2024/25, the trust's thirty-eighth year, and it was a year of "
            "growth. More households than ever came to the food pantry, the youth club was full "
            "on most evenings, and the new Riverside Hub opened its doors on 16 September 2024, "
            "bringing our advice service to the east side of town for the first time.",
            "Total income rose to £612,400, from £548,900 in FY2023/24, and for the first time "
            "more than half of it came from grants rather than from donations. That is welcome, "
            "but it also leaves us more exposed when a funder changes its priorities, which is "
            "why our new plan sets targets for donations as well as for the work itself.",
            "Margaret Osei stepped down as chair in October 2024 after nine years in the role. "
            "The board elected Daniel Price as chair in her place, and I write this as he settles "
            "in. On behalf of the trustees I thank our staff, our volunteers and every person and "
            "business in Ashcombe who gave us money, food or time.",
            (
                "note",
                "At a glance, 2024-25",
                [
                    "1,842 households used our food pantry, up by a fifth on the year before.",
                    "The board met eight times; the annual general meeting was held in September.",
                    "Registered charity number 1013927. Office: 14 Mill Street, Ashcombe AC4 1RT.",
                ],
            ),
        ],
    ),
    (
        "1 Our story so far",
        [
            "The trust was founded in 1987 by a group of parents at St Anne's Primary School who "
            "wanted a safe place for their children to play after school. The first club met "
            "three afternoons a week in the hall of the Methodist church on Bridge Road.",
            ("table", MILESTONES, "Table 1: Milestones"),
            "In the 1990s the trust grew from a single after-school club into a network of "
            "holiday playschemes across four villages, run almost entirely by volunteers. Buying "
            "the old library gave the work a permanent home, and the playschemes were joined by a "
            "parent and toddler group and a lunch club for older people.",
            "Since 2011 the food pantry has been open every Tuesday and Friday, and it has not "
            "missed a session in all that time, not even during the floods of February 2014. "
            "Members pay £3.50 a visit and choose their own shopping from the shelves.",
        ],
    ),
    (
        "2 Our work in 2024-25",
        [
            "The figures below compare the year to 31 March 2025 with the year before. Our "
            "financial year runs from 1 April to 31 March.",
            ("table", ACTIVITY, "Table 2: Our work in numbers"),
            ("h2", "Food pantry"),
            "Demand for the food pantry kept rising through the winter. We added a Saturday "
            "morning session for working families in January 2025 and now buy in fresh fruit and "
            "vegetables from two local growers instead of relying on donated tins alone.",
            ("h2", "Youth club and adult learning"),
            "The youth club opens four evenings a week for young people aged 11 to 18 and ran a "
            "summer programme of trips and sport for the first time since 2019.",
            "Adult learning was the one part of our work that shrank. We ran fewer courses after "
            "the county council cut its grant for community learning in April 2024, and the "
            "digital skills course moved online.",
            ("h2", "Advice"),
            "Our two advisers and eleven trained volunteers help people with benefits, debt and "
            "housing problems. Opening the Riverside Hub let us offer drop-in sessions on three "
            "mornings a week on Quay Street, and more than a third of all appointments were held "
            "there.",
            (
                "note",
                "Thank you to our funders",
                [
                    "The National Lottery Community Fund, Ashcombe Town Council, the county "
                    "council, the Hollins Family Trust and the Quay Street Traders' Association.",
                ],
            ),
        ],
    ),
    (
        "3 Financial review",
        [
            "The summary below is taken from our full accounts for the year to 31 March 2025, "
            "with the year to 31 March 2024 for comparison. The full accounts were checked by an "
            "independent examiner and have been filed with the Charity Commission.",
            ("table", ACCOUNTS, "Table 3: Statement of financial activities (summary)"),
            "Our largest grant in 2024-25 was £120,000 from the National Lottery Community Fund "
            "for the Riverside Hub, the second of three yearly payments. Donations fell slightly, "
            "mainly because 2023-24 included a one-off legacy of £30,000.",
            "Unrestricted reserves at 31 March 2025 stood at £146,000, about three months of "
            "running costs. The trustees' policy is to hold between three and six months.",
            "The trust employed 14 people at the year end (11.2 full-time equivalent), up from "
            "12 a year earlier. The chief officer is the highest-paid employee and earned "
            "between £50,000 and £60,000. No trustee was paid for being a trustee.",
            (
                "note",
                "Gift Aid",
                [
                    "If you pay UK income tax, ticking the Gift Aid box adds 25p to every £1 you "
                    "give us at no cost to you. Gift Aid was worth £21,400 to the trust last "
                    "year.",
                ],
            ),
        ],
    ),
    (
        "4 Looking ahead: our plan for 2026-2030",
        [
            "In March 2025 the trustees adopted a new five-year plan for 2026-2030, after a "
            "consultation in which more than 600 residents told us what they need. It has three "
            "aims: no family in Ashcombe goes hungry, every young person has somewhere to go, and "
            "the trust pays its way with less reliance on any one funder.",
            ("table", TARGETS, "Table 4: Targets in the 2026-2030 plan"),
            "The plan's largest project is a community kitchen at Mill Street, to be built in "
            "2027 at an estimated cost of £380,000, where volunteers will cook hot meals and run "
            "cookery classes. We are raising the money now. A second food pantry, in the Hollins "
            "Cross estate, is planned to open by the end of 2026.",
            "We will celebrate our 40th anniversary in 2027 with a festival on the Mill Street "
            "green, and we hope to see many of the families who have used the trust since the "
            "early days.",
        ],
    ),
    (
        "5 Trustees and governance",
        [
            "The trust is governed by a board of up to twelve trustees, who are elected at the "
            "annual general meeting and serve for three years at a time. The board met eight "
            "times in 2024-25 and has committees for finance and for safeguarding.",
            "Trustees during the year: Daniel Price (chair from October 2024), Margaret Osei "
            "(chair until October 2024), Priya Nair (treasurer), Tom Fairweather, Helen "
            "Achebe, Rev. Simon Lowe, Grace Whitlock and Arjun Mehta.",
            "The trustees review the main risks to the trust twice a year. The largest are "
            "the end of the Lottery grant for the Riverside Hub after 2025-26, rising energy "
            "costs at Mill Street and the number of volunteers we need to keep the food pantry "
            "open. The plan for 2026-2030 is our answer to all three.",
            (
                "note",
                "Reference and administrative details",
                [
                    "Independent examiner: Carol Denby FCA, Denby and Marsh, High Street, "
                    "Ashcombe.",
                    "Bankers: the Ashcombe branch of the Co-operative Bank.",
                    "Chief officer: Ruth Kendall, who joined the trust in 2018.",
                ],
            ),
            "Our next annual general meeting will be held at 14 Mill Street on Thursday 18 "
            "September 2025 at 7pm. Everyone who lives in Ashcombe is welcome to come and to ask "
            "questions; only members of the trust may vote.",
        ],
    ),
]

R_BREAK_BEFORE = {
    "1 Our story so far",
    "2 Our work in 2024-25",
    "3 Financial review",
    "4 Looking ahead: our plan for 2026-2030",
    "5 Trustees and governance",
}

# == the German museum report =====================================================================

G_TITLE = "Stadtmuseum Bergfelden"
G_SUBTITLE = "Jahresbericht 2025 mit Chronik"
OCHRE = (0.55, 0.33, 0.05)
G_BODY = Style("helv", 10.0, 14.0, after=6.0)
G_H1 = Style("hebo", 12.5, 16.0, before=10.0, after=5.0, color=OCHRE)
G_NOTE_TITLE = Style("hebo", 10.0, 12.5, after=3.0, color=OCHRE)
G_NOTE_BODY = Style("helv", 9.0, 11.5, after=3.0)
G_NOTE_FILL = (0.98, 0.95, 0.89)

BESUCHER = (
    ["Besucherinnen und Besucher", "2023", "2024", "2025"],
    [
        ["Einzelbesucher", "9.870", "10.950", "12.310"],
        ["Schulklassen (Schülerinnen und Schüler)", "2.140", "2.480", "2.905"],
        ["Teilnehmende an Führungen", "1.630", "1.720", "1.975"],
        ["Gäste bei Veranstaltungen", "1.050", "1.170", "1.240"],
        ["Besucher insgesamt", "14.690", "16.320", "18.430"],
    ],
    [215.0, 85.0, 85.0, 94.0],
)

CHRONIK = (
    ["Jahr", "Ereignis"],
    [
        ["1908", "Gründung des Heimatvereins, erste Sammlung im Sitzungssaal des Rathauses"],
        ["1936", "Umzug der Sammlung in das Kornhaus am Marktplatz"],
        ["1943", "Auslagerung der wertvollsten Stücke in das Kloster Lautenbach"],
        ["1961", "Die Stadt übernimmt die Sammlung; seitdem Stadtmuseum Bergfelden"],
        ["1988", "Erweiterung um die Gerberei-Abteilung im Nachbarhaus"],
        ["2016 bis 2019", "Sanierung des Kornhauses, das Museum ist geschlossen"],
        ["2019", "Wiedereröffnung am Internationalen Museumstag, dem 19. Mai"],
        ["2025", "Bezug des neuen Depots im Gewerbegebiet Süd"],
    ],
    [80.0, 399.0],
)

PREISE = (
    ["Eintrittskarte", "bis 31.12.2025", "ab 1.1.2026"],
    [
        ["Erwachsene", "5,00 €", "6,00 €"],
        ["Ermäßigt (Schüler, Studierende, Schwerbehinderte)", "3,00 €", "3,50 €"],
        ["Familienkarte (2 Erwachsene mit Kindern)", "10,00 €", "12,00 €"],
        ["Kinder unter 6 Jahren", "frei", "frei"],
        ["Jahreskarte", "25,00 €", "30,00 €"],
        ["Führung für Gruppen bis 25 Personen", "45,00 €", "50,00 €"],
    ],
    [245.0, 117.0, 117.0],
)

G_SECTIONS: list[tuple[str, list[Block]]] = [
    (
        "Vorwort",
        [
            "Das Jahr 2025 war für das Stadtmuseum ein Jahr der Rekorde: So viele Gäste wie "
            "noch nie seit der Wiedereröffnung kamen ins Kornhaus, mehr als 18.000 Menschen. Zu "
            "verdanken ist das vor allem unserer Sonderausstellung und dem neuen Angebot für "
            "Schulen, das wir gemeinsam mit dem Schulamt entwickelt haben.",
            "Mit dem Umzug in das neue Depot haben wir zugleich eine Aufgabe abgeschlossen, die "
            "uns seit Jahren beschäftigt hat: Die Sammlung lagert nun trocken, sicher und gut "
            "zugänglich. Allen Ehrenamtlichen, dem Förderverein und dem Gemeinderat danke ich "
            "herzlich für ihre Unterstützung.",
            "Dr. Anna Brenner, Museumsleiterin",
            (
                "note",
                "Das Museum in Zahlen",
                [
                    "Sammlung: rund 24.000 Objekte",
                    "Ausstellungsfläche: 1.150 m² auf drei Etagen",
                    "Team: 6 Festangestellte und 35 Ehrenamtliche",
                    "Öffnungstage im Jahr 2025: 298",
                ],
            ),
        ],
    ),
    (
        "1 Rückblick auf 2025",
        [
            "Die Sonderausstellung „Glanz und Ruß – 150 Jahre Lautertalbahn“ war vom 12. April "
            "bis zum 2. November 2025 zu sehen. Sie erzählte die Geschichte der Bahnlinie von "
            "ihrer Eröffnung bis zur Stilllegung des Personenverkehrs und zeigte Leihgaben aus "
            "drei Eisenbahnmuseen.",
            "Zur Museumsnacht am 20. September 2025 kamen 860 Gäste. Das neue Programm für "
            "Schulen, „Geschichte zum Anfassen“, haben 2025 insgesamt 121 Klassen gebucht.",
            ("table", BESUCHER, "Tabelle 1: Besucherzahlen 2023 bis 2025"),
            "Die Zahlen beruhen auf den verkauften Eintrittskarten, den Anmeldungen der Schulen "
            "und den Teilnehmerlisten der Führungen. Besucher bei freiem Eintritt am ersten "
            "Sonntag im Monat sind unter den Einzelbesuchern mitgezählt.",
        ],
    ),
    (
        "2 Chronik",
        [
            "Das Stadtmuseum geht auf den Heimatverein Bergfelden zurück, dessen Mitglieder "
            "Werkzeuge, Trachten und Urkunden aus der Stadt und den umliegenden Dörfern "
            "sammelten.",
            ("table", CHRONIK, "Tabelle 2: Chronik des Museums"),
            "In den 1970er-Jahren kamen die Sammlungen zur Stadtgeschichte und zum Handwerk "
            "hinzu, vor allem aus Nachlässen Bergfelder Familien. Seit 2019 ist das Kornhaus mit "
            "einem Aufzug barrierefrei zugänglich.",
        ],
    ),
    (
        "3 Öffnungszeiten und Eintrittspreise ab 2026",
        [
            "Der Gemeinderat hat am 9. Oktober 2025 neue Eintrittspreise beschlossen. Sie gelten "
            "ab 1. Januar 2026 und sind die ersten Erhöhungen seit der Wiedereröffnung.",
            ("table", PREISE, "Tabelle 3: Eintrittspreise, gültig ab 1. Januar 2026"),
            "Ab 1. Januar 2026 ist das Museum von Dienstag bis Sonntag von 11 bis 17 Uhr "
            "geöffnet, donnerstags bis 20 Uhr. Montags ist geschlossen, ebenso vom 24. Dezember "
            "bis zum 1. Januar. Am ersten Sonntag im Monat ist der Eintritt frei.",
        ],
    ),
    (
        "4 Ausblick",
        [
            "Am 25. April 2026 wird die nächste Sonderausstellung eröffnet: „Ton, Stein, "
            "Scherben – Töpferei an der Lauter“ zeigt Funde aus den Werkstätten der Altstadt und "
            "Arbeiten heutiger Keramikerinnen aus der Region.",
            "Für 2026 rechnen wir mit etwa 19.000 Gästen. Außerdem soll bis Ende 2026 ein "
            "Audioguide in deutscher und englischer Sprache fertig werden. Der Förderverein "
            "feiert 2026 sein 25-jähriges Bestehen.",
        ],
    ),
]

G_BREAK_BEFORE = {"2 Chronik", "3 Öffnungszeiten und Eintrittspreise ab 2026"}

# == layout =======================================================================================


def _columns(pno: int) -> list[pymupdf.Rect]:
    if pno == 0:
        return [pymupdf.Rect(M, 150, W - M, H - 60)]
    return [pymupdf.Rect(M, 72, W - M, H - 60)]


def _noter(title_style: Style, body_style: Style, fill: tuple[float, float, float]):
    def note(flow: Flow, title: str, paragraphs: Sequence[str]) -> None:
        """A shaded note across the column, kept whole on one page; the flow goes on below."""
        pad = 6.0
        width = flow.rect.width - 2 * pad
        blocks = [(title, title_style)] + [(p, body_style) for p in paragraphs]
        height = 2 * pad + sum(len(wrap(t, width, st)) * st.leading + st.after for t, st in blocks)
        flow.space(4.0)
        flow.need(height)
        assert flow.page is not None
        rect = pymupdf.Rect(flow.rect.x0, flow.y, flow.rect.x1, H)
        flow.y = flow.box(flow.page, rect, title, paragraphs, body_style, title_style, fill) + 10.0

    return note


def _report_furniture(page: pymupdf.Page, n: int) -> None:
    grey = Style("helv", 8, color=(0.4, 0.4, 0.4))
    if n > 1:
        put(page, M, 44, "Ashcombe Community Trust  |  Annual report 2024-25", grey)
    put(page, M, H - 30, f"page {n}", grey)


def _museum_furniture(page: pymupdf.Page, n: int) -> None:
    grey = Style("helv", 8, color=(0.4, 0.4, 0.4))
    if n > 1:
        put(page, M, 44, "Stadtmuseum Bergfelden  |  Jahresbericht", grey)
    put(page, W - M - 40, H - 30, f"Seite {n}", grey)


def _cover(page: pymupdf.Page, color: tuple[float, float, float], title: str, sub: str) -> None:
    page.draw_rect(pymupdf.Rect(0, 0, W, 116), color=None, fill=color)
    put(page, M, 62, title, Style("hebo", 23.0, color=(1, 1, 1)))
    put(page, M, 90, sub, Style("helv", 12.0, color=(1, 1, 1)))


def build_report(path: str) -> None:
    doc = new_document(f"{R_TITLE}: {R_SUBTITLE}", R_TITLE, "Annual report")
    flow = Flow(doc, (W, H), _columns, _report_furniture)
    page = flow.new_page()
    _cover(page, PLUM, R_TITLE, R_SUBTITLE)
    put(
        page,
        M,
        134,
        "Approved by the trustees on 10 July 2025",
        Style("heit", 9.5, color=(0.3, 0.3, 0.3)),
    )
    note = _noter(R_NOTE_TITLE, R_NOTE_BODY, R_NOTE_FILL)
    styles = ChapterStyles(R_H1, R_BODY, subheading=R_H2)
    write_chapters(flow, R_FIRST, styles, break_before=R_BREAK_BEFORE, note=note)
    save(doc, path)


def build_museum(path: str) -> None:
    doc = new_document(f"{G_TITLE}: {G_SUBTITLE}", "Stadt Bergfelden", "Jahresbericht")
    flow = Flow(doc, (W, H), _columns, _museum_furniture)
    page = flow.new_page()
    _cover(page, OCHRE, G_TITLE, G_SUBTITLE)
    put(
        page,
        M,
        134,
        "Kornhaus am Marktplatz 3, Bergfelden",
        Style("heit", 9.5, color=(0.3, 0.3, 0.3)),
    )
    note = _noter(G_NOTE_TITLE, G_NOTE_BODY, G_NOTE_FILL)
    write_chapters(
        flow, G_SECTIONS, ChapterStyles(G_H1, G_BODY), break_before=G_BREAK_BEFORE, note=note
    )
    save(doc, path)
