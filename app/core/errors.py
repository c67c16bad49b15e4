"""Typed errors. Each carries a message a user can read and a hint on what to do.

The UI and CLI show ``str(err)`` and ``err.hint``; ``code`` is a stable machine name
used in JSON output and logs.
"""

from __future__ import annotations


class FootnoteError(Exception):
    """Base of every error Footnote raises on purpose."""

    code = "error"
    default_hint = ""
    retryable = False

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint

    def user_text(self) -> str:
        """The message and the hint as sentences: a message that ends mid-sentence
        ("... : Connection refused") gets its full stop before the hint."""
        message = self.message.rstrip()
        if self.hint and message and not message.endswith((".", "!", "?", ":")):
            message += "."
        return f"{message} {self.hint}".strip()


class Cancelled(FootnoteError):
    code = "cancelled"

    def __init__(self, message: str = "Cancelled.") -> None:
        super().__init__(message)


# --- ingestion -----------------------------------------------------------------


class IngestError(FootnoteError):
    """A single file could not be ingested; the others are unaffected."""

    code = "ingest_error"


class FileMissingError(IngestError):
    code = "not_found"
    default_hint = "Check the path; the file may have been moved or deleted."


class PermissionDeniedError(IngestError):
    code = "permission_denied"
    default_hint = "Footnote cannot read this file. Check its permissions."


class EmptyFileError(IngestError):
    code = "empty_file"
    default_hint = "The file is 0 bytes long; it may not have finished downloading."


class NotAPdfError(IngestError):
    code = "not_pdf"
    default_hint = (
        "Footnote reads PDF, EPUB, XPS, FB2, MOBI, CBZ, text and Markdown files, and Office "
        "documents (DOCX, PPTX, XLSX, ODT, ODP) through LibreOffice."
    )


class ConversionError(IngestError):
    """A document that is not a PDF could not be turned into one (damaged, timed out)."""

    code = "conversion_failed"
    default_hint = "Open it in the program that made it, save it as PDF, and add that."


class ConverterMissingError(IngestError):
    """An Office document, and LibreOffice (which converts it) is not installed."""

    code = "converter_missing"
    default_hint = (
        "Install LibreOffice (Debian/Ubuntu: sudo apt-get install libreoffice-writer-nogui "
        "libreoffice-impress-nogui) and add the file again."
    )


class NotAFileError(IngestError):
    """A named pipe, device, socket or symlink loop: only regular files are ever opened."""

    code = "not_a_file"
    default_hint = "Only regular PDF files can be added; copy the document to a normal file."


class TooLargeError(IngestError):
    """The file exceeds a limit on size, pages, text or the work needed to read it."""

    code = "too_large"
    default_hint = (
        "Footnote limits the work per file so one document cannot exhaust the machine. "
        "Split the PDF (or re-export it) and add the parts."
    )


class CorruptPdfError(IngestError):
    code = "corrupt_pdf"
    default_hint = "The PDF is damaged or truncated. Try re-downloading or re-exporting it."


class EncryptedPdfError(IngestError):
    code = "encrypted_pdf"
    default_hint = "This PDF needs a password. Save an unprotected copy and add that instead."


class NoPagesError(IngestError):
    code = "no_pages"
    default_hint = "The PDF has no pages."


class NoTextLayerError(IngestError):
    code = "no_text"
    default_hint = "If its pages show text, a sharper scan (200 to 300 dpi) reads best."


class OcrUnavailableError(IngestError):
    code = "ocr_unavailable"
    default_hint = (
        "Footnote reads scanned pages with Tesseract's language data: install it again "
        "(make setup installs tesseract-ocr-eng) or set FOOTNOTE_TESSDATA to its folder."
    )


# --- models, store, generation ------------------------------------------------------


class ModelLoadError(FootnoteError):
    code = "model_load_error"
    default_hint = "Pick a valid GGUF file (chat model) or sentence-transformers folder (embedder)."


class StoreError(FootnoteError):
    code = "store_error"


class LibraryBusyError(StoreError):
    """Another writer holds the library (a team library allows one writer at a time)."""

    code = "library_busy"


class ReadOnlyLibraryError(StoreError):
    """A write was asked of a library opened read-only (e.g. a team library on a desktop)."""

    code = "read_only"


class GenerationError(FootnoteError):
    code = "generation_error"
    retryable = True


class RemoteBackendError(GenerationError):
    code = "remote_backend_error"
    default_hint = "Check that the llama.cpp server is running and reachable."


class ImportProcessError(FootnoteError):
    """The child process that runs an import failed or died."""

    code = "import_process_error"
    default_hint = "Try again; if it keeps failing, the log file says more."
