"""How a PDF is read, besides the file itself: the parse options a user's settings decide.

Why one value: a file is parsed in this process, in the parse worker's child process
(``app.ingest.worker``) or on a Ray actor (``app.services.cluster``), and each must read it
the same way: a scan with OCR turned off fails with the same words everywhere, OCR uses the
same languages everywhere. So the options are built from Settings in one place
(:meth:`ParseOptions.from_settings`) and handed whole to whatever parses. The value is
frozen and made of plain fields, so it pickles (a child process's pipe, Ray's object store).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .chunker import ChunkParams
from .ocr import OcrOptions

if TYPE_CHECKING:
    from app.core.config import Settings


@dataclass(frozen=True)
class ParseOptions:
    """What ``parse_pdf`` is told besides the path: chunk sizes and OCR."""

    params: ChunkParams = field(default_factory=ChunkParams)
    ocr: OcrOptions = field(default_factory=OcrOptions)

    @classmethod
    def from_settings(cls, settings: Settings) -> ParseOptions:
        """The options ingest uses under ``settings`` (Settings.ocr, Settings.ocr_languages)."""
        return cls(ocr=OcrOptions(enabled=settings.ocr, languages=settings.ocr_languages))
