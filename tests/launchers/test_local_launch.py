"""The gang templates' launch wiring, executed with the real launchers on this machine.

Small CPU runs are rendered from the shipped templates; every Pod's rendered container
command and environment then runs as a local process, the way the kubelet would start it:
downward-API variables filled from the Pod's metadata, ``$(VAR)`` references expanded, the
Pod's hostname set, and every Pod's DNS name mapped to its own loopback address (a private
``/etc/hosts`` in a mount namespace, so the machine's own is untouched). The world each run
must form is read from the rendered objects, never written here.

PyTorch: real ``torchrun`` (gloo) must form one world and all-reduce. MPI: real ``mpirun`` over
the rendered hostfile must start every rank, through an rsh agent that runs the command here
instead of over SSH. Service: the leader's rendered readiness probe must pass only when cluster
DNS lists every worker as ready. ``.ci/run`` sets ``GANG_LAUNCHERS_REQUIRED=1``: there a missing tool fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from cdk8s import App

from charts.render import render_team_run
from config import load_environment
from config.teams import TeamRun, parse_run

REQUIRED = os.environ.get("GANG_LAUNCHERS_REQUIRED") == "1"
TIMEOUT_SECONDS = 120
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.launchers


def _require(ok: bool, reason: str) -> None:
    if not ok:
        if REQUIRED:
            pytest.fail(f"{reason} (GANG_LAUNCHERS_REQUIRED=1)")
        pytest.skip(reason)


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--uts", "true"], capture_output=True, check=False)
    return probe.returncode == 0


def _render(name: str, run: dict[str, Any]) -> list[dict[str, Any]]:
    env = load_environment(name="dev")
    # The platform refuses runs that claim no GPU; these launch on this machine's CPU, so the GPU
    # claim is dropped after validation.
    gpus = run["gpus_per_replica"]
    parsed = parse_run(env, "vision", name, run | {"gpus_per_replica": run.get("processes_per_pod", 1)}).model_copy(
        update={"gpus_per_replica": gpus}
    )
    objects, _ = render_team_run(App(), env, TeamRun("vision", name, f"test:{name}", parsed))
    return objects


def _kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def _field(pod: dict[str, Any], path: str) -> str:
    """The downward API's ``fieldRef`` values the templates use."""
    found = re.fullmatch(r"metadata\.(labels|annotations)\['([^']+)'\]", path)
    if found:
        return str(pod["metadata"][found.group(1)][found.group(2)])
    if path in ("metadata.name", "metadata.namespace"):
        return str(pod["metadata"][path.split(".")[1]])
    raise AssertionError(f"the test does not fill fieldRef {path}")


def _container_env(pod: dict[str, Any], container: dict[str, Any]) -> dict[str, str]:
    env: dict[str, str] = {}
    for var in container.get("env", []):
        env[var["name"]] = (
            _field(pod, var["valueFrom"]["fieldRef"]["fieldPath"]) if "valueFrom" in var else var["value"]
        )
    return env


def _expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' ``$(VAR)`` expansion in command and args (``$$`` escapes; unknown names stay)."""
    return re.sub(
        r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
        lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)),
        text,
    )


def _fqdn(pod: dict[str, Any]) -> str:
    spec = pod["spec"]
    return f"{spec['hostname']}.{spec['subdomain']}.{pod['metadata']['namespace']}.svc.cluster.local"


def _hosts_file(pods: list[dict[str, Any]], tmp_path: Path) -> Path:
    lines = ["127.0.0.1 localhost"]
    lines += [f"127.0.0.{10 + i} {_fqdn(p)} {p['spec']['hostname']}" for i, p in enumerate(pods)]
    hosts = tmp_path / "hosts"
    hosts.write_text("\n".join(lines) + "\n")
    return hosts


def _as_pod(
    pod: dict[str, Any], hosts: Path, command: list[str], binds: tuple[tuple[Path, str], ...] = ()
) -> list[str]:
    """``command`` in its own mount and UTS namespace: the Pod's hostname and the run's DNS names."""
    mounts = "".join(f'mount --bind "{src}" "{dst}" && ' for src, dst in binds)
    script = f'mount --bind "$1" /etc/hosts && {mounts}hostname "$2" && shift 2 && exec "$@"'
    return [
        "unshare",
        "--mount",
        "--uts",
        "--",
        "sh",
        "-c",
        script,
        "pod",
        str(hosts),
        pod["spec"]["hostname"],
        *command,
    ]


