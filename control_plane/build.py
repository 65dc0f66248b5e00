"""Build the pinned control plane from its Go modules into a cache outside the repository.

``k8s.io/kubernetes`` cannot be ``go install``ed (its go.mod points the staging modules at
``./staging``, kubernetes#79384): a generated wrapper module requires it and replaces every
staging module of its replace block with the published ``v0.<minor>.<patch>`` module. etcd's
server module replaces its sibling modules with ``../`` paths the same way. Binaries land in
``$XDG_CACHE_HOME/gpu-platform/control-plane/<key>/bin`` (default ``~/.cache``), where ``<key>``
names the versions and hashes every build input; Go's own build cache makes a rebuild cheap.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from control_plane.errors import ControlPlaneError
from control_plane.pins import ETCD, GO_MINIMUM, KUBERNETES, ModulePin

KUBE_COMMANDS = ("kube-apiserver", "kube-scheduler", "kube-controller-manager")
BINARIES = (*KUBE_COMMANDS, "etcd")
BUILD_FLAGS = ("-trimpath",)
RECIPE = "2"
"""Bumped when the way binaries are built changes (it is part of the cache key)."""


@dataclass(frozen=True)
class Binaries:
    """Where the built programs are."""

    directory: Path

    def path(self, name: str) -> Path:
        return self.directory / name


def cache_root(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gpu-platform" / "control-plane"


def kube_ldflags(version: str) -> str:
    """``-X`` flags that make the binaries report ``version`` (else they say ``v0.0.0-master``)."""
    match = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        raise ValueError(f"not a release version: {version}")
    major, minor = match.group(1), match.group(2)
    base = "k8s.io/component-base/version"
    return (
        f"-s -w -X {base}.gitVersion={version} -X {base}.gitMajor={major} -X {base}.gitMinor={minor}"
        f" -X {base}.gitTreeState=clean"
    )


def staging_replaces(go_mod: str) -> list[str]:
    """Modules k8s.io/kubernetes's go.mod replaces with ``./staging/...`` paths, in file order."""
    return re.findall(r"^\s*(?:replace\s+)?(\S+)\s+=>\s+\./staging/\S+\s*$", go_mod, flags=re.M)


def sibling_replaces(go_mod: str) -> list[str]:
    """Modules a go.mod replaces with ``../`` paths (etcd's sibling modules), in file order."""
    return re.findall(r"^\s*(?:replace\s+)?(\S+)\s+=>\s+\.\./\S+\s*$", go_mod, flags=re.M)


def staging_version(kubernetes_version: str) -> str:
    """``v1.37.2`` -> ``v0.37.2``: the version the staging modules are published under."""
    return "v0." + kubernetes_version.removeprefix("v1.")


def wrapper_go_mod(*, module: str, pin: ModulePin, replaces: list[str], replace_version: str) -> str:
    lines = [
        f"module {module}",
        "",
        f"go {GO_MINIMUM[0]}.{GO_MINIMUM[1]}",
        "",
        f"require {pin.module} {pin.version}",
        "",
    ]
    lines += ["replace (", *(f"\t{m} => {m} {replace_version}" for m in replaces), ")"]
    return "\n".join(lines) + "\n"


def go_version(go: str) -> tuple[int, int, str]:
    out = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, check=False).stdout.strip()
    match = re.match(r"go(\d+)\.(\d+)", out)
    if match is None:
        raise ControlPlaneError(f"cannot tell the Go version ({go} env GOVERSION said {out!r})", "install Go 1.26")
    return int(match.group(1)), int(match.group(2)), out


def find_go() -> str:
    """The ``go`` command, or a one-line error saying how to get it."""
    go = shutil.which("go")
    if go is None:
        raise ControlPlaneError(
            "no Go toolchain on PATH (the control plane is built from its Go modules)",
            "install Go >= 1.26 (https://go.dev/dl/) and put it on PATH",
        )
    major, minor, full = go_version(go)
    if (major, minor) < GO_MINIMUM:
        raise ControlPlaneError(f"{full} is older than Kubernetes 1.37 needs", "install Go >= 1.26")
    return go


