"""The kinds of file Footnote reads, by extension: PDFs, what MuPDF opens itself, and Office
documents LibreOffice converts. Here in core (no imports) so the launcher, the file dialog and
drag-and-drop can ask "is this a document?" without loading PyMuPDF; ``app.ingest.convert``
does the converting.
"""

from __future__ import annotations

from pathlib import Path

PDF_SUFFIXES = frozenset({".pdf"})
# What MuPDF opens itself, and the filetype to tell it (a ".text" file is text too).
NATIVE_SUFFIXES: dict[str, str] = {
    ".epub": "epub",
    ".xps": "xps",
    ".oxps": "xps",
    ".fb2": "fb2",
    ".fbz": "fb2",
    ".mobi": "mobi",
    ".cbz": "cbz",
    ".txt": "txt",
    ".text": "txt",
    ".md": "md",
    ".markdown": "md",
}
# Office formats LibreOffice converts, and the Debian package whose filter reads each.
_WRITER = "libreoffice-writer-nogui"
_IMPRESS = "libreoffice-impress-nogui"
_CALC = "libreoffice-calc-nogui"
OFFICE_SUFFIXES: dict[str, str] = {
    ".docx": _WRITER,
    ".doc": _WRITER,
    ".odt": _WRITER,
    ".rtf": _WRITER,
    ".pptx": _IMPRESS,
    ".ppt": _IMPRESS,
    ".odp": _IMPRESS,
    ".xlsx": _CALC,
    ".xls": _CALC,
    ".ods": _CALC,
}
SUPPORTED_SUFFIXES = frozenset(PDF_SUFFIXES | NATIVE_SUFFIXES.keys() | OFFICE_SUFFIXES.keys())
# The Debian packages set-up installs (Makefile OFFICE_PACKAGES): every package named above.
OFFICE_PACKAGES = (_WRITER, _IMPRESS, _CALC)

# The MIME types of each kind, as freedesktop.org's shared-mime-info names them (aliases after
# the main name): the desktop entry offers "Open with Footnote" for exactly these
# (packaging/desktop_entry.py, for the .deb and the tarball's install.sh).
MIME_TYPES: dict[str, tuple[str, ...]] = {
    ".pdf": ("application/pdf",),
    ".epub": ("application/epub+zip",),
    ".xps": ("application/vnd.ms-xpsdocument",),
    ".oxps": ("application/oxps",),
    ".fb2": ("application/x-fictionbook+xml",),
    ".fbz": ("application/x-zip-compressed-fb2",),
    ".mobi": ("application/x-mobipocket-ebook",),
    ".cbz": ("application/vnd.comicbook+zip", "application/x-cbz"),
    ".txt": ("text/plain",),
    ".text": ("text/plain",),
    ".md": ("text/markdown",),
    ".markdown": ("text/markdown",),
    ".docx": ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",),
    ".doc": ("application/msword",),
    ".odt": ("application/vnd.oasis.opendocument.text",),
    ".rtf": ("application/rtf",),
    ".pptx": ("application/vnd.openxmlformats-officedocument.presentationml.presentation",),
    ".ppt": ("application/vnd.ms-powerpoint",),
    ".odp": ("application/vnd.oasis.opendocument.presentation",),
    ".xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",),
    ".xls": ("application/vnd.ms-excel",),
    ".ods": ("application/vnd.oasis.opendocument.spreadsheet",),
}


def file_dialog_filter() -> str:
    """The Qt file dialog's filter: every document Footnote reads first, then PDFs alone."""
    every = " ".join(f"*{s}" for s in sorted(SUPPORTED_SUFFIXES))
    return f"Documents ({every});;PDF files (*.pdf);;All files (*)"


def is_supported_name(name: str) -> bool:
    """A file name Footnote reads (by its extension), hidden files excepted."""
    return Path(name).suffix.lower() in SUPPORTED_SUFFIXES and not name.startswith(".")


def needs_conversion(path: Path | str) -> bool:
    """True for a file read through a converted PDF (anything supported but a PDF)."""
    suffix = Path(path).suffix.lower()
    return suffix in NATIVE_SUFFIXES or suffix in OFFICE_SUFFIXES
