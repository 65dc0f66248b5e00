"""The gang templates' launch wiring, executed with the real launchers on this machine.

Small CPU runs are rendered from the shipped templates; every Pod's rendered container
command and environment then runs as a local process, the way the kubelet would start it:
downward-API variables filled from the Pod's metadata, ``$(VAR)`` references expanded, the
Pod's hostname set, and every Pod's DNS name mapped to its own loopback address (a private
``/etc/hosts`` in a mount namespace, so the machine's own is untouched). The world each run
must form is read from the rendered objects, never written here.

PyTorch: real ``torchrun`` (gloo) must form one world and all-reduce. MPI: real ``mpirun`` over
the rendered hostfile must start every rank over real ``ssh`` to each worker's real ``sshd``,
pinning the run's host key. Service: the leader's rendered readiness probe must pass only when cluster
DNS lists every worker as ready. ``.ci/run`` sets ``GANG_LAUNCHERS_REQUIRED=1``: there a missing tool fails.
"""

from __future__ import annotations

import json
import os
import re
import shlex
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
from config.platform import TeamRun
from policy.environment.load import load_environment
from policy.environment.teams import parse_run
from policy.gangs.shapes import GangPlan

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
    return _render_with_plan(name, run)[0]


def _render_with_plan(name: str, run: dict[str, Any]) -> tuple[list[dict[str, Any]], GangPlan]:
    env = load_environment(name="dev")
    # The platform refuses runs that claim no GPU; these launch on this machine's CPU, so the GPU
    # claim is dropped after validation.
    gpus = run["gpus_per_replica"]
    parsed = parse_run(env, "vision", name, run | {"gpus_per_replica": run.get("processes_per_pod", 1)}).model_copy(
        update={"gpus_per_replica": gpus}
    )
    return render_team_run(App(), env, TeamRun("vision", name, f"test:{name}", parsed))


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


def _addresses(pods: list[dict[str, Any]], network: str = "127.0.0") -> dict[str, str]:
    """Each Pod's own address (a loopback one unless ``network`` says otherwise), by Pod name."""
    return {p["metadata"]["name"]: f"{network}.{10 + i}" for i, p in enumerate(pods)}


def _hosts_file(pods: list[dict[str, Any]], tmp_path: Path, network: str = "127.0.0") -> Path:
    addresses = _addresses(pods, network)
    lines = ["127.0.0.1 localhost"]
    lines += [f"{addresses[p['metadata']['name']]} {_fqdn(p)} {p['spec']['hostname']}" for p in pods]
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


ALL_REDUCED = r"rank=(\d+) world=(\d+) sum=(\d+)"
"""What each rank of an all-reduce payload (torch's or the MPI program) prints."""