def cache_key(go_full_version: str) -> str:
    inputs = {
        "pins": [[p.module, p.version] for p in (KUBERNETES, ETCD)],
        "go": go_full_version,
        "ldflags": kube_ldflags(KUBERNETES.version),
        "flags": list(BUILD_FLAGS),
        "recipe": RECIPE,
    }
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:12]
    return f"kubernetes-{KUBERNETES.version}-etcd-{ETCD.version}-{digest}"


def _go_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"})
    return env


def _run(command: list[str], *, cwd: Path, log: Path, what: str) -> str:
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        done = subprocess.run(command, cwd=cwd, env=_go_env(), stdout=subprocess.PIPE, stderr=out, text=True)
    if done.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        raise ControlPlaneError(f"{what} failed: {tail[0][:200]}", f"see {log}")
    return done.stdout


def _module_go_mod(go: str, pin: ModulePin, *, cwd: Path, log: Path) -> str:
    info = json.loads(
        _run([go, "mod", "download", "-json", f"{pin.module}@{pin.version}"], cwd=cwd, log=log, what="go mod download")
    )
    return Path(info["GoMod"]).read_text()


def build(*, log_to: Path | None = None) -> Binaries:
    """The pinned binaries, built now unless the cache already holds them."""
    go = find_go()
    _, _, full = go_version(go)
    root = cache_root() / cache_key(full)
    bin_dir = root / "bin"
    if all((bin_dir / name).is_file() for name in BINARIES):
        return Binaries(bin_dir)
    root.mkdir(parents=True, exist_ok=True)
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building the same key
        if all((bin_dir / name).is_file() for name in BINARIES):
            return Binaries(bin_dir)
        log = log_to or root / "build.log"
        started = time.monotonic()
        staging = root / "staging-bin"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        kube_dir, etcd_dir = root / "wrapper-kubernetes", root / "wrapper-etcd"
        for directory in (kube_dir, etcd_dir):
            directory.mkdir(exist_ok=True)
        kube_mod = _module_go_mod(go, KUBERNETES, cwd=kube_dir, log=log)
        (kube_dir / "go.mod").write_text(
            wrapper_go_mod(
                module="gpu-platform.local/kubernetes-build",
                pin=KUBERNETES,
                replaces=staging_replaces(kube_mod),
                replace_version=staging_version(KUBERNETES.version),
            )
        )
        etcd_mod = _module_go_mod(go, ETCD, cwd=etcd_dir, log=log)
        (etcd_dir / "go.mod").write_text(
            wrapper_go_mod(
                module="gpu-platform.local/etcd-build",
                pin=ETCD,
                replaces=sibling_replaces(etcd_mod),
                replace_version=ETCD.version,
            )
        )
        packages = [f"{KUBERNETES.module}/cmd/{c}" for c in KUBE_COMMANDS]
        ldflags = kube_ldflags(KUBERNETES.version)
        _run(
            [go, "build", *BUILD_FLAGS, "-ldflags", ldflags, "-o", f"{staging}/", *packages],
            cwd=kube_dir,
            log=log,
            what=f"go build {KUBERNETES.module}@{KUBERNETES.version}",
        )
        _run(
            [go, "build", *BUILD_FLAGS, "-ldflags", "-s -w", "-o", str(staging / "etcd"), ETCD.module],
            cwd=etcd_dir,
            log=log,
            what=f"go build {ETCD.module}@{ETCD.version}",
        )
        (staging / "build.json").write_text(
            json.dumps({"seconds": round(time.monotonic() - started, 1), "go": full}, sort_keys=True) + "\n"
        )
        shutil.rmtree(bin_dir, ignore_errors=True)
        staging.rename(bin_dir)
    return Binaries(bin_dir)
