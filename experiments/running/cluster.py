"""A real Spark standalone cluster (one master, one worker) on 127.0.0.1, from the pip pyspark.

The pip package has no ``sbin/start-*.sh`` scripts, but it has ``bin/spark-class``, which ``exec``s
the JVM: the process started here *is* the master's (or worker's) JVM, so it is stopped by PID.
Used by the cluster test; also a quick way to try ``runner.master=spark://...`` on one machine:

    python -c "from experiments.running.cluster import LocalCluster; c = LocalCluster.start(); print(c.master_url); input(); c.stop()"
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from cep.errors import ConfigError
from experiments.running.spark import prepare_environment


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LocalCluster:
    master_url: str
    master_pid: int
    worker_pid: int
    ui_port: int
    work_dir: Path
    _procs: list = field(default_factory=list, repr=False)

    @classmethod
    def start(cls, cores: int = 2, memory: str = "2g", timeout: float = 90.0) -> "LocalCluster":
        prepare_environment()
        home = spark_home()
        spark_class = home / "bin" / "spark-class"
        if not spark_class.exists():
            raise ConfigError(f"{spark_class}: not found in the pyspark installation")
        port, ui, wui = free_port(), free_port(), free_port()
        work = Path(tempfile.mkdtemp(prefix="spark-worker-"))
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(home),
            SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
            SPARK_DAEMON_MEMORY="512m",
            SPARK_LOCAL_IP="127.0.0.1",
        )
        log = open(work / "daemons.log", "ab")
        master = subprocess.Popen(
            [str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        url = f"spark://127.0.0.1:{port}"
        worker = subprocess.Popen(
            [str(spark_class), "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", str(cores), "--memory", memory,
             "--webui-port", str(wui), "--work-dir", str(work), url],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        cluster = cls(url, master.pid, worker.pid, ui, work, [worker, master])
        try:
            cluster._wait_ready(timeout)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            for p in self._procs:
                if p.poll() is not None:
                    raise ConfigError(f"Spark daemon {p.pid} exited with {p.returncode}; see {self.work_dir / 'daemons.log'}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=2) as r:
                    state = json.loads(r.read())
                if state.get("aliveworkers", 0) >= 1:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise ConfigError(f"the Spark cluster at {self.master_url} was not ready within {timeout:.0f} s")

    def alive(self) -> list[int]:
        return [p.pid for p in self._procs if p.poll() is None]

    def stop(self, grace: float = 15.0) -> None:
        """SIGTERM the worker, then the master (SIGKILL whatever is still alive after ``grace``)."""
        for p in self._procs:  # worker first
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(grace)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(5)
