"""PDFs shaped like documents people own: an arXiv paper, a brochure cover, a report,
rotated pages, and text in Chinese, Korean and Arabic. Ground truth is exposed as constants.

The Arabic fixture needs a font with Arabic glyphs; ``tests/data/DejaVuSans-Arabic.ttf``
is DejaVu Sans (Debian ``fonts-dejavu-core``; licence in tests/data/LICENSE.md) reduced to
its Arabic and basic Latin glyphs.
"""

from __future__ import annotations

from pathlib import Path

from app.ingest._mupdf import pymupdf

DATA = Path(__file__).parent / "data"
ARABIC_FONT = DATA / "DejaVuSans-Arabic.ttf"
_DATES = {"creationDate": "D:20250101000000Z", "modDate": "D:20250101000000Z"}

ARXIV_TITLE = "Sparse Retrieval for Long Documents with Citation Constraints"
ARXIV_STAMP = "arXiv:2009.12345v1  [cs.CL]  30 Sep 2020"
BROCHURE_TITLE = "Living well with diabetes"
REPORT_TITLE = "Annual Report on Regional Water Quality 2024"


def _save(doc: pymupdf.Document, path: Path, title: str = "") -> Path:
    doc.set_metadata({"title": title, "producer": "doc_factory", **_DATES})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return path


def _body(page: pymupdf.Page, y: float, paragraphs: list[str], size: float = 10.0) -> float:
    for para in paragraphs:
        rect = pymupdf.Rect(72, y, 523, y + 200)
        spare = page.insert_textbox(rect, para, fontsize=size, fontname="helv")
        y = rect.y1 - spare + 8
    return y


_PARAGRAPHS = [
    "We study how a retrieval system can answer questions about long documents while "
    "citing the exact sentences that support each claim. Our method ranks passages with "
    "a sparse index and then checks every quotation against its source.",
    "Experiments on three collections show that constrained decoding removes invalid "
    "citations entirely, while answer quality stays within one point of the baseline.",
]


def make_arxiv_pdf(path: Path | str) -> Path:
    """Two pages: an arXiv stamp printed sideways in the left margin (larger than the
    title, as arXiv prints it), a running header, the title, authors, abstract, body. No
    metadata title (as many LaTeX builds)."""
    path = Path(path)
    doc = pymupdf.open()
    for pno in range(2):
        page = doc.new_page(width=612, height=792)
        page.insert_text((40, 560), ARXIV_STAMP, fontsize=20, rotate=90, color=(0.5, 0.5, 0.5))
        page.insert_text((72, 50), "Preprint. Under review.", fontsize=8)
        y = 100.0
        if pno == 0:
            page.insert_textbox(
                pymupdf.Rect(72, y, 540, y + 60),
                ARXIV_TITLE,
                fontsize=17,
                fontname="hebo",
                align=1,
            )
            page.insert_text((200, 170), "Ada Example, Ben Sample", fontsize=11)
            page.insert_text((230, 185), "University of Examples", fontsize=9)
            page.insert_text((280, 215), "Abstract", fontsize=11, fontname="hebo")
            y = 225.0
        _body(page, y, _PARAGRAPHS)
    return _save(doc, path)


def make_brochure_pdf(path: Path | str) -> Path:
    """A health booklet: a cover whose title spans two lines in separate blocks, a
    subtitle ending "their families and friends", a publisher line, then a body page.
    Metadata title is a layout file name (junk)."""
    path = Path(path)
    doc = pymupdf.open()
    cover = doc.new_page(width=420, height=595)
    cover.draw_rect(cover.rect, color=None, fill=(0.9, 0.95, 1.0))
    cover.insert_text((40, 160), "Living well", fontsize=34, fontname="hebo")
    cover.insert_text((40, 200), "with diabetes", fontsize=34, fontname="hebo")
    cover.insert_text((40, 250), "Information for people with diabetes,", fontsize=14)
    cover.insert_text((40, 268), "their families and friends", fontsize=14)
    cover.insert_text((40, 540), "Regional Health Service", fontsize=10)
    page = doc.new_page(width=420, height=595)
    page.insert_textbox(
        pymupdf.Rect(40, 60, 380, 500),
        "Check your blood sugar before breakfast and before your evening meal. "
        "Write the readings in your diary and bring it to every appointment.",
        fontsize=10,
    )
    return _save(doc, path, title="booklet_v3_print.indd")


