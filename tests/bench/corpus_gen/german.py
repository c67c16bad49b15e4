"""A German-language guide (single column, A4): rooftop solar power for homeowners."""

from __future__ import annotations

from app.ingest._mupdf import pymupdf

from .render import ChapterStyles, Flow, Style, new_document, put, save, write_chapters

FILE = "leitfaden_photovoltaik.pdf"
W, H = 595.0, 842.0
M = 64.0
TITLE = "Solarstrom vom eigenen Dach: Ein Leitfaden für Hausbesitzer"

BODY = Style("helv", 10.0, 14.0, after=6.0)
H1 = Style("hebo", 13.5, 17.0, before=10.0, after=5.0, color=(0.55, 0.2, 0.0))
STYLES = ChapterStyles(H1, BODY)

CHAPTERS: list[tuple[str, list[object]]] = [
    (
        "1 Warum sich eine Solaranlage lohnt",
        [
            "Eine Photovoltaikanlage wandelt Sonnenlicht direkt in elektrischen Strom um. Für ein "
            "Einfamilienhaus ist sie heute meist die günstigste Möglichkeit, selbst Strom zu "
            "erzeugen: Eine Kilowattstunde vom eigenen Dach kostet über die Lebensdauer der Anlage "
            "gerechnet etwa 8 bis 12 Cent, während Haushaltsstrom aus dem Netz mehr als dreimal so "
            "viel kostet.",
            "Wirtschaftlich entscheidend ist der Eigenverbrauch. Jede selbst verbrauchte "
            "Kilowattstunde ersetzt teuren Netzstrom, während für eingespeisten Strom nur die "
            "deutlich niedrigere Einspeisevergütung gezahlt wird. Ohne Speicher verbraucht ein "
            "typischer Haushalt etwa 25 bis 35 Prozent seines Solarstroms selbst.",
        ],
    ),
    (
        "2 Ist mein Dach geeignet?",
        [
            "Am besten eignen sich Dächer, die nach Süden ausgerichtet und 30 bis 35 Grad geneigt "
            "sind. Auch Ost- und Westdächer sind gut nutzbar: Sie liefern zwar rund 15 bis 20 "
            "Prozent weniger Ertrag, verteilen die Erzeugung aber besser über den Tag, was den "
            "Eigenverbrauch erhöht. Reine Norddächer lohnen sich nur bei geringer Neigung.",
            "Verschattung durch Bäume, Gauben oder Schornsteine kann den Ertrag stark mindern, "
            "weil ein verschattetes Modul den ganzen Strang bremsen kann. Leistungsoptimierer oder "
            "Modulwechselrichter begrenzen diesen Verlust.",
            "Prüfen Sie vor der Montage den Zustand der Dacheindeckung. Muss das Dach in den "
            "nächsten zehn bis fünfzehn Jahren ohnehin saniert werden, sollte dies vor dem Bau der "
            "Anlage geschehen, denn das spätere Ab- und Wiederaufbauen der Module kostet mehrere "
            "tausend Euro.",
        ],
    ),
    (
        "3 Größe der Anlage und Ertrag",
        [
            "Als Faustregel benötigt ein Kilowatt Peak Leistung etwa fünf bis sechs Quadratmeter "
            "Dachfläche. In Süddeutschland erzeugt jedes Kilowatt Peak im Jahr rund 1.000 bis "
            "1.100 Kilowattstunden, in Norddeutschland etwas weniger.",
            "Wir empfehlen, das Dach möglichst vollständig zu belegen, statt die Anlage knapp am "
            "heutigen Verbrauch auszurichten. Ein späteres Elektroauto oder eine Wärmepumpe erhöht "
            "den Strombedarf erheblich, und die Kosten pro Kilowatt Peak sinken mit der Größe der "
            "Anlage.",
            (
                "table",
                (
                    [
                        "Anlagengröße",
                        "Modulfläche",
                        "Jahresertrag (Süd)",
                        "Richtpreis inkl. Montage",
                    ],
                    [
                        ["5 kWp", "ca. 28 m²", "ca. 5.200 kWh", "9.000 bis 11.000 Euro"],
                        ["8 kWp", "ca. 45 m²", "ca. 8.300 kWh", "12.500 bis 15.000 Euro"],
                        ["10 kWp", "ca. 56 m²", "ca. 10.400 kWh", "14.500 bis 17.500 Euro"],
                        ["15 kWp", "ca. 84 m²", "ca. 15.600 kWh", "19.000 bis 23.000 Euro"],
                    ],
                    [100.0, 85.0, 115.0, 167.0],
                ),
                "Tabelle 1: Typische Anlagengrößen, Flächenbedarf und Kosten",
            ),
        ],
    ),
    (
        "4 Batteriespeicher",
        [
            "Ein Batteriespeicher nimmt überschüssigen Solarstrom am Tag auf und gibt ihn abends "
            "und nachts wieder ab. Damit steigt der Eigenverbrauch auf 60 bis 70 Prozent. Als "
            "Richtwert gilt eine Speicherkapazität von etwa einer Kilowattstunde je 1.000 "
            "Kilowattstunden Jahresverbrauch.",
            "Speicher kosten derzeit etwa 500 bis 800 Euro je Kilowattstunde Kapazität. Ob sich "
            "ein Speicher rechnet, hängt vor allem vom Strompreis und vom Verbrauchsprofil ab; "
            "Haushalte, die tagsüber wenig zu Hause sind, profitieren am meisten. Hersteller "
            "garantieren in der Regel 6.000 Ladezyklen oder zehn Jahre.",
        ],
    ),
    (
        "5 Anmeldung und Einspeisevergütung",
        [
            "Jede Anlage muss vor der Inbetriebnahme beim örtlichen Netzbetreiber angemeldet und "
            "innerhalb eines Monats nach Inbetriebnahme im Marktstammdatenregister der "
            "Bundesnetzagentur eingetragen werden. Ohne diesen Eintrag wird keine "
            "Einspeisevergütung ausgezahlt.",
            "Die Einspeisevergütung wird ab dem Monat der Inbetriebnahme für 20 Jahre zu einem "
            "festen Satz gezahlt. Für kleine Anlagen bis 10 Kilowatt Peak, die nur den "
            "Überschuss einspeisen, liegt sie derzeit bei knapp 8 Cent je Kilowattstunde.",
            "Für Anlagen bis 30 Kilowatt Peak auf Wohngebäuden fällt seit 2023 keine "
            "Umsatzsteuer mehr an, und die Einnahmen sind von der Einkommensteuer befreit. Eine "
            "Gewerbeanmeldung ist dafür in der Regel nicht nötig.",
        ],
    ),
    (
        "6 Balkonkraftwerke",
        [
            "Wer kein eigenes Dach hat, kann mit einem Steckersolargerät, auch Balkonkraftwerk "
            "genannt, einen Teil seines Stroms selbst erzeugen. Solche Geräte dürfen bis zu 800 "
            "Watt Wechselrichterleistung haben und werden einfach an eine Steckdose angeschlossen.",
            "Mieter brauchen für die Montage am Balkon die Zustimmung des Vermieters, der sie aber "
            "nur aus wichtigen Gründen verweigern darf. Die Anmeldung beim Netzbetreiber entfällt; "
            "der Eintrag im Marktstammdatenregister ist jedoch weiterhin Pflicht.",
        ],
    ),
    (
        "7 Betrieb und Wartung",
        [
            "Photovoltaikanlagen sind weitgehend wartungsfrei. Eine Reinigung der Module ist bei "
            "ausreichender Neigung meist unnötig, weil der Regen den Staub abwäscht. Alle vier "
            "Jahre sollte ein Fachbetrieb die elektrischen Anschlüsse und die Befestigung prüfen.",
            "Die Module verlieren mit der Zeit etwas Leistung; die meisten Hersteller garantieren "
            "nach 25 Jahren noch mindestens 80 Prozent der Nennleistung. Der Wechselrichter hält "
            "meist 12 bis 15 Jahre und muss daher während der Lebensdauer der Anlage "
            "voraussichtlich einmal ersetzt werden.",
            "Kontrollieren Sie den Ertrag regelmäßig über die App oder das Display des "
            "Wechselrichters. Ein plötzlicher Einbruch deutet auf einen Defekt oder eine neue "
            "Verschattung hin.",
        ],
    ),
]


def _columns(pno: int) -> list[pymupdf.Rect]:
    return [pymupdf.Rect(M, 70 if pno else 170, W - M, H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    put(page, M, H - 30, f"Energieagentur Oberland  |  Seite {n}", Style("helv", 8))


def build(path: str) -> None:
    doc = new_document(TITLE, "Energieagentur Oberland", "Photovoltaik")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    put(page, M, 100, "Solarstrom vom eigenen Dach", Style("hebo", 22, color=(0.55, 0.2, 0.0)))
    put(page, M, 128, "Ein Leitfaden für Hausbesitzer", Style("helv", 14))
    write_chapters(flow, CHAPTERS, STYLES)
    save(doc, path)
