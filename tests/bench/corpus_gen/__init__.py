"""The second development corpus: PDFs of other kinds than the LaTeX manuals, generated here.

``generate(folder)`` writes five PDFs with PyMuPDF, byte-identical on every run (fixed
metadata, no random ids, seeded content), so libraries built from them can be reused:

- ``dockcast_paper.pdf``: a two-column research paper (title and abstract across the page);
- ``kestrel_point_brochure.pdf``: a visitor brochure with shaded side boxes;
- ``millbrook_water_report_2025.pdf``: an annual report with five ruled tables;
- ``small_orchard_handbook.pdf``: an A5 book of 60+ pages (prose chapters and a variety register);
- ``leitfaden_photovoltaik.pdf``: a German guide with a table.

The questions about them are in ``tests/bench/questions_mixed.jsonl``. ``HELDOUT_BUILDERS``
write the PDFs of held-out sets, each into a folder of its own, so the mixed libraries (and
every other held-out set's) never change because of them: the ``ebike`` set's
``velora_trail_e5_manual.pdf`` (an owner's manual), the ``leisure`` set's
``riverside_leisure_centre_guide.pdf`` (a leisure centre's visitor and member guide) and the
``money`` set's ``oakfield_community_hall_hire.pdf`` (a village hall's hire terms and price list)
and ``tsv_gruenwald_beitragsordnung.pdf`` (a German sports club's fee schedule), and the ``years``
set's ``ashcombe_community_trust_annual_report_2024_25.pdf`` (a charity's annual report) and
``stadtmuseum_bergfelden_jahresbericht_2025.pdf`` (a German town museum's Jahresbericht).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from . import book, brochure, ebike, german, hall, leisure, paper, report, verein, years

logger = logging.getLogger(__name__)

BUILDERS: dict[str, Callable[[str], None]] = {
    paper.FILE: paper.build,
    brochure.FILE: brochure.build,
    report.FILE: report.build,
    book.FILE: book.build,
    german.FILE: german.build,
}
HELDOUT_BUILDERS: dict[str, Callable[[str], None]] = {
    ebike.FILE: ebike.build,
    leisure.FILE: leisure.build,
    hall.FILE: hall.build,
    verein.FILE: verein.build,
    years.REPORT_FILE: years.build_report,
    years.MUSEUM_FILE: years.build_museum,
}


def generate(folder: Path, builders: dict[str, Callable[[str], None]] | None = None) -> list[Path]:
    """Write every PDF of the corpus into ``folder`` (created if needed); return their paths.

    Files are rewritten only when their bytes would change, so their modification times (and a
    library's "unchanged" check) stay put between runs.
    """
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, build in (BUILDERS if builders is None else builders).items():
        target = folder / name
        tmp = folder / f".{name}.tmp"
        build(str(tmp))
        if target.is_file() and target.read_bytes() == tmp.read_bytes():
            tmp.unlink()
        else:
            tmp.replace(target)
            logger.info("generated %s", target)
        paths.append(target)
    return paths


def main() -> int:
    """``python -m tests.bench.corpus_gen [FOLDER]``: write the corpus and list page counts."""
    import sys

    from app.ingest._mupdf import pymupdf

    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("bench-results/corpus-mixed")
    for path in generate(folder):
        with pymupdf.open(path) as doc:
            print(f"{path}: {doc.page_count} pages")
    return 0
