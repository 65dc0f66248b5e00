"""Start and stop one local control plane: etcd, kube-apiserver, kube-scheduler, kube-controller-manager.

Everything listens on 127.0.0.1 at ports free at start; certificates (a CA, the API server's serving
certificate, the service-account key) and the admin token are generated per start in a temporary
directory, which also holds the kubeconfig that is the only way in (never ``~/.kube/config``). Each
program runs in a process group of its own and dies with the process that started it
(``PR_SET_PDEATHSIG``); ``stop()`` (also run at exit and on SIGTERM/SIGINT) kills the groups and
removes the directory.

Fake nodes are Node objects the caller creates (``control_plane.nodes``): no kubelet runs, so the
node-lifecycle controller is off (it would mark them NotReady), and the ServiceAccount admission
plugin is off (no token controller is needed for Pods that never run).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from catalog.feature_gates import Component
from control_plane.build import Binaries
from control_plane.configs import Configuration, scheduler_config
from control_plane.errors import ControlPlaneError

READY_TIMEOUT_S = 30.0
CONTROLLERS_OFF = ("node-lifecycle-controller", "node-ipam-controller")
"""Controllers that need a kubelet or a cloud: off (a fake node would be marked NotReady and tainted)."""

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the starting process dies, however it dies."""
    with contextlib.suppress(OSError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _openssl(*args: str, cwd: Path) -> None:
    if shutil.which("openssl") is None:
        raise ControlPlaneError("no openssl on PATH (it makes the per-start certificates)", "apt-get install openssl")
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ControlPlaneError(f"openssl {args[0]} failed: {done.stderr.strip()[:200]}", "check the openssl install")


def make_certificates(directory: Path) -> None:
    """ca.crt/ca.key, apiserver.crt/key for 127.0.0.1 and localhost, sa.key/sa.pub (EC P-256: fast)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(
        "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=local-ca", cwd=directory
    )
    _openssl(
        "req", *ec, "-keyout", "apiserver.key", "-out", "apiserver.csr", "-subj", "/CN=kube-apiserver", cwd=directory
    )
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl(
        "x509", "-req", "-in", "apiserver.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "apiserver.crt", "-days", "2", "-extfile", "san.ext", cwd=directory,
    )  # fmt: skip
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "sa.key", cwd=directory)
    _openssl("ec", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=directory)


def kubeconfig_text(*, server: str, ca: Path, token: str) -> str:
    return f"""apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster:
      server: {server}
      certificate-authority: {ca}
users:
  - name: admin
    user:
      token: {token}
contexts:
  - name: local
    context:
      cluster: local
      user: admin
current-context: local
"""


class ControlPlane:
    """One running control plane; ``start()`` returns once every component is healthy."""

    def __init__(self, binaries: Binaries, configuration: Configuration, *, workdir: Path | None = None) -> None:
        self.binaries = binaries
        self.configuration = configuration
        self._own_dir = workdir is None
        self.dir = Path(tempfile.mkdtemp(prefix="gpu-platform-cp-")) if workdir is None else workdir
        self.token = secrets.token_hex(16)
        self.ports: dict[str, int] = {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self._previous_handlers: dict[int, object] = {}
        self._stopped = False

    @property
    def kubeconfig(self) -> Path:
        return self.dir / "kubeconfig"

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.ports['kube-apiserver']}"

    def log(self, name: str) -> Path:
        return self.dir / f"{name}.log"

    # --- lifecycle -------------------------------------------------------------------------------

    def start(self, *, timeout_s: float = READY_TIMEOUT_S, handle_signals: bool = True) -> ControlPlane:
        """Start every program; ``handle_signals``: also stop on SIGINT/SIGTERM/SIGHUP (the command does; a
        test run leaves Ctrl-C to pytest, whose fixture teardown stops the control plane)."""
        atexit.register(self.stop)
        if handle_signals:
            self._install_signal_handlers()
        try:
            make_certificates(self.dir)
            (self.dir / "tokens.csv").write_text(f"{self.token},admin,admin,system:masters\n")
            for name in ("etcd", "etcd-peer", "kube-apiserver", "kube-scheduler", "kube-controller-manager"):
                self.ports[name] = free_port()
            self.kubeconfig.write_text(kubeconfig_text(server=self.server, ca=self.dir / "ca.crt", token=self.token))
            self.kubeconfig.chmod(0o600)
            (self.dir / "scheduler.yaml").write_text(scheduler_config(str(self.kubeconfig)))
            deadline = time.monotonic() + timeout_s
            self._launch("etcd", self._etcd_args())
            self._wait("etcd", f"http://127.0.0.1:{self.ports['etcd']}/health", deadline)
            self.start_kube(deadline=deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def start_kube(self, *, deadline: float) -> None:
        """Start (or, after ``stop_kube``, restart) the API server, then the scheduler and controller manager."""
        self._launch("kube-apiserver", self._apiserver_args())
        self._wait("kube-apiserver", f"{self.server}/readyz", deadline)
        self._launch("kube-scheduler", self._scheduler_args())
        self._launch("kube-controller-manager", self._controller_manager_args())
        for name in ("kube-scheduler", "kube-controller-manager"):
            self._wait(name, f"https://127.0.0.1:{self.ports[name]}/healthz", deadline)

    def stop_kube(self) -> None:
        """Stop the API server, scheduler and controller manager; etcd (and so every object) stays."""
        for name in ("kube-scheduler", "kube-controller-manager", "kube-apiserver"):
            self._kill(name)

    def restart(self, configuration: Configuration, *, timeout_s: float = READY_TIMEOUT_S) -> None:
        """The API server, scheduler and controller manager again, in ``configuration`` (same etcd, same ports)."""
        self.stop_kube()
        self.configuration = configuration
        self.start_kube(deadline=time.monotonic() + timeout_s)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        for name in ("kube-scheduler", "kube-controller-manager", "kube-apiserver", "etcd"):
            self._kill(name)
        for signum, handler in self._previous_handlers.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(signum, handler)  # type: ignore[arg-type]
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        if self._own_dir and os.environ.get("GPU_PLATFORM_KEEP_CONTROL_PLANE_DIR") != "1":
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> ControlPlane:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- internals -------------------------------------------------------------------------------

    def _install_signal_handlers(self) -> None:
        import threading

        if threading.current_thread() is not threading.main_thread():
            return

        def handler(signum: int, frame: FrameType | None) -> None:
            self.stop()
            previous = self._previous_handlers.get(signum)
            if callable(previous):
                previous(signum, frame)
            raise SystemExit(128 + signum)

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            self._previous_handlers[signum] = signal.getsignal(signum)
            signal.signal(signum, handler)

    def _launch(self, name: str, args: list[str]) -> None:
        program = self.binaries.path("etcd" if name == "etcd" else name)
        out = self.log(name).open("ab")
        try:
            self.processes[name] = subprocess.Popen(
                [str(program), *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
                cwd=self.dir,
            )
        finally:
            out.close()

    def _kill(self, name: str) -> None:
        process = self.processes.pop(name, None)
        if process is None:
            return
        for signum, grace_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signum)
            try:
                process.wait(timeout=grace_s)
                break
            except subprocess.TimeoutExpired:
                continue

    def _wait(self, name: str, url: str, deadline: float) -> None:
        context = ssl.create_default_context(cafile=str(self.dir / "ca.crt"))
        if name != "kube-apiserver":  # the scheduler and controller manager serve self-signed certificates
            context = ssl._create_unverified_context()
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token}"})
        while True:
            process = self.processes[name]
            if process.poll() is not None:
                raise ControlPlaneError(self._exit_reason(name, process.returncode), f"see {self.log(name)}")
            try:
                with urllib.request.urlopen(request, timeout=2, context=context) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise ControlPlaneError(
                    f"{name} not ready at {url} within the start timeout",
                    f"see {self.log(name)} (GPU_PLATFORM_KEEP_CONTROL_PLANE_DIR=1 keeps it)",
                )
            time.sleep(0.2)

    def _exit_reason(self, name: str, code: int) -> str:
        text = self.log(name).read_text(errors="replace") if self.log(name).exists() else ""
        if "address already in use" in text:
            return f"{name} could not listen: a port was taken (address already in use)"
        lines = [line for line in text.strip().splitlines() if line.strip()]
        last = lines[-1][:200] if lines else "(no output)"
        return f"{name} exited with status {code} before it was ready: {last}"

    def _gates(self, component: Component) -> list[str]:
        gates = self.configuration.feature_gates(component)
        return [f"--feature-gates={gates}"] if gates else []

    def _etcd_args(self) -> list[str]:
        client, peer = f"http://127.0.0.1:{self.ports['etcd']}", f"http://127.0.0.1:{self.ports['etcd-peer']}"
        return [
            "--name=local",
            f"--data-dir={self.dir / 'etcd'}",
            f"--listen-client-urls={client}",
            f"--advertise-client-urls={client}",
            f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=local={peer}",
            "--unsafe-no-fsync=true",
            "--log-level=warn",
        ]

    def _apiserver_args(self) -> list[str]:
        d = self.dir
        runtime = self.configuration.runtime_config()
        return [
            f"--etcd-servers=http://127.0.0.1:{self.ports['etcd']}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            "--endpoint-reconciler-type=none",  # the reconciler refuses a loopback advertise address
            f"--secure-port={self.ports['kube-apiserver']}",
            f"--cert-dir={d / 'apiserver-certs'}",
            f"--tls-cert-file={d / 'apiserver.crt'}",
            f"--tls-private-key-file={d / 'apiserver.key'}",
            f"--client-ca-file={d / 'ca.crt'}",
            f"--token-auth-file={d / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={d / 'sa.pub'}",
            f"--service-account-signing-key-file={d / 'sa.key'}",
            "--service-cluster-ip-range=10.96.0.0/24",
            "--disable-admission-plugins=ServiceAccount",
            "--profiling=false",
            *self._gates(Component.APISERVER),
            *([f"--runtime-config={runtime}"] if runtime else []),
        ]

    def _component_common(self, name: str) -> list[str]:
        kc = str(self.kubeconfig)
        return [
            f"--authentication-kubeconfig={kc}",
            f"--authorization-kubeconfig={kc}",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.ports[name]}",
            f"--cert-dir={self.dir / (name + '-certs')}",
        ]

    def _scheduler_args(self) -> list[str]:
        return [
            f"--config={self.dir / 'scheduler.yaml'}",
            *self._component_common("kube-scheduler"),
            *self._gates(Component.SCHEDULER),
        ]

    def _controller_manager_args(self) -> list[str]:
        off = ",".join(f"-{c}" for c in CONTROLLERS_OFF)
        return [
            f"--kubeconfig={self.kubeconfig}",
            *self._component_common("kube-controller-manager"),
            "--leader-elect=false",
            f"--service-account-private-key-file={self.dir / 'sa.key'}",
            f"--root-ca-file={self.dir / 'ca.crt'}",
            "--use-service-account-credentials=false",
            f"--controllers=*,{off}",
            *self._gates(Component.CONTROLLER_MANAGER),
        ]


def wait_for(check: Callable[[], bool], *, timeout_s: float, interval_s: float = 0.2) -> bool:
    """Poll ``check`` until it is true or ``timeout_s`` passes; whether it became true."""
    deadline = time.monotonic() + timeout_s
    while True:
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(interval_s)
