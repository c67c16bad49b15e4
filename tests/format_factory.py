"""Real documents that are not PDFs, written byte by byte for tests: EPUB, FB2, plain text,
Markdown, DOCX and CBZ. Each holds one known sentence (``*_FACT``) that a test searches for,
cites and checks the highlight of.

Why by hand: python-docx and ebook libraries are not dependencies, and the formats are small
zip or XML files whose minimal valid form is a few lines (EPUB 2 with one chapter, an
Office Open XML package with one part). Written deterministically (fixed zip times), so the
same call gives the same bytes and the same document id.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

EPUB_TITLE = "The Lighthouse Keeper"
EPUB_FACT = "The lamp at Gull Rock burned whale oil until the winter of 1904."
TXT_FACT = "The copper kettle in the north hut holds exactly three litres of water."
MD_FACT = "Run the calibrate command twice before the first measurement."
FB2_FACT = "The ferry to Skarvik leaves at seven each morning except on Sundays."
DOCX_FACT = "The boiler in building C is serviced every March by Halden Heating."
PPTX_FACT = "Churn fell to four percent in the third quarter."
XLSX_ROW = "Annual pass"

_FILLER = (
    "The keeper wrote in the log each evening, noting the wind, the sea and the ships that "
    "passed the point."
)
_DATE = (2025, 1, 1, 0, 0, 0)


def _zip(path: Path, parts: list[tuple[str, str]], *, stored_first: bool = False) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for i, (name, text) in enumerate(parts):
            info = zipfile.ZipInfo(name, date_time=_DATE)
            stored = stored_first and i == 0  # EPUB's "mimetype" must come first, uncompressed
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    return path


def make_epub(path: Path, *, fact: str = EPUB_FACT, title: str = EPUB_TITLE) -> Path:
    """An EPUB 2 book: two chapters; ``fact`` in the second, after a page or so of log."""
    chapters = [
        ("Chapter One: The Point", [_FILLER] * 12),
        ("Chapter Two: The Lamp", [_FILLER] * 6 + [fact] + [_FILLER] * 4),
    ]
    xhtml = []
    for i, (head, paras) in enumerate(chapters, 1):
        body = "".join(f"<p>{p}</p>" for p in paras)
        xhtml.append(
            (
                f"OEBPS/c{i}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?>'
                '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>'
                f"{head}</title></head><body><h1>{head}</h1>{body}</body></html>",
            )
        )
    manifest = "".join(
        f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(1, len(chapters) + 1)
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(1, len(chapters) + 1))
    return _zip(
        path,
        [
            ("mimetype", "application/epub+zip"),
            (
                "META-INF/container.xml",
                '<?xml version="1.0"?><container version="1.0" '
                'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                '<rootfile full-path="OEBPS/content.opf" '
                'media-type="application/oebps-package+xml"/></rootfiles></container>',
            ),
            (
                "OEBPS/content.opf",
                '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                'version="2.0" unique-identifier="id"><metadata '
                'xmlns:dc="http://purl.org/dc/elements/1.1/">'
                f'<dc:title>{title}</dc:title><dc:identifier id="id">footnote-test</dc:identifier>'
                "<dc:language>en</dc:language></metadata>"
                f"<manifest>{manifest}</manifest><spine>{spine}</spine></package>",
            ),
            *xhtml,
        ],
        stored_first=True,
    )


def make_txt(path: Path, *, fact: str = TXT_FACT) -> Path:
    path.write_text(
        "Hut inventory\n\n" + (_FILLER + "\n\n") * 3 + fact + "\n\n" + _FILLER + "\n",
        encoding="utf-8",
    )
    return path


def make_md(path: Path, *, fact: str = MD_FACT) -> Path:
    path.write_text(
        f"# Setup guide\n\n{_FILLER}\n\n## Before you start\n\n{fact}\n\n- a list item\n",
        encoding="utf-8",
    )
    return path


def make_fb2(path: Path, *, fact: str = FB2_FACT) -> Path:
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>'
        '<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">'
        "<description><title-info><book-title>Island Timetables</book-title>"
        "<lang>en</lang></title-info></description>"
        f"<body><section><title><p>Ferries</p></title><p>{_FILLER}</p><p>{fact}</p>"
        "</section></body></FictionBook>",
        encoding="utf-8",
    )
    return path


def make_docx(path: Path, *, fact: str = DOCX_FACT, paragraphs: int = 3) -> Path:
    """A minimal Office Open XML word-processing package (what Word reads as .docx)."""
    paras = ["Facilities memo", *([_FILLER] * paragraphs), fact, _FILLER]
    body = "".join(f'<w:p><w:r><w:t xml:space="preserve">{p}</w:t></w:r></w:p>' for p in paras)
    return _zip(
        path,
        [
            (
                "[Content_Types].xml",
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" '
                'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                '<Default Extension="xml" ContentType="application/xml"/>'
                '<Override PartName="/word/document.xml" ContentType="application/'
                'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                "</Types>",
            ),
            (
                "_rels/.rels",
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats'
                '.org/officeDocument/2006/relationships/officeDocument" '
                'Target="word/document.xml"/></Relationships>',
            ),
            (
                "word/document.xml",
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/'
                f'2006/main"><w:body>{body}</w:body></w:document>',
            ),
        ],
    )


def _libreoffice(src: Path, fmt: str, out: Path, *, infilter: str | None = None) -> Path:
    """``src`` saved as ``fmt`` by LibreOffice itself (a real file of that format)."""
    soffice = shutil.which("soffice")
    assert soffice, "LibreOffice is needed to write this test file"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [soffice, f"-env:UserInstallation={Path(tmp, 'p').as_uri()}", "--headless"]
        if infilter:
            cmd.append(f"--infilter={infilter}")
        cmd += ["--convert-to", fmt, "--outdir", tmp, str(src)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=180)
        shutil.move(Path(tmp, f"{src.stem}.{fmt}"), out)
    return out


def make_pptx(path: Path, *, fact: str = PPTX_FACT) -> Path:
    """A one-slide PowerPoint file, written by LibreOffice Impress from a slide-sized PDF."""
    from app.ingest._mupdf import pymupdf

    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp, f"{path.stem}.pdf")
        doc = pymupdf.open()
        page = doc.new_page(width=792, height=612)
        page.insert_text((72, 100), "Quarterly review", fontsize=28)
        page.insert_text((72, 160), fact, fontsize=18)
        doc.save(pdf)
        doc.close()
        return _libreoffice(pdf, "pptx", path, infilter="impress_pdf_import")


def make_xlsx(path: Path) -> Path:
    """A small price list as an Excel workbook, written by LibreOffice Calc from CSV."""
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp, f"{path.stem}.csv")
        csv.write_text(f"Item,Price\n{XLSX_ROW},240\nDay ticket,12\n", encoding="utf-8")
        return _libreoffice(csv, "xlsx", path)