def _assert_one_world(reports: list[tuple[str, ...]], world: int, output: str) -> None:
    """Every rank of ``world`` reported once, each the world's size and the sum of 1..world."""
    assert sorted(int(rank) for rank, _, _ in reports) == list(range(world)), output
    assert {(w, s) for _, w, s in reports} == {(str(world), str(world * (world + 1) // 2))}, output


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
        reports += re.findall(ALL_REDUCED, output)
    _assert_one_world(reports, world, output)


RANK_REPORT = textwrap.dedent(
    """
    import json, os, socket, sys
    rank = os.environ["OMPI_COMM_WORLD_RANK"]
    report = {"size": os.environ["OMPI_COMM_WORLD_SIZE"], "host": socket.gethostname(), "env": dict(os.environ)}
    with open(os.path.join(sys.argv[1], rank + ".json"), "w") as out:
        json.dump(report, out)
    os.execvp("allreduce", ["allreduce"])  # the MPI program, from the image's PATH
    """
)
ALL_REDUCE_MPI = textwrap.dedent(
    """
    #include <mpi.h>
    #include <stdio.h>

    int main(int argc, char **argv) {
        int rank, size, sum, mine;
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        mine = rank + 1;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        printf("rank=%d world=%d sum=%d\\n", rank, size, sum);
        return MPI_Finalize();
    }
    """
)
TCP_ONLY = {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,tcp"}
"""This machine has no EFA or UCX: the ranks talk over TCP (else each probes for them for about a second)."""
OPENMPI_RELEASES = sorted(p.stem.removeprefix("openmpi-") for p in Path(__file__).parent.glob("openmpi-*.txt"))
"""Each Open MPI release the MPI template runs with, installed by ``make test`` into ``.venv/openmpi-<release>``."""
SESSION_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""The PATH sshd gives a session (Debian's OpenSSH), whatever the container's environment."""


WAIT_FOR_PORTS = textwrap.dedent(
    """
    import socket, sys, time
    deadline = time.monotonic() + 30
    for address in sys.argv[1:]:
        host, port = address.rsplit(":", 1)
        while True:
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"{address} never accepted a connection")
                time.sleep(0.02)
    """
)


def _volume_binds(
    pod: dict[str, Any], container: dict[str, Any], files: dict[str, dict[str, str]], root: Path
) -> tuple[tuple[Path, str], ...]:
    """The container's ConfigMap and Secret volumes laid out as the kubelet lays them out (each
    Secret item at its path with its mode), as ``(folder, mount path)`` binds, outer paths first.
    ``files`` holds each volume source's data by name (``data`` / ``stringData``)."""
    binds: list[tuple[Path, str]] = []
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    for mount in sorted(container.get("volumeMounts", []), key=lambda m: m["mountPath"]):
        volume = volumes[mount["name"]]
        if "secret" in volume:
            data = files[volume["secret"]["secretName"]]
            items = [(i["path"], data[i["key"]], i.get("mode", 0o644)) for i in volume["secret"]["items"]]
        elif "configMap" in volume:
            items = [(key, text, 0o644) for key, text in files[volume["configMap"]["name"]].items()]
        else:
            continue  # emptyDir and claims: nothing the launch reads
        folder = root / pod["metadata"]["name"] / container["name"] / mount["name"]
        folder.mkdir(parents=True)
        for path, text, mode in items:
            (folder / path).write_text(text)
            (folder / path).chmod(mode)
        for outer, outer_path in binds:  # the kubelet makes a nested volume's mount point
            if mount["mountPath"].startswith(outer_path + "/"):
                (outer / mount["mountPath"][len(outer_path) + 1 :]).mkdir(parents=True, exist_ok=True)
        binds.append((folder, mount["mountPath"]))
    return tuple(binds)


class _NetworkNamespace:
    """A network namespace of the test's own (``ip netns``): every Pod's address sits on one network
    interface in it (one end of a veth pair: Open MPI 5's daemons refuse a host with loopback
    alone, and a Pod has its eth0) and each Pod binds its own, as each Pod has its own IP; nothing
    reaches the machine's network."""

    NETWORK = "10.244.0"

    def __init__(self, addresses: list[str]) -> None:
        self.name = f"gang-launch-{os.getpid()}"
        subprocess.run(["ip", "netns", "add", self.name], check=True)
        commands = [["ip", "link", "set", "lo", "up"], ["ip", "link", "add", "pods", "type", "veth", "peer", "peer"]]
        commands += [["ip", "address", "add", f"{address}/32", "dev", "pods"] for address in addresses]
        commands += [["ip", "link", "set", "peer", "up"], ["ip", "link", "set", "pods", "up"]]
        try:
            for command in commands:
                subprocess.run(self.command(command), check=True, capture_output=True)
        except subprocess.CalledProcessError as failed:
            self.delete()
            raise AssertionError(f"{shlex.join(failed.cmd)}: {failed.stderr.decode().strip()}") from None

    def command(self, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.name, *argv]

    def delete(self) -> None:
        subprocess.run(["ip", "netns", "delete", self.name], check=False)


def _made_mount_points(paths: list[str]) -> list[str]:
    """Empty mount points for the Pods' volumes where the machine has none; the caller removes them."""
    made = []
    for path in sorted(set(paths)):
        for parent in [*reversed(Path(path).parents), Path(path)]:
            if not parent.exists():
                parent.mkdir()
                made.append(str(parent))
    return made


@pytest.mark.parametrize("release", OPENMPI_RELEASES)
def test_mpi_run_starts_every_rank_over_real_ssh_with_pinned_host_keys(tmp_path: Path, release: str) -> None:
    """The launcher's real ``mpirun`` reaches every worker through real ``ssh`` to the worker's real
    ``sshd``, each started from its rendered command with the run's Secret from ``make mpi-ssh-key``:
    every rank of the hostfile starts, and a launcher whose ``known_hosts`` holds another host key
    is refused. ``routed_radix=1`` makes Open MPI's launch tree as deep as 65 workers make it with
    the default radix of 64: the run passes only if the launcher starts every daemon itself.

    The image is one with Open MPI in a prefix of its own, linked from a folder on its ``PATH`` that
    also holds the job's command; a worker's sshd session would have neither (``SESSION_PATH``, and
    any Open MPI of this machine's own there is hidden). Each rank must find the command and see
    its worker container's whole environment: what the Pod declares, what the image sets, and what
    admission added (a per-Pod stand-in for EKS Pod Identity's variable)."""
    prefix = Path(sys.prefix) / f"openmpi-{release}"
    _require((prefix / "bin" / "mpirun").is_file(), f"{prefix}/bin/mpirun not found (make test installs it)")
    tools = (("/usr/sbin/sshd", "openssh-server"), ("ssh", "openssh-client"), ("ip", "iproute2"), ("gcc", "gcc"))
    for tool, package in tools:  # gcc: the release's mpicc builds the ranks' MPI program
        _require(shutil.which(tool) is not None, f"{tool} not found (apt-get install {package}; .ci/run does)")
    _require(_namespaces_work(), "unshare --mount --uts is not permitted here (needs root or user namespaces)")
    from cli.mpi_ssh_key import run_secret

    objects, plan = _render_with_plan(
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
            "command": ["rank-report", str(tmp_path / "reports")],
        },
    )
    # The image: Open MPI in its prefix, the job's command in a folder of its own, and a library path.
    # A folder named bin, as /usr/local/bin: Open MPI 4 takes the parent of a bin folder it runs from as its prefix.
    image_bin, image_lib, reports = tmp_path / "image" / "bin", tmp_path / "image" / "lib", tmp_path / "reports"
    for folder in (image_bin, image_lib, reports):
        folder.mkdir(parents=True)
    (image_bin / "rank-report").write_text(f"#!{sys.executable}\n{RANK_REPORT}")
    (image_bin / "rank-report").chmod(0o755)
    (image_bin / "mpirun").symlink_to(prefix / "bin" / "mpirun")
    (tmp_path / "all_reduce.c").write_text(ALL_REDUCE_MPI)
    built = subprocess.run(
        [str(prefix / "bin" / "mpicc"), "-o", str(image_bin / "allreduce"), str(tmp_path / "all_reduce.c")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    image_env = {"PATH": f"{image_bin}:{SESSION_PATH}", "LD_LIBRARY_PATH": str(image_lib)}
    image_env["HOME"] = os.environ.get("HOME", "/root")
    # What a session's PATH would find of this machine's own Open MPI, hidden from the Pods.
    hidden = tmp_path / "not-in-this-image"
    hidden.write_text('#!/bin/sh\necho "$0 is not in this image" >&2\nexit 127\n')
    hidden.chmod(0o755)
    stray = tuple(
        (hidden, found)
        for name in ("mpirun", "orted", "prted")
        if (found := shutil.which(name, path=SESSION_PATH)) is not None
    )
    pods = _kind(objects, "Pod")
    launcher = next(p for p in pods if p["spec"].get("initContainers"))
    workers = [p for p in pods if p is not launcher]
    admitted = {  # what a mutating webhook adds to each worker's container, never in the rendered spec
        w["metadata"]["name"]: {
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": f"http://169.254.170.23/v1/{w['metadata']['name']}"
        }
        for w in workers
    }
    (config_map,) = _kind(objects, "ConfigMap")
    secret = run_secret(plan)
    files = {config_map["metadata"]["name"]: config_map["data"], secret["metadata"]["name"]: secret["stringData"]}
    addresses = _addresses(pods, _NetworkNamespace.NETWORK)
    hosts = _hosts_file(pods, tmp_path, _NetworkNamespace.NETWORK)
    containers = [(p, c) for p in pods for c in [*p["spec"].get("initContainers", []), *p["spec"]["containers"]]]
    binds = {id(c): _volume_binds(p, c, files, tmp_path / "volumes") for p, c in containers}
    # Each Pod's own root home (the workers' sshd reads the environment file its container writes there).
    root_ssh = str(Path("~root").expanduser() / ".ssh")
    homes = {w["metadata"]["name"]: tmp_path / "homes" / w["metadata"]["name"] for w in workers}
    for home in homes.values():
        home.mkdir(parents=True)
    made = _made_mount_points([root_ssh, *(path for b in binds.values() for _, path in b)])
    network = _NetworkNamespace(sorted(addresses.values()))
    started: list[subprocess.Popen[str]] = []
    try:
        for worker in workers:
            (container,) = worker["spec"]["containers"]
            # The image's own sshd_config: the Pod's address (each Pod has its own IP; here one loopback).
            config = tmp_path / f"sshd_config-{worker['metadata']['name']}"
            config.write_text(f"ListenAddress {addresses[worker['metadata']['name']]}\n")
            env = _container_env(worker, container)
            command = [_expand(part, env) for part in container["command"]]
            pod_binds = (*binds[id(container)], (config, "/etc/ssh/sshd_config"), *stray)
            pod_binds += ((homes[worker["metadata"]["name"]], root_ssh),)
            started.append(
                subprocess.Popen(
                    network.command(_as_pod(worker, hosts, command, pod_binds)),
                    env=image_env | admitted[worker["metadata"]["name"]] | env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        # What the Service does: a worker's name is published once its readiness probe passes.
        probes = [
            f"{addresses[w['metadata']['name']]}:{w['spec']['containers'][0]['readinessProbe']['tcpSocket']['port']}"
            for w in workers
        ]
        ready = subprocess.run(
            network.command([sys.executable, "-c", WAIT_FOR_PORTS, *probes]),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
        assert ready.returncode == 0, ready.stderr

        def launch(extra: tuple[tuple[Path, str], ...] = ()) -> list[subprocess.CompletedProcess[str]]:
            done = []
            for container in [*launcher["spec"]["initContainers"], *launcher["spec"]["containers"]]:
                env = _container_env(launcher, container) | {"OMPI_MCA_routed_radix": "1", "PRTE_MCA_routed_radix": "1"}
                env |= TCP_ONLY
                command = [_expand(part, env) for part in container["command"]]
                done.append(
                    subprocess.run(
                        network.command(_as_pod(launcher, hosts, command, (*binds[id(container)], *stray, *extra))),
                        env=image_env | env,
                        capture_output=True,
                        text=True,
                        timeout=TIMEOUT_SECONDS,
                        check=False,
                    )
                )
                if done[-1].returncode != 0:
                    break
            return done

        *waited, ran = launch()
        assert [w.returncode for w in waited] == [0] * len(waited), waited
        assert ran.returncode == 0, f"mpirun failed:\n{ran.stdout}{ran.stderr}"
        # The expected ranks, from the rendered hostfile: every worker's slots, on that worker.
        hostfile = [line.split(" slots=") for line in config_map["data"]["hostfile"].splitlines()]
        world = sum(int(slots) for _, slots in hostfile)
        seen = {int(p.stem): json.loads(p.read_text()) for p in reports.iterdir()}
        assert sorted(seen) == list(range(world)), ran.stdout + ran.stderr
        assert {r["size"] for r in seen.values()} == {str(world)}
        by_pod = {w["spec"]["hostname"]: w for w in workers}
        assert sorted(r["host"] for r in seen.values()) == sorted(
            by_pod[name.split(".")[0]]["spec"]["hostname"] for name, slots in hostfile for _ in range(int(slots))
        )
        _assert_one_world(re.findall(ALL_REDUCED, ran.stdout), world, ran.stdout + ran.stderr)
        for report in seen.values():  # its worker's environment (Open MPI may put its own paths first)
            worker = by_pod[report["host"]]
            container_env = image_env | admitted[worker["metadata"]["name"]]
            container_env |= _container_env(worker, worker["spec"]["containers"][0])
            for name, value in container_env.items():
                got = report["env"].get(name, "")
                assert got == value or (name.endswith("PATH") and got.endswith(f":{value}")), (name, got, value)

        # The same launcher with another host key in its known_hosts: ssh refuses every worker.
        (ssh_folder, ssh_path) = next(b for b in binds[id(launcher["spec"]["containers"][0])] if "ssh" in b[1])
        other = tmp_path / "other-known-hosts"
        shutil.copytree(ssh_folder, other)
        stranger = run_secret(plan)["stringData"]["ssh-known-hosts"]
        known_hosts_file = next(p for p in other.iterdir() if p.read_text() == secret["stringData"]["ssh-known-hosts"])
        known_hosts_file.chmod(0o600)
        known_hosts_file.write_text(stranger)
        *_, refused = launch(((other, ssh_path),))
        assert refused.returncode != 0
        assert "Host key verification failed" in refused.stdout + refused.stderr
    finally:
        for process in started:
            process.kill()
        outputs = [process.communicate()[0] for process in started]
        network.delete()
        for path in reversed(made):
            os.rmdir(path)
    assert all("Accepted publickey for root" in output for output in outputs), outputs


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