def make_report_pdf(path: Path | str) -> Path:
    """A report with a real metadata title and a cover page with a smaller logo line."""
    path = Path(path)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "ENVIRONMENT AGENCY", fontsize=9)
    page.insert_text((72, 200), "Regional Water Quality", fontsize=26, fontname="hebo")
    page.insert_text((72, 240), "Annual report 2024", fontsize=18)
    _body(page, 300, _PARAGRAPHS[:1])
    return _save(doc, path, title=REPORT_TITLE)


ROTATED_SENTENCES = {
    0: "The upright page lists the spare parts kept in the workshop.",
    90: "The quarter-turned page shows the wiring diagram of the pump station.",
    180: "The upside-down page records the calibration of the flow meter.",
    270: "The three-quarter-turned page gives the maintenance schedule for spring.",
}
ROTATED_AT = (72.0, 120.0)  # where each sentence starts on the page as shown (top-left origin)


def make_rotated_pdf(path: Path | str) -> Path:
    """Four pages with /Rotate 0, 90, 180 and 270 whose text reads upright on screen (as a
    landscape table stored sideways does); each sentence starts at ``ROTATED_AT`` as shown."""
    path = Path(path)
    doc = pymupdf.open()
    for rot, sentence in ROTATED_SENTENCES.items():
        page = doc.new_page(width=595, height=842)
        page.set_rotation(rot)
        shown = pymupdf.Point(ROTATED_AT[0], ROTATED_AT[1] + 12) * page.derotation_matrix
        page.insert_text(shown, sentence, fontsize=12, rotate=rot)
        page.insert_text(
            pymupdf.Point(72, 200) * page.derotation_matrix,
            "Second line of text on this page.",
            fontsize=12,
            rotate=rot,
        )
    return _save(doc, path, title="Rotated pages")


CHINESE_SENTENCES = [
    "离线问答系统可以在没有网络的情况下引用原文。",
    "每个引用都指向页面上的确切句子。",
    "扫描的文件会先经过文字识别再建立索引。",
]
KOREAN_SENTENCES = [
    "이 프로그램은 인터넷 연결 없이 문서에 대한 질문에 답합니다.",
    "모든 인용은 페이지의 정확한 문장을 가리킵니다.",
]
ARABIC_SENTENCES = [
    "تعمل المكتبة بدون اتصال بالشبكة.",
    "يحفظ النظام النص الأصلي لكل صفحة.",
    "يشير كل اقتباس إلى الجملة الدقيقة في الصفحة.",
]
ARABIC_PDF = DATA / "arabic.pdf"


def make_cjk_pdf(path: Path | str) -> Path:
    """Chinese and Korean sentences, one per line, in PyMuPDF's built-in CJK font."""
    path = Path(path)
    doc = pymupdf.open()
    page = doc.new_page()
    writer = pymupdf.TextWriter(page.rect)
    font = pymupdf.Font("cjk")
    page.insert_text((72, 72), "Mixed scripts", fontsize=16)
    y = 110.0
    for sentence in CHINESE_SENTENCES + KOREAN_SENTENCES:
        writer.append((72, y), sentence, font=font, fontsize=12)
        y += 24
    writer.write_text(page)
    return _save(doc, path, title="Mixed scripts")


def make_arabic_pdf(
    path: Path | str, font_dir: Path | str = "/usr/share/fonts/truetype/dejavu"
) -> Path:
    """Arabic paragraphs set right to left (shaped by MuPDF's HTML layout) in DejaVu Sans,
    embedded as a subset. ``tests/data/arabic.pdf`` was made by this function from Debian's
    ``fonts-dejavu-core``; tests use that file, so they need no font installed."""
    path = Path(path)
    doc = pymupdf.open()
    page = doc.new_page()
    css = "@font-face {font-family: dv; src: url(DejaVuSans.ttf);} * {font-family: dv;}"
    html = "".join(f'<p dir="rtl" style="font-size: 14px">{s}</p>' for s in ARABIC_SENTENCES)
    page.insert_htmlbox(
        pymupdf.Rect(72, 72, 523, 400), html, css=css, archive=pymupdf.Archive(str(font_dir))
    )
    doc.subset_fonts()
    return _save(doc, path, title="Arabic sample")
