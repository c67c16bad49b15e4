"""The installer's ICU data keeps collation only (``packaging/icu_data.py``): with the cut data
library standing in for PySide6's own, Qt still sorts names as each language does. Packing
needs icupkg (``make package`` installs icu-devtools), so without it there is nothing to check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging_modules import load

pytestmark = pytest.mark.integration

icu_data = load("icu_data")

SORT = """
import json, sys
from PySide6.QtCore import QCollator, QCoreApplication, QLocale
app = QCoreApplication(sys.argv)
out = {}
for loc in ("de_DE", "sv_SE"):
    c = QCollator(QLocale(loc))
    c.setNumericMode(True)
    out[loc] = sorted(["Zebra", "Öl", "apfel", "Äpfel", "file10", "file9"], key=c.sortKey)
print(json.dumps(out))
"""


def test_which_items_stay() -> None:
    assert icu_data.kept("coll/de.res") and icu_data.kept("coll/ucadata.icu")
    assert icu_data.kept("nfkc.nrm") and icu_data.kept("root.res") and icu_data.kept("uprops.icu")
    assert not icu_data.kept("ibm-1390_P110-2003.cnv") and not icu_data.kept("de.res")
    assert not icu_data.kept("zone/de.res") and not icu_data.kept("brkitr/burmesedict.dict")


@pytest.mark.skipif(
    shutil.which("icupkg") is None, reason="no icupkg: apt-get install icu-devtools"
)
def test_the_cut_data_still_sorts_names_as_each_language_does(tmp_path: Path) -> None:
    import PySide6

    lib = next((Path(PySide6.__file__).parent / "Qt" / "lib").glob("libicudata.so.*"))
    out = tmp_path / lib.name
    before, after = icu_data.trim(lib, out)
    assert after < before / 4
    env = {**os.environ, "LD_PRELOAD": str(out), "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run([sys.executable, "-c", SORT], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "Could not create collator" not in run.stderr
    got = json.loads(run.stdout)
    assert got["de_DE"] == ["apfel", "Äpfel", "file9", "file10", "Öl", "Zebra"]
    assert got["sv_SE"] == ["apfel", "file9", "file10", "Zebra", "Äpfel", "Öl"]
