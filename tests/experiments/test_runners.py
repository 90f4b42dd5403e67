"""The cell runners on real Spark: a cell that raises and a cell whose Python worker dies are both
recorded as that cell's failure, and the run goes on with the other cells; the runner counts the Spark task
attempts that failed."""

from __future__ import annotations

import os
import signal

from experiments.running.runners import SparkRunner, run_cells


def test_a_dead_worker_is_that_cells_failure_and_the_run_goes_on(spark):
    def cell(spec):  # local, so that Spark ships it by value to workers that cannot import tests
        if spec["do"] == "raise":
            raise ValueError("bad cell")
        if spec["do"] == "die":
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer ends a worker: no exception, no traceback
        return [{"value": spec["i"]}]

    specs = [{"i": i, "do": "ok"} for i in range(4)]
    specs[1]["do"] = "die"
    specs[2]["do"] = "raise"
    done, failed = {}, {}
    runner = SparkRunner("local[2]", spark=spark)
    summary = run_cells(
        runner,
        cell,
        specs,
        on_result=lambda spec, rows, seconds: done.__setitem__(spec["i"], rows),
        on_failure=lambda spec, trace: failed.__setitem__(spec["i"], trace),
        progress=False,
    )
    assert done == {0: [{"value": 0}], 3: [{"value": 3}]}
    assert sorted(failed) == [1, 2]
    assert "Python worker died" in failed[1] and "ValueError: bad cell" in failed[2]
    assert (summary.run, summary.failed) == (4, 2)
    # Spark saw one failed task attempt (the dead worker's; the cell that raised returned its traceback)
    assert runner.outcome() == {"spark_failed_task_attempts": 1}
