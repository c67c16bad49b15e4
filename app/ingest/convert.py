"""Documents that are not PDFs, turned into a PDF that is then read like any other.

Why convert rather than read each format natively: a citation's highlight is a set of
rectangles on a page, and the viewer must draw the very page the rectangles were measured
on. EPUB, FB2, MOBI and text reflow: MuPDF lays them out into pages, and any difference in
layout between ingestion and viewing would move the highlight. So the laid-out pages are
written once to a PDF (kept beside the library, ``<converted>/<doc_id>/<stem>.pdf``),
ingestion reads that PDF with the one PDF reader, and the viewer shows the same file: the
highlight lands on the quoted words by construction.

- MuPDF opens EPUB, XPS, FB2, MOBI, CBZ, plain text and Markdown itself
  (:data:`NATIVE_SUFFIXES`); ``Document.convert_to_pdf`` writes its pages with their text.
- Office documents (:data:`OFFICE_SUFFIXES`) are converted by LibreOffice
  (``soffice --headless --convert-to pdf``) in a child process with a time limit and a
  private user profile (so a LibreOffice the user has open is neither used nor disturbed).
  Without LibreOffice the file fails with :class:`ConverterMissingError`, which names the
  Debian package to install.

The document id stays the hash of the file the user added (see ``app.services.library``),
so "unchanged" and "moved" are decided on the original, not on the conversion.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from app.core.errors import (
    Cancelled,
    ConversionError,
    ConverterMissingError,
    EmptyFileError,
    TooLargeError,
)
from app.core.formats import (
    NATIVE_SUFFIXES,
    OFFICE_PACKAGES,
    OFFICE_SUFFIXES,
    SUPPORTED_SUFFIXES,
    is_supported_name,
    needs_conversion,
)
from app.core.progress import CancelToken

from ._mupdf import MUPDF_LOCK, pymupdf
from .limits import DEFAULT_LIMITS, Limits, regular_file_size

logger = logging.getLogger(__name__)

__all__ = [
    "NATIVE_SUFFIXES",
    "OFFICE_PACKAGES",
    "OFFICE_SUFFIXES",
    "SUPPORTED_SUFFIXES",
    "convert_to_pdf",
    "is_supported_name",
    "needs_conversion",
    "soffice_path",
]

CONVERT_TIMEOUT_S = 180.0  # one office document; LibreOffice's first start alone takes ~5 s


def soffice_path() -> str | None:
    """LibreOffice's ``soffice``: ``$FOOTNOTE_SOFFICE`` if set (empty: none), else on PATH."""
    env = os.environ.get("FOOTNOTE_SOFFICE")
    if env is not None:
        return env if env and Path(env).is_file() else None
    return shutil.which("soffice") or shutil.which("libreoffice")


def convert_to_pdf(
    path: Path,
    out_dir: Path,
    *,
    cancel: CancelToken | None = None,
    timeout: float = CONVERT_TIMEOUT_S,
    limits: Limits = DEFAULT_LIMITS,
) -> Path:
    """Write ``path`` as ``out_dir/<stem>.pdf`` and return that path.

    Raises a specific ``IngestError`` (empty file, missing converter, failed or timed-out
    conversion, too many pages) or ``Cancelled``; a failed conversion leaves nothing in
    ``out_dir``.
    """
    size = regular_file_size(path)
    if size == 0:
        raise EmptyFileError(f"{path.name} is empty (0 bytes).")
    suffix = path.suffix.lower()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{path.stem or 'document'}.pdf"
    if suffix in NATIVE_SUFFIXES:
        data = _mupdf_to_pdf(path, NATIVE_SUFFIXES[suffix], limits)
    elif suffix in OFFICE_SUFFIXES:
        data = _office_to_pdf(path, OFFICE_SUFFIXES[suffix], cancel, timeout)
    else:
        raise ConversionError(f"{path.name}: Footnote cannot read {suffix or 'this'} files.")
    tmp = target.with_name(target.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return target


def _mupdf_to_pdf(path: Path, filetype: str, limits: Limits) -> bytes:
    name = path.name
    with MUPDF_LOCK:
        try:
            doc = pymupdf.open(str(path), filetype=filetype)
        except Exception as e:
            raise ConversionError(f"{name} is damaged and cannot be opened ({e}).") from e
        try:
            if doc.needs_pass:
                raise ConversionError(f"{name} is password-protected.")
            if doc.page_count > limits.max_pages:
                raise TooLargeError(
                    f"{name} lays out to {doc.page_count:,} pages; the limit is "
                    f"{limits.max_pages:,} pages per file."
                )
            if doc.page_count == 0:
                raise ConversionError(f"{name} has no pages to read.")
            title = (doc.metadata or {}).get("title") or ""
            pdf = pymupdf.open("pdf", doc.convert_to_pdf())
        except (ConversionError, TooLargeError):
            raise
        except Exception as e:
            raise ConversionError(f"{name} is damaged and cannot be read ({e}).") from e
        finally:
            doc.close()
        try:
            if title:
                pdf.set_metadata({"title": title})
            return bytes(pdf.tobytes(garbage=1, deflate=True))
        finally:
            pdf.close()


def _office_to_pdf(path: Path, package: str, cancel: CancelToken | None, timeout: float) -> bytes:
    soffice = soffice_path()
    if soffice is None:
        raise ConverterMissingError(
            f"{path.name} is an Office document; Footnote converts those to PDF with "
            "LibreOffice, which is not installed.",
            hint=f"Install it (Debian/Ubuntu: sudo apt-get install {package}) and add the "
            "file again, or save it as PDF and add that.",
        )
    with tempfile.TemporaryDirectory(prefix="footnote-office-") as tmp:
        work = Path(tmp)
        profile = work / "profile"
        out = work / "out"
        # A copy with a plain name: LibreOffice names its output after the input's stem, and
        # reads a name starting with "-" as an option.
        src = work / f"input{path.suffix.lower()}"
        shutil.copyfile(path, src)
        cmd = [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--nologo",
            "--convert-to",
            "pdf",
            "--outdir",
            str(out),
            str(src),
        ]
        _run(cmd, path.name, cancel, timeout)
        pdf = out / "input.pdf"
        if not pdf.is_file() or pdf.stat().st_size == 0:
            raise ConversionError(
                f"LibreOffice could not convert {path.name} to PDF (the file may be damaged "
                "or password-protected).",
                hint=f"Open it in an office program and save it as PDF, or check that "
                f"{package} is installed.",
            )
        return pdf.read_bytes()


def _run(cmd: list[str], name: str, cancel: CancelToken | None, timeout: float) -> None:
    """Run LibreOffice in its own process group; kill the group on timeout or cancel."""
    t0 = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "SAL_USE_VCLPLUGIN": "svp"},
    )
    try:
        while True:
            try:
                output, _ = proc.communicate(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.cancelled:
                    raise Cancelled() from None
                if time.monotonic() - t0 > timeout:
                    raise ConversionError(
                        f"LibreOffice took over {timeout:.0f} s to convert {name}; gave up.",
                        hint="Save the document as PDF in an office program and add that.",
                    ) from None
    finally:
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    logger.info(
        "LibreOffice converted %s in %.1fs (exit %s): %s",
        name,
        time.monotonic() - t0,
        proc.returncode,
        (output or b"").decode(errors="replace").strip()[:300],
    )
