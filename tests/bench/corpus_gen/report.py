"""An annual performance report with ruled tables (questions whose answer is a table row)."""

from __future__ import annotations

from app.ingest._mupdf import pymupdf

from .render import ChapterStyles, Flow, Style, new_document, put, save, write_chapters

FILE = "millbrook_water_report_2025.pdf"
W, H = 595.0, 842.0
M = 60.0
TITLE = "Millbrook Water Services: Annual Performance Report 2025"

BODY = Style("helv", 10.0, 13.5, after=6.0)
H1 = Style("hebo", 14.0, 18.0, before=10.0, after=6.0, color=(0.0, 0.3, 0.5))
STYLES = ChapterStyles(H1, BODY)

KEY_FIGURES = (
    ["Measure", "2024", "2025", "Target 2025"],
    [
        ["Water put into supply (megalitres per day)", "161.2", "157.8", "160.0"],
        ["Household customers", "214,600", "217,950", "-"],
        ["Business customers", "11,240", "11,310", "-"],
        ["Leakage (megalitres per day)", "29.4", "26.1", "27.0"],
        ["Mains bursts per 1,000 km of main", "148", "131", "140"],
        ["Supply interruptions over 3 hours (minutes per property)", "8.9", "6.2", "7.0"],
        ["Drinking water compliance (percent of samples)", "99.96", "99.97", "100"],
        ["Written complaints per 10,000 connections", "17.5", "14.8", "15.0"],
    ],
    [270.0, 70.0, 70.0, 65.0],
)

PLANTS = (
    ["Treatment works", "Source", "Capacity (Ml/d)", "Commissioned", "Average output 2025"],
    [
        ["Ashgrove", "River Teme", "48.0", "1987", "39.6"],
        ["Coldharbour", "Coldharbour reservoir", "36.5", "1962", "31.2"],
        ["Fellside", "Boreholes (chalk aquifer)", "22.0", "2011", "18.9"],
        ["Kingsmere", "River Lodden", "41.0", "1974", "33.0"],
        ["Orton Lane", "Boreholes (sandstone)", "12.5", "1998", "9.8"],
        ["Whitley Bridge", "River Teme", "30.0", "2019", "25.3"],
    ],
    [95.0, 135.0, 80.0, 85.0, 80.0],
)

COMPLAINTS = (
    ["Category", "Q1", "Q2", "Q3", "Q4", "Total"],
    [
        ["Taste and odour", "41", "38", "57", "35", "171"],
        ["Discoloured water", "88", "61", "73", "92", "314"],
        ["Low pressure", "66", "70", "104", "59", "299"],
        ["Billing and charges", "120", "97", "85", "111", "413"],
        ["Roadworks and reinstatement", "23", "45", "52", "30", "150"],
        ["Metering", "31", "28", "26", "40", "125"],
    ],
    [170.0, 55.0, 55.0, 55.0, 55.0, 85.0],
)

TARIFFS = (
    ["Charge (2025/26)", "Unmetered", "Metered", "Unit"],
    [
        ["Standing charge, household", "-", "38.20", "pounds per year"],
        ["Volumetric charge, household", "-", "1.74", "pounds per cubic metre"],
        ["Rateable value charge", "0.92", "-", "pounds per pound of rateable value"],
        ["Assessed charge, single occupier", "212.00", "-", "pounds per year"],
        ["Business volumetric charge, first 50,000 m3", "-", "1.61", "pounds per cubic metre"],
        ["Business volumetric charge, above 50,000 m3", "-", "1.28", "pounds per cubic metre"],
    ],
    [200.0, 70.0, 65.0, 140.0],
)

PROJECTS = (
    ["Project", "Budget (GBP m)", "Spent to date (GBP m)", "Status"],
    [
        ["Ashgrove ultraviolet disinfection upgrade", "14.2", "13.9", "Completed June 2025"],
        ["Kingsmere to Fellside transfer main", "22.5", "9.1", "Under construction"],
        ["Smart meter roll-out, phase 2", "31.0", "12.4", "On schedule"],
        ["Coldharbour dam spillway repair", "8.7", "2.2", "Delayed: planning consent"],
        ["Lead pipe replacement programme", "6.4", "5.8", "Ongoing"],
    ],
    [190.0, 80.0, 95.0, 110.0],
)

