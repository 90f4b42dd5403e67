"""A real Spark standalone cluster (one master, ``workers`` workers) on 127.0.0.1, from the pip pyspark.

The pip package has no ``sbin/start-*.sh`` scripts, but it has ``bin/spark-class``, which ``exec``s
the JVM: the process started here *is* the master's (or a worker's) JVM.  Each daemon runs in a
process group of its own, so that stopping or killing a worker takes its executors and their Python
workers with it (as losing a machine would).  Used by the cluster tests and by
``python -m experiments cluster start|status|stop``, which keeps the cluster's processes in a state
file so that a later command can stop them:

    python -m experiments cluster start --workers 2 --cores 1
    python -m experiments run +exp=jqpg_fig3 runner.master=spark://127.0.0.1:PORT
    python -m experiments cluster stop
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
from experiments.data.spark import prepare_environment


def spark_home() -> Path:
    import pyspark  # the JVM's launcher scripts are found only when a cluster starts (a second's import)

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of this process counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


@dataclass
class LocalCluster:
    master_url: str
    master_pid: int
    worker_pids: list[int]
    ui_port: int
    work_dir: Path
    _procs: list = field(default_factory=list, repr=False)

    @classmethod
    def start(cls, cores: int = 2, memory: str = "2g", timeout: float = 90.0, workers: int = 1) -> LocalCluster:
        """A master and ``workers`` workers of ``cores`` cores and ``memory`` each; returns once every
        worker has registered with the master."""
        prepare_environment()
        home = spark_home()
        spark_class = home / "bin" / "spark-class"
        if not spark_class.exists():
            raise ConfigError(f"{spark_class}: not found in the pyspark installation")
        if workers < 1 or cores < 1:
            raise ConfigError(f"a cluster needs at least one worker of one core, got {workers} worker(s) of {cores} core(s)")
        port, ui = free_port(), free_port()
        work = Path(tempfile.mkdtemp(prefix="spark-cluster-"))
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(home),
            SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
            SPARK_DAEMON_MEMORY="512m",
            SPARK_LOCAL_IP="127.0.0.1",
        )
        with open(work / "daemons.log", "ab") as log:  # the daemons keep their own copies of it
            master = subprocess.Popen(
                [str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)],
                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
            url = f"spark://127.0.0.1:{port}"
            procs = []
            for i in range(workers):
                wdir = work / f"worker-{i}"
                wdir.mkdir()
                procs.append(subprocess.Popen(
                    [str(spark_class), "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", str(cores),
                     "--memory", memory, "--webui-port", str(free_port()), "--work-dir", str(wdir), url],
                    env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                ))
        cluster = cls(url, master.pid, [p.pid for p in procs], ui, work, [*procs, master])
        try:
            cluster.wait_ready(timeout, workers)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def state(self) -> dict:
        """What the master reports (``/json/``): its workers, cores and applications."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=2) as r:
            return json.loads(r.read())

    def wait_ready(self, timeout: float, workers: int) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            dead = [pid for pid in (self.master_pid, *self.worker_pids) if not pid_alive(pid)]
            if dead:
                raise ConfigError(f"Spark daemon {dead[0]} exited; see {self.work_dir / 'daemons.log'}")
            try:
                if self.state().get("aliveworkers", 0) >= workers:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise ConfigError(f"the Spark cluster at {self.master_url} did not have {workers} worker(s) within {timeout:.0f} s")

    @property
    def worker_pid(self) -> int:
        return self.worker_pids[0]

    def alive(self) -> list[int]:
        return [pid for pid in (*self.worker_pids, self.master_pid) if pid_alive(pid)]

    def kill_worker(self, i: int = 0) -> None:
        """SIGKILL worker ``i`` with its executors and their Python workers (its whole process group), as
        a machine that is lost."""
        pid = self.worker_pids[i]
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._reap(pid, 5)

    def stop(self, grace: float = 15.0) -> None:
        """SIGTERM the workers, then the master (SIGKILL the process group of whatever is still alive
        after ``grace`` seconds)."""
        for pid in (*self.worker_pids, self.master_pid):  # workers first
            if not pid_alive(pid):
                continue
            try:
                os.killpg(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            if not self._reap(pid, grace):
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self._reap(pid, 5)

    def _reap(self, pid: int, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for ``pid`` to end (collecting it if it is our child)."""
        deadline = time.time() + timeout
        for p in self._procs:
            if p.pid == pid:
                try:
                    p.wait(timeout)
                except subprocess.TimeoutExpired:
                    return False
                return True
        while time.time() < deadline:
            if not pid_alive(pid):
                return True
            time.sleep(0.2)
        return not pid_alive(pid)

    # ---- a cluster kept between commands -------------------------------------------------------------
    def save(self, path: Path) -> None:
        d = {"master_url": self.master_url, "master_pid": self.master_pid, "worker_pids": self.worker_pids,
             "ui_port": self.ui_port, "work_dir": str(self.work_dir)}
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(d, indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> LocalCluster:
        try:
            d = json.loads(Path(path).read_text())
        except FileNotFoundError:
            raise ConfigError(f"{path}: no cluster started (python -m experiments cluster start)") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ConfigError(f"{path}: not a cluster state file ({' '.join(str(e).split())}); stop its processes by hand "
                              "if any run, remove the file and start again") from None
        try:
            return cls(str(d["master_url"]), int(d["master_pid"]), [int(p) for p in d["worker_pids"]], int(d["ui_port"]),
                       Path(d["work_dir"]))
        except (TypeError, KeyError, ValueError) as e:
            what = f"lacks {e.args[0]!r}" if isinstance(e, KeyError) else f"a field of the wrong kind: {' '.join(str(e).split())}"
            raise ConfigError(f"{path}: not a cluster state file ({what}); stop its processes by hand if any run, remove the file "
                              "and start again") from None
