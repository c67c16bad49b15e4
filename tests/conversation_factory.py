"""PDFs for conversations and summaries: a fact sheet whose sections each sit on their own
page (so a follow-up's page recall is checkable), and long sectioned reports for summaries.
Real PDFs written with PyMuPDF, with an outline, as a word processor would save them."""

from __future__ import annotations

from pathlib import Path

from app.ingest._mupdf import pymupdf

_DATES = {"creationDate": "D:20250101000000Z", "modDate": "D:20250101000000Z"}

FACT_SHEET_TITLE = "Breast Cancer in Australia: Facts and Figures"
FACT_SHEET: list[tuple[str, list[str]]] = [
    (
        "1 Breast cancer in women",
        [
            "About 20,000 women in Australia are diagnosed with breast cancer each year.",
            "Most women diagnosed with breast cancer are over 50 years old, and the risk rises"
            " with age. Breast cancer is the most common cancer in Australian women.",
        ],
    ),
    (
        "2 Breast cancer in men",
        [
            "Roughly 200 men in Australia are diagnosed with breast cancer each year.",
            "Most men diagnosed with breast cancer are over 60 years old. Men often notice a"
            " painless lump under the nipple, and many wait before they see a doctor.",
        ],
    ),
    (
        "3 Screening",
        [
            "BreastScreen Australia offers a free screening mammogram every two years to women"
            " aged 50 to 74.",
            "Screening is not offered to men, because breast cancer in men is rare and a"
            " programme would find very few cancers.",
        ],
    ),
    (
        "4 Treatment",
        [
            "Treatment usually starts with surgery to remove the tumour, followed by"
            " radiotherapy or hormone therapy.",
            "Five years after diagnosis, 92 percent of people treated for breast cancer are"
            " alive, whether they are women or men.",
        ],
    ),
]
"""(heading, paragraphs) of the fact sheet; section i is printed on page i + 1."""


def make_sectioned_pdf(
    path: Path | str,
    title: str,
    sections: list[tuple[str, list[str]]],
    *,
    pages_per_section: int = 1,
) -> Path:
    """One page per section (or ``pages_per_section``, its paragraphs spread over them), a
    bold heading at its top, an outline entry for each heading."""
    path = Path(path)
    doc = pymupdf.open()
    toc: list[list[object]] = []
    for heading, paragraphs in sections:
        per_page = max(1, -(-len(paragraphs) // pages_per_section))
        for k in range(pages_per_section):
            page = doc.new_page(width=595, height=842)
            y = 72.0
            if k == 0:
                page.insert_text((72, y + 16), heading, fontsize=16, fontname="hebo")
                toc.append(
                    [
                        1,
                        heading,
                        doc.page_count,
                        {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(72, y)},
                    ]
                )
                y += 40
            for para in paragraphs[k * per_page : (k + 1) * per_page]:
                rect = pymupdf.Rect(72, y, 523, 790)
                spare = page.insert_textbox(rect, para, fontsize=10.5, fontname="helv")
                y = rect.y1 - spare + 10
    doc.set_toc(toc)
    doc.set_metadata({"title": title, "producer": "conversation_factory", **_DATES})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


def make_fact_sheet_pdf(path: Path | str) -> Path:
    return make_sectioned_pdf(path, FACT_SHEET_TITLE, FACT_SHEET)
