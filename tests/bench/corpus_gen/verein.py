"""A German sports club's fee schedule (Beitragsordnung): euro amounts printed many ways.

Held out (set ``money``): written on 2026-11-24 with its questions by a helper who had not seen
the verdict rules; never used to tune. Not part of the ``mixed`` corpus.

Amounts appear as German club paperwork prints them: "168,00 €" in a table, "€ 8,00" and
"EUR 15,-" in prose, "15 Euro", and no amount at all ("beitragsfrei", "kostenlos",
"gebührenfrei", "kein Zuschlag"). Counts of members, pitches, teams and coaches stand in a shaded
box and in the closing paragraph. Single column, paragraphs numbered within each section as in
a club's statutes.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.ingest._mupdf import pymupdf

from .render import ChapterStyles, Flow, Style, new_document, put, save, wrap, write_chapters

FILE = "tsv_gruenwald_beitragsordnung.pdf"
W, H = 595.0, 842.0
M = 62.0
TITLE = "TSV Grünwald 1908 e.V."
SUBTITLE = "Beitragsordnung, gültig ab 1. Januar 2026"

BLUE = (0.05, 0.25, 0.55)
BODY = Style("helv", 10.0, 14.0, after=6.0)
H1 = Style("hebo", 12.5, 16.0, before=10.0, after=5.0, color=BLUE)
NOTE_TITLE = Style("hebo", 10.0, 12.5, after=3.0, color=BLUE)
NOTE_BODY = Style("helv", 9.0, 11.5, after=3.0)
NOTE_FILL = (0.91, 0.94, 0.98)

# -- tables ---------------------------------------------------------------------------------------

BEITRAEGE = (
    ["Beitragsgruppe", "Jahresbeitrag", "Erläuterung"],
    [
        ["Kinder bis 13 Jahre", "72,00 €", "ab dem Jahr, in dem das Kind 14 wird: Jugendliche"],
        ["Jugendliche von 14 bis 17 Jahren", "96,00 €", ""],
        ["Erwachsene ab 18 Jahren", "168,00 €", ""],
        [
            "Auszubildende, Studierende und Freiwilligendienstleistende bis 27 Jahre",
            "108,00 €",
            "auf Antrag mit Nachweis, jedes Jahr neu vorzulegen",
        ],
        [
            "Familien",
            "336,00 €",
            "Eltern oder ein Elternteil mit allen Kindern bis 17 Jahre im selben Haushalt",
        ],
        ["Passive Mitglieder", "48,00 €", "ohne Teilnahme am Sportbetrieb"],
        [
            "Ehrenmitglieder",
            "beitragsfrei",
            "nach 40 Jahren Mitgliedschaft oder durch Beschluss der Mitgliederversammlung",
        ],
    ],
    [165.0, 80.0, 226.0],
)

ABTEILUNGEN = (
    ["Abteilung", "Erwachsene", "Kinder und Jugendliche", "Hinweise"],
    [
        ["Fußball", "kein Zuschlag", "24,00 €", "Jugend: Trikot- und Ballpauschale"],
        ["Tennis", "132,00 €", "54,00 €", "Erwachsene zusätzlich Arbeitsstunden, siehe (3)"],
        ["Turnen und Kinderturnen", "kein Zuschlag", "kein Zuschlag", ""],
        ["Leichtathletik", "18,00 €", "18,00 €", "Startgelder trägt der Verein"],
        ["Tischtennis", "30,00 €", "kostenlos", ""],
        ["Volleyball", "36,00 €", "12,00 €", "mit Nutzung des Beachfeldes"],
        [
            "Gesundheitssport",
            "12,50 € im Monat je Kurs",
            "-",
            "Rehasport mit ärztlicher Verordnung kostenlos",
        ],
    ],
    [110.0, 105.0, 100.0, 156.0],
)

MAHNUNG = (
    ["Stufe", "Wann", "Gebühr"],
    [
        ["Zahlungserinnerung", "2 Wochen nach Fälligkeit", "kostenlos"],
        ["Erste Mahnung", "4 Wochen nach Fälligkeit", "5,00 €"],
        ["Zweite Mahnung", "8 Wochen nach Fälligkeit", "10,00 €"],
    ],
    [150.0, 170.0, 151.0],
)

ZAHLEN = [
    "Mitglieder am 1. Januar 2025: 1.246, davon 512 Kinder und Jugendliche",
    "Abteilungen: 7",
    "Mannschaften im Ligabetrieb: 23, davon 14 im Jugendbereich",
    "Lizenzierte Übungsleiterinnen und Übungsleiter: 41",
    "Anlagen: sechs Tennisplätze (Sand), ein Rasenplatz, ein Kunstrasenplatz, ein "
    "Beachvolleyballfeld und das Vereinsheim mit Saal",
]

# -- the sections ---------------------------------------------------------------------------------

Block = object
"""A paragraph string, ("note", title, lines) or ("table", Table, caption)."""

SECTIONS: list[tuple[str, list[Block]]] = [
    (
        "§ 1 Grundsätze",
        [
            "(1) Diese Beitragsordnung hat die Mitgliederversammlung des TSV Grünwald 1908 e.V. "
            "am 21. März 2025 auf Grund von § 6 der Satzung beschlossen. Sie gilt ab dem "
            "1. Januar 2026 und ersetzt die Beitragsordnung vom 1. Januar 2022.",
            "(2) Der Verein erhebt von seinen Mitgliedern eine Aufnahmegebühr, einen "
            "Jahresbeitrag (Grundbeitrag) und, je nach Abteilung, einen Abteilungsbeitrag. Für "
            "die Nutzung der Anlagen durch Gäste und Nichtmitglieder werden Gebühren nach § 5 "
            "erhoben.",
            "(3) Beitragsjahr ist das Kalenderjahr. Für die Einstufung in eine Beitragsgruppe "
            "zählt das Alter, das das Mitglied im Laufe des Beitragsjahres erreicht.",
            ("note", "Der Verein in Zahlen", ZAHLEN),
        ],
    ),
    (
        "§ 2 Aufnahmegebühr",
        [
            "(1) Beim Eintritt in den Verein wird eine einmalige Aufnahmegebühr von EUR 15,- "
            "erhoben. Sie wird zusammen mit dem ersten Beitrag eingezogen.",
            "(2) Für Kinder und Jugendliche bis 17 Jahre ist die Aufnahme gebührenfrei, ebenso "
            "für Personen, die einer bestehenden Familienmitgliedschaft beitreten.",
            "(3) Wer innerhalb von zwei Jahren nach seinem Austritt wieder eintritt, zahlt die "
            "Aufnahmegebühr erneut.",
        ],
    ),
    (
        "§ 3 Jahresbeiträge",
        [
            "(1) Der Jahresbeitrag richtet sich nach der Beitragsgruppe. Er beträgt:",
            ("table", BEITRAEGE, "Tabelle 1: Jahresbeiträge (Grundbeitrag)"),
            "(2) Umgerechnet kostet die Mitgliedschaft für Erwachsene damit 14 Euro im Monat, "
            "für Jugendliche 8 Euro im Monat.",
            "(3) Eine Familienmitgliedschaft endet für ein Kind mit dem Ende des Jahres, in dem "
            "es 18 wird; es wird dann ohne neue Aufnahmegebühr als Einzelmitglied geführt.",
        ],
    ),
    (
        "§ 4 Abteilungsbeiträge",
        [
            "(1) Zusätzlich zum Grundbeitrag erheben einige Abteilungen einen Abteilungsbeitrag "
            "für jedes Mitglied, das dort Sport treibt. Er wird mit dem Grundbeitrag eingezogen.",
            ("table", ABTEILUNGEN, "Tabelle 2: Abteilungsbeiträge im Jahr"),
            "(2) Wer in mehreren Abteilungen aktiv ist, zahlt jeden Abteilungsbeitrag. Der "
            "Grundbeitrag wird nur einmal erhoben.",
            "(3) Erwachsene Mitglieder der Tennisabteilung leisten jedes Jahr acht "
            "Arbeitsstunden bei der Platzpflege und der Frühjahrsinstandsetzung. Für jede nicht "
            "geleistete Stunde werden 15 Euro berechnet und mit dem Beitrag des folgenden Jahres "
            "eingezogen.",
        ],
    ),
    (
        "§ 5 Platzmiete und Gastgebühren",
        [
            "(1) Mitglieder nutzen die Anlagen ihrer Abteilung zu den Trainings- und Spielzeiten "
            "kostenlos.",
            "(2) Tennis: Ein Gast, der mit einem Mitglied spielt, zahlt € 8,00 pro Stunde. "
            "Nichtmitglieder können einen Platz ohne Mitglied für € 20,00 pro Stunde buchen. "
            "Flutlicht auf den Plätzen 1 und 2 kostet € 4,50 pro Stunde zusätzlich. Gastkarten "
            "gibt es im Vereinsheim und in der Tennis-App des Vereins.",
            "(3) Fußball: Den Kunstrasenplatz vermietet der Verein an andere Vereine, Schulen und "
            "Betriebssportgruppen, den ganzen Platz für EUR 75,- und den halben Platz für "
            "EUR 40,- pro Stunde, jeweils zuzüglich EUR 15,- pro Stunde für das Flutlicht. Der "
            "Rasenplatz wird nicht vermietet.",
            "(4) Mitglieder können den Saal im Vereinsheim für private Feiern mieten. Die "
            "Beachvolleyballanlage steht Mitgliedern aller Abteilungen offen.",
        ],
    ),
    (
        "§ 6 Zahlungsweise und Fälligkeit",
        [
            "(1) Alle Beiträge werden im SEPA-Lastschriftverfahren eingezogen. Mit dem "
            "Aufnahmeantrag erteilt das Mitglied dem Verein ein SEPA-Lastschriftmandat. Die "
            "Gläubiger-Identifikationsnummer des Vereins lautet DE41ZZZ00001234567.",
            "(2) Grundbeitrag und Abteilungsbeiträge werden am 15. Februar fällig und an diesem "
            "Tag eingezogen, fällt er auf ein Wochenende, am nächsten Bankarbeitstag. Auf Antrag "
            "ist eine halbjährliche Zahlung am 15. Februar und am 15. August ohne Aufpreis "
            "möglich.",
            "(3) Wer im Laufe des Jahres eintritt, zahlt für jeden angefangenen Monat ab dem "
            "Eintritt ein Zwölftel des Jahresbeitrags. Der Betrag wird mit der Aufnahmegebühr im "
            "folgenden Monat eingezogen.",
            "(4) Mitglieder, die am Lastschriftverfahren nicht teilnehmen (Selbstzahler), "
            "überweisen ihre Beiträge bis zum 15. Februar und zahlen für den zusätzlichen "
            "Aufwand eine Bearbeitungsgebühr von 6,00 € im Jahr.",
            "(5) Kann eine Lastschrift nicht eingelöst werden, weil das Konto nicht gedeckt oder "
            "erloschen ist, trägt das Mitglied die Bankgebühren der Rücklastschrift und eine "
            "Bearbeitungsgebühr von 3,50 €.",
        ],
    ),
    (
        "§ 7 Zahlungsverzug",
        [
            "(1) Wer seinen Beitrag nicht rechtzeitig zahlt, wird wie folgt gemahnt:",
            ("table", MAHNUNG, "Tabelle 3: Mahnstufen und Mahngebühren"),
            "(2) Solange ein Mitglied mit seinen Beiträgen im Rückstand ist, ruhen sein "
            "Stimmrecht in der Mitgliederversammlung und sein Spielrecht im Ligabetrieb.",
            "(3) Bleibt auch die zweite Mahnung ohne Erfolg, kann der Vorstand das Mitglied nach "
            "§ 8 der Satzung aus dem Verein ausschließen. Die offenen Beiträge bleiben geschuldet.",
        ],
    ),
    (
        "§ 8 Ermäßigungen und Befreiungen",
        [
            "(1) Geschwister: Das dritte und jedes weitere minderjährige Kind einer Familie, die "
            "keine Familienmitgliedschaft hat, ist vom Grundbeitrag befreit. Abteilungsbeiträge "
            "sind weiter zu zahlen.",
            "(2) Wer den Sozialpass der Gemeinde besitzt oder Bürgergeld bezieht, zahlt auf "
            "Antrag die Hälfte des Grundbeitrags.",
            "(3) Aktive Übungsleiterinnen, Übungsleiter, Trainer und Mitglieder des Vorstands "
            "sind für die Dauer ihrer Tätigkeit beitragsfrei.",
            "(4) Bei Wehr- oder Freiwilligendienst, einem Auslandsaufenthalt von mehr als sechs "
            "Monaten oder langer Krankheit kann der Vorstand den Beitrag auf Antrag auf den "
            "Beitrag für passive Mitglieder ermäßigen.",
            "(5) Anträge auf Ermäßigung oder Befreiung sind bis zum 31. Januar des Beitragsjahres "
            "schriftlich bei der Geschäftsstelle zu stellen. Sie gelten nicht rückwirkend.",
        ],
    ),
    (
        "§ 9 Austritt",
        [
            "(1) Der Austritt ist nur zum 31. Dezember eines Jahres möglich. Er muss dem Vorstand "
            "spätestens sechs Wochen vorher schriftlich erklärt werden; eine E-Mail an die "
            "Geschäftsstelle genügt.",
            "(2) Gezahlte Beiträge werden beim Austritt, beim Ausschluss oder beim Tod eines "
            "Mitglieds nicht erstattet.",
        ],
    ),
    (
        "§ 10 Schlussbestimmungen",
        [
            "(1) Über die Höhe der Beiträge und Gebühren beschließt die Mitgliederversammlung. "
            "Abteilungsbeiträge beschließt die Abteilungsversammlung; sie bedürfen der "
            "Zustimmung des Vorstands.",
            "(2) Mit rund 1.250 Mitgliedern, 23 Mannschaften und 41 Übungsleitern ist der TSV "
            "Grünwald einer der größten Vereine im Landkreis. Die Beiträge sind seit 2022 nicht "
            "erhöht worden; die Erhöhung zum 1. Januar 2026 deckt vor allem die gestiegenen "
            "Energiekosten für Flutlicht und Vereinsheim.",
            "(3) Die Geschäftsstelle im Vereinsheim, Am Sportpark 4, ist dienstags von 17 bis "
            "19 Uhr und donnerstags von 9 bis 12 Uhr geöffnet, E-Mail "
            "geschaeftsstelle@tsv-gruenwald.example.",
        ],
    ),
]

BREAK_BEFORE: set[str] = set()
STYLES = ChapterStyles(H1, BODY)


def _columns(pno: int) -> list[pymupdf.Rect]:
    if pno == 0:
        return [pymupdf.Rect(M, 150, W - M, H - 60)]
    return [pymupdf.Rect(M, 72, W - M, H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    grey = Style("helv", 8, color=(0.4, 0.4, 0.4))
    if n > 1:
        put(page, M, 44, "TSV Grünwald 1908 e.V.  |  Beitragsordnung 2026", grey)
    put(page, W - M - 40, H - 30, f"Seite {n}", grey)


def _note(flow: Flow, title: str, lines: Sequence[str]) -> None:
    """A shaded box across the column, kept whole on one page."""
    pad = 6.0
    width = flow.rect.width - 2 * pad
    blocks = [(title, NOTE_TITLE)] + [(p, NOTE_BODY) for p in lines]
    height = 2 * pad + sum(len(wrap(t, width, st)) * st.leading + st.after for t, st in blocks)
    flow.space(4.0)
    flow.need(height)
    assert flow.page is not None
    rect = pymupdf.Rect(flow.rect.x0, flow.y, flow.rect.x1, H)
    flow.y = flow.box(flow.page, rect, title, lines, NOTE_BODY, NOTE_TITLE, fill=NOTE_FILL) + 10.0


def build(path: str) -> None:
    doc = new_document(f"{TITLE}: {SUBTITLE}", "TSV Grünwald 1908 e.V.", "Beitragsordnung")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    page.draw_rect(pymupdf.Rect(0, 0, W, 112), color=None, fill=BLUE)
    put(page, M, 60, TITLE, Style("hebo", 22.0, color=(1, 1, 1)))
    put(page, M, 88, SUBTITLE, Style("helv", 12.0, color=(1, 1, 1)))
    put(
        page,
        M,
        134,
        "Beschlossen von der Mitgliederversammlung am 21. März 2025",
        Style("heit", 9.5, color=(0.3, 0.3, 0.3)),
    )
    write_chapters(flow, SECTIONS, STYLES, break_before=BREAK_BEFORE, note=_note)
    save(doc, path)