CHAPTERS: list[tuple[str, list[object]]] = [
    (
        "1 Chair's introduction",
        [
            "2025 was a year of hot, dry summer weeks followed by one of the wettest autumns on "
            "record. Our customers used less water than in 2024, partly because 14,000 more homes "
            "now have a meter, and we put less water into supply than in any year since 2010.",
            "We met nine of our eleven performance commitments. We missed the target for low-pressure "
            "complaints, which rose during the August heatwave when demand in the Kingsmere zone "
            "peaked at 21 percent above the annual average, and the target for the Coldharbour dam "
            "works, which are waiting for planning consent.",
            "I would like to thank our 1,140 colleagues, who kept water flowing through two major "
            "bursts on the Lodden trunk main in December.",
        ],
    ),
    (
        "2 Key figures",
        [
            "Table 1 compares our main operational figures with the previous year and with the "
            "targets agreed with the regulator for 2025.",
            ("table", KEY_FIGURES, "Table 1: Key operational figures"),
            "Leakage fell by 3.3 megalitres a day, the largest reduction in a single year since "
            "leakage reporting began. Most of the gain came from pressure management in the hilly "
            "Fellside district and from acoustic loggers that find leaks before they surface.",
        ],
    ),
    (
        "3 Our treatment works",
        [
            "We treat water at six works. River water is screened, clarified, filtered through sand "
            "and granular activated carbon and disinfected; groundwater from boreholes needs less "
            "treatment, usually only disinfection and the removal of nitrate at Fellside.",
            ("table", PLANTS, "Table 2: Treatment works, capacity and output"),
            "Whitley Bridge, our newest works, was built to reduce our reliance on Coldharbour "
            "reservoir, whose level fell to 58 percent of capacity in September. The ultraviolet "
            "disinfection stage at Ashgrove was completed in June and now treats the full flow.",
        ],
    ),
    (
        "4 What our customers told us",
        [
            "We received 4,690 written complaints in 2025 across all categories, 12 percent fewer "
            "than in 2024. Table 3 shows the written complaints about water supply and billing by "
            "quarter.",
            ("table", COMPLAINTS, "Table 3: Written complaints by category and quarter, 2025"),
            "Low-pressure complaints peaked in the third quarter, during the heatwave. Complaints "
            "about discoloured water followed the flushing programme in the first quarter and the "
            "December bursts, when sediment was disturbed in the mains.",
            "Ninety-six percent of complaints received a full reply within ten working days. Customers "
            "who are not satisfied can take their complaint to the independent Consumer Council for "
            "Water free of charge.",
        ],
    ),
    (
        "5 Charges for 2025/26",
        [
            "Our charges rose by an average of 6.1 percent on 1 April 2025, in line with the price "
            "limits set by the regulator. The average household bill is now 486 pounds a year. "
            "Customers on low incomes can apply to our Assist tariff, which caps the bill at 240 "
            "pounds a year; 9,800 households were on it at the end of 2025.",
            ("table", TARIFFS, "Table 4: Main water charges, 2025/26"),
            "Households without a meter can ask for one to be fitted free of charge, and may switch "
            "back to unmetered charges within two years if their bill turns out higher.",
        ],
    ),
    (
        "6 Investing in the network",
        [
            "We invested 118 million pounds in 2025, of which 71 million went to renewing and "
            "extending mains and 23 million to our treatment works. Table 5 lists the larger projects "
            "under way.",
            ("table", PROJECTS, "Table 5: Major capital projects"),
            "The Kingsmere to Fellside transfer main, 17 kilometres long, will let us move up to 15 "
            "megalitres a day between the two zones during droughts. It is due to be completed in "
            "autumn 2026.",
        ],
    ),
    (
        "7 Environment",
        [
            "Our operations emitted 21,400 tonnes of carbon dioxide equivalent in 2025, 9 percent "
            "less than in 2024, mainly because the solar arrays at Ashgrove and Kingsmere now supply "
            "a fifth of those sites' electricity.",
            "We abstracted less than our licensed volume from the River Teme throughout the summer, "
            "and we voluntarily reduced abstraction at Kingsmere for six weeks to protect flows for "
            "spawning trout in the Lodden.",
        ],
    ),
]


def _columns(pno: int) -> list[pymupdf.Rect]:
    return [pymupdf.Rect(M, 70 if pno else 190, W - M, H - 60)]


def _furniture(page: pymupdf.Page, n: int) -> None:
    if n > 1:
        put(
            page,
            M,
            40,
            "Millbrook Water Services  -  Annual Performance Report 2025",
            Style("helv", 8, color=(0.4, 0.4, 0.4)),
        )
    put(page, W - M - 30, H - 30, f"Page {n}", Style("helv", 8, color=(0.4, 0.4, 0.4)))


def build(path: str) -> None:
    doc = new_document(TITLE, "Millbrook Water Services", "Annual report")
    flow = Flow(doc, (W, H), _columns, _furniture)
    page = flow.new_page()
    put(page, M, 110, "Millbrook Water Services", Style("hebo", 24, color=(0.0, 0.3, 0.5)))
    put(page, M, 145, "Annual Performance Report 2025", Style("helv", 16))
    write_chapters(flow, CHAPTERS, STYLES, break_before=(2, 4, 6))
    save(doc, path)