def _process_env(container_env: dict[str, str]) -> dict[str, str]:
    return {
        "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": os.environ.get("HOME", "/root"),
    } | container_env


ALL_REDUCE = textwrap.dedent(
    """
    import os
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    value = torch.tensor([float(rank + 1)])
    dist.all_reduce(value)
    assert value.item() == world * (world + 1) / 2, (rank, world, value.item())
    print(f"rank={rank} world={world} sum={value.item():.0f} pod={os.environ['GANG_ROLE']}", flush=True)
    dist.destroy_process_group()
    # Skip the interpreter's teardown: after importing torch it costs about as much CPU as half the
    # import again, and nothing of the launch is checked there (the output is flushed above).
    os._exit(0)
    """
)


def test_pytorch_run_forms_one_world_with_real_torchrun(tmp_path: Path) -> None:
    # Looked up, not imported: the launched processes import it (and this one need not pay for it).
    _require(find_spec("torch") is not None, "torch is not installed (make test installs requirements-launchers.txt)")
    _require(shutil.which("torchrun", path=f"{BIN}:{os.environ.get('PATH', '')}") is not None, "torchrun not found")
    _require(_namespaces_work(), "unshare --mount --uts is not permitted here (needs root or user namespaces)")
    script = tmp_path / "all_reduce.py"
    script.write_text(ALL_REDUCE)
    objects = _render(
        "ddp-check",
        {
            "template": "pytorch",
            "replicas": 2,
            "gpus_per_replica": 0,
            "processes_per_pod": 2,
            "cpu_per_replica": 1,
            "memory_gib_per_replica": 4,
            "topology": "none",
            "image": "example/trainer:1",
            "command": [str(script)],
        },
    )
    pods = _kind(objects, "Pod")
    hosts = _hosts_file(pods, tmp_path)
    runs = []
    for pod in pods:
        (container,) = pod["spec"]["containers"]
        env = _container_env(pod, container)
        command = [_expand(part, env) for part in container["command"]]
        runs.append(
            (
                pod,
                command,
                subprocess.Popen(
                    _as_pod(pod, hosts, command),
                    env=_process_env(env),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                ),
            )
        )
    # The expected world, from the rendered objects: every Pod's --nproc-per-node processes.
    per_pod = [int(next(a for a in cmd if a.startswith("--nproc-per-node=")).split("=")[1]) for _, cmd, _ in runs]
    world = sum(per_pod)
    reports: list[tuple[str, ...]] = []
    for pod, _, process in runs:
        output, _ = process.communicate(timeout=TIMEOUT_SECONDS)
        assert process.returncode == 0, f"{pod['metadata']['name']} failed:\n{output}"
        # Two ranks of one Pod share its output stream, so lines may interleave.
        reports += re.findall(r"rank=(\d+) world=(\d+) sum=(\d+)", output)
    assert sorted(int(rank) for rank, _, _ in reports) == list(range(world))
    assert {(w, s) for _, w, s in reports} == {(str(world), str(world * (world + 1) // 2))}


RANK_REPORT = (
    "import os; rank, size = os.environ['OMPI_COMM_WORLD_RANK'], os.environ['OMPI_COMM_WORLD_SIZE']; "
    "print(f'mpi-rank={rank} size={size}', flush=True)"
)

RSH_SHIM = textwrap.dedent(
    """\
    #!/bin/sh
    # rsh agent for the local test: drop ssh's options (-i/-o/-p take a value), the host, then run here.
    # Every "host" shares this machine's /tmp and one hostname, so each daemon gets its own Open MPI
    # session directory (on separate hosts they would differ; here two daemons could race for one).
    while [ "${1#-}" != "$1" ]; do shift 2; done
    export OMPI_MCA_orte_tmpdir_base="$RSH_SESSION_ROOT/$1"
    mkdir -p "$OMPI_MCA_orte_tmpdir_base"
    shift
    exec sh -c "$*"
    """
)


def test_mpi_run_launches_every_rank_with_real_mpirun(tmp_path: Path) -> None:
    _require(shutil.which("mpirun") is not None, "mpirun not found (apt-get install openmpi-bin; .ci/run does)")
    _require(_namespaces_work(), "unshare --mount --uts is not permitted here (needs root or user namespaces)")
    objects = _render(
        "mpi-check",
        {
            "template": "mpi",
            "replicas": 2,
            "gpus_per_replica": 0,
            "processes_per_pod": 2,
            "cpu_per_replica": 1,
            "memory_gib_per_replica": 4,
            "topology": "none",
            "image": "example/mpi:1",
            "command": [sys.executable, "-c", RANK_REPORT],
        },
    )
    pods = _kind(objects, "Pod")
    launcher = next(p for p in pods if p["spec"].get("initContainers"))
    (config_map,) = _kind(objects, "ConfigMap")
    hostfile_dir = tmp_path / "hostfile"
    hostfile_dir.mkdir()
    for key, text in config_map["data"].items():
        (hostfile_dir / key).write_text(text)
    (mount,) = [m for m in launcher["spec"]["containers"][0]["volumeMounts"] if m["name"] == "hostfile"]
    shim = tmp_path / "rsh-here"
    shim.write_text(RSH_SHIM)
    shim.chmod(0o755)
    hosts = _hosts_file(pods, tmp_path)
    created = not os.path.isdir(mount["mountPath"])
    os.makedirs(mount["mountPath"], exist_ok=True)  # an empty mount point; the files stay in the namespace
    try:
        binds = ((hostfile_dir, mount["mountPath"]),)
        outputs = []
        for container in [*launcher["spec"]["initContainers"], *launcher["spec"]["containers"]]:
            env = _container_env(launcher, container)
            # The one substitution: the rsh agent runs here instead of ssh-ing into a worker.
            env |= {
                "OMPI_MCA_plm_rsh_agent": str(shim),
                "RSH_SESSION_ROOT": str(tmp_path / "sessions"),
                "OMPI_ALLOW_RUN_AS_ROOT": "1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            }
            command = [_expand(part, env) for part in container["command"]]
            done = subprocess.run(
                _as_pod(launcher, hosts, command, binds),
                env=_process_env(env),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
            assert done.returncode == 0, f"{container['name']} failed:\n{done.stdout}{done.stderr}"
            outputs.append(done.stdout)
    finally:
        if created:
            os.rmdir(mount["mountPath"])
    # The expected ranks, from the rendered hostfile: every worker's slots.
    slots = [int(line.split("slots=")[1]) for line in config_map["data"]["hostfile"].splitlines()]
    reports = sorted(line for line in outputs[-1].splitlines() if line.startswith("mpi-rank="))
    assert reports == sorted(f"mpi-rank={r} size={sum(slots)}" for r in range(sum(slots)))


@pytest.mark.parametrize("ready_workers", [1, 2])
def test_service_leader_is_ready_only_when_every_worker_is(tmp_path: Path, ready_workers: int) -> None:
    _require(_namespaces_work(), "unshare --mount --uts is not permitted here (needs root or user namespaces)")
    objects = _render(
        "svc-check",
        {
            "template": "service",
            "replicas": 3,
            "gpus_per_replica": 0,
            "cpu_per_replica": 1,
            "memory_gib_per_replica": 4,
            "topology": "none",
            "image": "example/svc:1",
            "command": ["serve"],
            "readiness_command": ["true"],
        },
    )
    sets = _kind(objects, "StatefulSet")
    (leader_set,) = [s for s in sets if s["spec"]["replicas"] == 1]
    workers = sum(s["spec"]["replicas"] for s in sets) - 1
    ready_service = next(o for o in _kind(objects, "Service") if not o["spec"]["publishNotReadyAddresses"])
    ready_name = f"{ready_service['metadata']['name']}.{ready_service['metadata']['namespace']}.svc.cluster.local"
    leader = {
        "metadata": {**leader_set["spec"]["template"]["metadata"], "name": f"{leader_set['metadata']['name']}-0"},
        "spec": {**leader_set["spec"]["template"]["spec"], "hostname": f"{leader_set['metadata']['name']}-0"},
    }
    leader["metadata"]["namespace"] = leader_set["metadata"]["namespace"]
    # What cluster DNS answers for the headless Service: one address per ready worker.
    hosts = tmp_path / "hosts"
    hosts.write_text("".join(f"127.0.0.{20 + i} {ready_name}\n" for i in range(ready_workers)))
    (container,) = leader["spec"]["containers"]
    env = _container_env(leader, container)
    probe = container["readinessProbe"]["exec"]["command"]
    done = subprocess.run(_as_pod(leader, hosts, probe), env=_process_env(env), capture_output=True, check=False)
    assert (done.returncode == 0) is (ready_workers == workers)
