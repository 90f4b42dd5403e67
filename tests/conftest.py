"""Shared fixtures: real data paths and one embedded Spark session for the whole test run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA = REPO_ROOT / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def spark():
    """An embedded local[2] SparkSession (loopback only, no UI), stopped at the end of the run."""
    from experiments.data.spark import get_spark

    session = get_spark("local[2]", app_name="cep-tests", conf={"spark.task.maxFailures": "1"})
    yield session
    session.stop()


# Property tests draw a fixed, reproducible sample by default, so CI cannot flake on a lucky draw;
# HYPOTHESIS_PROFILE=explore draws fresh random examples (and keeps failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
