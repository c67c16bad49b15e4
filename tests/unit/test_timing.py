"""Process age: what ``--smoke`` reports as the time from launch to the window shown."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.core.timing import process_age_s

pytestmark = pytest.mark.unit


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_process_age_counts_from_the_process_start() -> None:
    age = process_age_s()
    assert age is not None and age > 0
    code = (
        "import time; time.sleep(0.3); from app.core.timing import process_age_s as a; print(a())"
    )
    child = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True).stdout)  # fmt: skip
    assert 0.3 <= child < 120
