"""The job runner: a job's outcome reaches the GUI thread, and once it has, the job lets go
of what its function held (PySide keeps a pool's runnables while the pool lives)."""

from __future__ import annotations

import gc
import weakref

import pytest

from app.ui.workers import JobRunner

pytestmark = pytest.mark.gui


class _Payload:
    """Stands for what a job's function holds: a library, a conversation."""


def test_a_finished_job_lets_go_of_its_function_on_the_gui_thread(qtbot) -> None:
    runner = JobRunner()
    payload = _Payload()
    held = weakref.ref(payload)
    results: list[object] = []

    def work(_job: object, p: _Payload = payload) -> str:
        return type(p).__name__

    job = runner.submit("io", work, name="hold", on_finished=results.append)
    del payload, work
    qtbot.waitUntil(lambda: not runner.busy(), timeout=10_000)
    assert results == ["_Payload"]
    gc.collect()
    assert held() is None, "the finished job still holds its function's objects"
    with pytest.raises(RuntimeError, match="hold has already run"):
        job.fn(job)
    assert runner.wait(5000)
