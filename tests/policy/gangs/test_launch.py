"""Launch side of the gang templates: what each Pod runs, how it finds its peers, and the bad-input lines."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
from cdk8s import App

from charts.render import render_team_run
from config.errors import ConfigError
from config.platform import TeamRun
from policy.checks.objects import pods as member_pods
from policy.environment.load import load_environment
from policy.environment.teams import parse_run
from tests.conftest import shipped_render
from tests.helpers import refusal, yaml_files
from tests.helpers.environments import workload_aware

PYTORCH = {"template": "pytorch", "replicas": 4, "device_class": "l4", "gpus_per_replica": 4, "image": "example/t:1"}
PYTORCH_RUN = PYTORCH | {"command": ["train.py", "--lr=0.1"], "cpu_per_replica": 16, "memory_gib_per_replica": 64}
MPI = {"template": "mpi", "replicas": 2, "device_class": "l4", "gpus_per_replica": 4, "image": "example/m:1"}
SERVICE = {"template": "service", "replicas": 3, "device_class": "l4", "gpus_per_replica": 1, "image": "example/s:1"}


def _fails(data: dict[str, Any], name: str = "run") -> str:
    return refusal(parse_run, load_environment(name="dev"), "vision", name, data)


def _objects(
    data: dict[str, Any], *, env_name: str = "dev", team: str = "vision", native: bool = False
) -> list[dict[str, Any]]:
    """The run rendered in the shipped environment (the fallback form), or with ``native`` on its
    workload-aware twin (Workload and PodGroups)."""
    env = workload_aware(env_name) if native else load_environment(name=env_name)
    run = TeamRun(team, "run", "teams/run.yaml", parse_run(env, team, "run", data))
    objects, _ = render_team_run(App(), env, run)
    for obj in objects:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)
    return objects


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {v["name"]: v.get("value", v.get("valueFrom")) for v in container.get("env", [])}


def test_fails_pytorch_processes_disagree_with_gpus() -> None:
    assert _fails(PYTORCH_RUN | {"processes_per_pod": 2}) == (
        "processes_per_pod: torchrun starts one process per GPU and each Pod claims 4 GPUs (got 2); "
        "fix: set processes_per_pod: 4 or drop it, or change gpus_per_replica"
    )


def test_fails_pytorch_command_that_sets_launcher_flags() -> None:
    assert _fails(PYTORCH | {"command": ["torchrun", "--nnodes=4", "train.py"]}) == (
        "command: the pytorch template runs torchrun and sets --nnodes, --nproc-per-node, --node-rank and the "
        "rendezvous itself (found --nnodes=4) (got ['torchrun', '--nnodes=4', 'train.py']); "
        "fix: give only the script and its arguments, e.g. [train.py, --config=c.yaml]"
    )
    assert _fails(PYTORCH | {"command": ["train.py", "--master_port", "1234"]}).startswith(
        "command: the pytorch template runs torchrun and sets --nnodes, --nproc-per-node, --node-rank and the "
        "rendezvous itself (found --master_port)"
    )


def test_fails_pytorch_without_a_script() -> None:
    assert _fails(PYTORCH) == (
        "command: a pytorch run names its training script (the platform wraps it in torchrun) (got []); "
        "fix: set command: [train.py, <arguments>]"
    )


def test_fails_mpi_run_with_zero_workers() -> None:
    assert _fails(MPI | {"replicas": 0}) == (
        "replicas: a mpi run needs at least one worker (got 0); fix: set replicas >= 1"
    )


def test_fails_mpi_command_that_runs_mpirun() -> None:
    assert _fails(MPI | {"command": ["mpirun", "-np", "8", "python", "train.py"]}) == (
        "command: the mpi template runs mpirun with the generated hostfile and -np itself "
        "(got ['mpirun', '-np', '8', 'python', 'train.py']); fix: give only the program every rank runs, "
        "e.g. [python, train.py]"
    )


def test_fails_service_without_readiness_command() -> None:
    assert _fails(SERVICE | {"command": ["serve"]}) == (
        "readiness_command: a service is only ready when every Pod is; the template needs each Pod's readiness "
        "check (got []); fix: set readiness_command, e.g. [curl, -fsS, http://127.0.0.1:8080/ready]"
    )


def test_fails_service_run_name_too_long_for_its_stateful_sets() -> None:
    name = "a" * 37
    assert _fails(SERVICE | {"readiness_command": ["true"]}, name=name) == (
        f"<file name>: a service run names StatefulSets <run>-<digest>-<role>, which stop at 52 characters "
        f"(got '{name}'); fix: rename the file to at most 36 characters"
    )


def test_fails_hierarchical_pytorch_of_one_pod() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_run(
            workload_aware("prod-example"),  # hierarchical needs CompositePodGroup
            "llm-research",
            "run",
            PYTORCH_RUN | {"replicas": 1, "hierarchical": True, "device_class": "h100-80gb", "gpus_per_replica": 8},
        )
    assert caught.value.line() == (
        "replicas: a hierarchical pytorch gang has a group for rank 0 and one for the other Pods, so it needs at "
        "least 2 Pods (got 1); fix: set replicas >= 2, or drop hierarchical: true"
    )


def test_fails_shm_as_large_as_the_pod_memory() -> None:
    assert _fails(PYTORCH_RUN | {"shm_gib": 64}) == (
        "shm_gib: /dev/shm is memory-backed and counts against the Pod's 64Gi limit (got 64); "
        "fix: set shm_gib below memory_gib_per_replica"
    )


def test_pytorch_replicas_are_the_pods_and_torchrun_is_wired_from_the_gang() -> None:
    objects = _objects(PYTORCH_RUN | {"checkpoint": {"claim_name": "ckpt"}})
    pods = [o for o in objects if o["kind"] == "Pod"]
    (service,) = [o for o in objects if o["kind"] == "Service"]
    assert len(pods) == 4  # replicas counts rank 0
    assert service["spec"]["clusterIP"] == "None" and service["spec"]["publishNotReadyAddresses"] is True
    rank0 = pods[0]
    rank0_address = f"{rank0['spec']['hostname']}.{service['metadata']['name']}.team-vision.svc.cluster.local"
    assert sorted(p["metadata"]["labels"]["gpu-platform.io/rank"] for p in pods) == ["0", "1", "2", "3"]
    for pod in pods:
        (container,) = pod["spec"]["containers"]
        env = _env(container)
        assert pod["spec"]["hostname"] == pod["metadata"]["name"]
        assert pod["spec"]["subdomain"] == service["metadata"]["name"]
        assert pod["spec"]["restartPolicy"] == "Never"
        assert env["NODE_RANK"] == {"fieldRef": {"fieldPath": "metadata.labels['gpu-platform.io/rank']"}}
        assert (env["NNODES"], env["NPROC_PER_NODE"], env["WORLD_SIZE"]) == ("4", "4", "16")
        assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == (rank0_address, "29400")
        assert container["command"] == [
            "torchrun",
            "--nnodes=$(NNODES)",
            "--nproc-per-node=$(NPROC_PER_NODE)",
            "--node-rank=$(NODE_RANK)",
            "--rdzv-backend=c10d",
            "--rdzv-endpoint=$(MASTER_ADDR):$(MASTER_PORT)",
            "--rdzv-id=$(RDZV_ID)",
            "--max-restarts=0",
            "train.py",
            "--lr=0.1",
        ]
        assert {m["mountPath"] for m in container["volumeMounts"]} == {"/dev/shm", "/checkpoints"}
        shm = next(v for v in pod["spec"]["volumes"] if v["name"] == "shm")
        assert shm["emptyDir"] == {"medium": "Memory", "sizeLimit": "16Gi"}


def test_pytorch_job_form_ranks_come_from_the_completion_index() -> None:
    objects = _objects(PYTORCH_RUN | {"job": True})
    (job,) = [o for o in objects if o["kind"] == "Job"]
    template = job["spec"]["template"]["spec"]
    assert job["spec"]["backoffLimit"] == 0  # one lost rank fails the Job; its controller stops the rest
    assert template["subdomain"] == job["metadata"]["name"]
    env = _env(template["containers"][0])
    assert env["NODE_RANK"] == {
        "fieldRef": {"fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}
    }
    assert env["MASTER_ADDR"].startswith(f"{job['metadata']['name']}-0.{job['metadata']['name']}.")


def test_mpi_launcher_reaches_every_worker_through_the_hostfile() -> None:
    objects = _objects(MPI | {"command": ["python", "train.py"]})
    (hostfile,) = [o for o in objects if o["kind"] == "ConfigMap"]
    workers = [o for o in objects if o["kind"] == "Pod" and o["metadata"]["labels"]["gpu-platform.io/role"] == "worker"]
    (launcher,) = [
        o for o in objects if o["kind"] == "Pod" and o["metadata"]["labels"]["gpu-platform.io/role"] == "launcher"
    ]
    assert hostfile["data"]["hostfile"] == "".join(
        f"{w['spec']['hostname']}.{w['spec']['subdomain']}.team-vision.svc.cluster.local slots=4\n" for w in workers
    )
    command = launcher["spec"]["containers"][0]["command"]
    assert command[:2] == ["sh", "-c"] and 'exec "$mpirun"' in command[2]  # mpirun by its absolute path
    assert command[3:8] == ["mpirun", "--hostfile", "/etc/mpi/hostfile", "-np", "8"]
    assert command[-2:] == ["python", "train.py"]
    assert launcher["spec"]["initContainers"][0]["name"] == "wait-for-workers"
    secret_volumes = {
        v["secret"]["secretName"] for p in (launcher, *workers) for v in p["spec"]["volumes"] if "secret" in v
    }
    assert secret_volumes == {f"{hostfile['metadata']['name'].removesuffix('-hostfile')}-ssh"}
    assert not [o for o in objects if o["kind"] == "Secret"]  # the key pair is never rendered into dist/
    assert all(w["spec"]["containers"][0]["readinessProbe"]["tcpSocket"] == {"port": 22} for w in workers)
    (service,) = [o for o in objects if o["kind"] == "Service"]
    assert service["spec"]["publishNotReadyAddresses"] is False  # names resolve only once sshd is ready


def test_service_pods_are_owned_by_stateful_sets_with_a_strict_disruption_budget() -> None:
    objects = _objects(SERVICE | {"command": ["serve"], "readiness_command": ["ready"]}, native=True)
    sets = [o for o in objects if o["kind"] == "StatefulSet"]
    assert [(s["spec"]["replicas"], s["spec"]["podManagementPolicy"]) for s in sets] == [
        (1, "Parallel"),
        (2, "Parallel"),
    ]
    pods = member_pods(objects)
    (group,) = [o for o in objects if o["kind"] == "PodGroup"]
    assert len(pods) == group["spec"]["schedulingPolicy"]["gang"]["minCount"] == 3
    assert {p["spec"]["schedulingGroup"]["podGroupName"] for p in pods} == {group["metadata"]["name"]}
    (budget,) = [o for o in objects if o["kind"] == "PodDisruptionBudget"]
    assert budget["spec"]["maxUnavailable"] == 0  # the standard tier disrupts the gang as a whole
    leader, worker = (s["spec"]["template"]["spec"]["containers"][0] for s in sets)
    assert worker["readinessProbe"]["exec"]["command"] == ["ready"]
    assert leader["readinessProbe"]["exec"]["command"][-1] == "ready"
    assert _env(leader)["WORKERS"] == "2"


def test_mpi_ssh_key_secret_matches_what_the_pods_mount(capsys: pytest.CaptureFixture[str]) -> None:

    from cli.mpi_ssh_key import main

    assert main(["--run", "vision/detector-sweep"]) == 0
    secret = yaml_files.load(capsys.readouterr().out)
    kubernetes_validate.validate(secret, "1.37.0", strict=True)
    keys = secret["stringData"]
    assert keys["ssh-privatekey"].startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    assert keys["ssh-publickey"].startswith("ssh-ed25519 ")
    env = load_environment(name="dev")

    assert keys["ssh-host-key"].startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    assert keys["ssh-host-key"] != keys["ssh-privatekey"]
    objects = shipped_render(env.name).files["teams/vision/detector-sweep.yaml"]
    mounted = {
        v["secret"]["secretName"] for o in objects if o["kind"] == "Pod" for v in o["spec"]["volumes"] if "secret" in v
    }
    assert mounted == {secret["metadata"]["name"]}
    # Each role mounts only its half: the launcher the client key and known_hosts, a worker its host key.
    items_by_role = {
        o["metadata"]["labels"]["gpu-platform.io/role"]: sorted(
            i["key"] for v in o["spec"]["volumes"] if "secret" in v for i in v["secret"]["items"]
        )
        for o in objects
        if o["kind"] == "Pod"
    }
    assert items_by_role == {
        "launcher": ["ssh-known-hosts", "ssh-privatekey"],
        "worker": ["ssh-host-key", "ssh-publickey"],
    }
    # known_hosts names exactly the hosts mpirun reaches (the hostfile), with one host key.
    (hostfile,) = [o["data"]["hostfile"] for o in objects if o["kind"] == "ConfigMap"]
    names, key_type, _ = keys["ssh-known-hosts"].split()
    assert names.split(",") == [line.split()[0] for line in hostfile.splitlines()]
    assert key_type == "ssh-ed25519"
    assert main(["--run", "vision/embedding-service"]) == 2
    assert capsys.readouterr().err == (
        "error: --run: no MPI run of that name in dev (got 'vision/embedding-service'); "
        "fix: use one of ['vision/detector-sweep']\n"
    )


def test_fallback_service_is_the_same_stateful_sets_without_a_pod_group() -> None:
    objects = _objects(SERVICE | {"command": ["serve"], "readiness_command": ["ready"]})
    assert not {o["kind"] for o in objects} & {"Workload", "PodGroup", "CompositePodGroup"}
    sets = [o for o in objects if o["kind"] == "StatefulSet"]
    assert [(s["spec"]["replicas"], s["spec"]["podManagementPolicy"]) for s in sets] == [
        (1, "Parallel"),
        (2, "Parallel"),
    ]
    assert all("schedulingGroup" not in s["spec"]["template"]["spec"] for s in sets)
    (budget,) = [o for o in objects if o["kind"] == "PodDisruptionBudget"]
    assert budget["spec"]["maxUnavailable"] == 0


def test_summary_shows_world_and_discovery_per_run_and_pods_gpus_pool_and_zones_per_role() -> None:
    from charts.render import output_files

    env = load_environment(name="dev")
    summary = output_files(env, shipped_render(env.name))["SUMMARY.md"]
    launch = {line.split(" | ")[1]: line for line in summary.splitlines() if line.count(" | ") == 4}
    assert launch["finetune-8b"].startswith("| llm-research | finetune-8b | 8 | 16 | c10d rendezvous `")
    assert launch["detector-sweep"].startswith("| vision | detector-sweep | 4 | 16 | hostfile `")
    assert ":29400`" in launch["finetune-8b"]
    roles = {tuple(line.split(" | ")[1:3]): line for line in summary.splitlines() if line.count(" | ") == 7}
    assert roles[("detector-sweep", "launcher")] == (
        "| vision | detector-sweep | launcher | 1 | 0 | 2 / 8Gi | system nodes (`system_nodes`: no GPU, no taint) | "
        "any zone of the system nodes |"  # fallback: the zone Pod affinity is the GPU Pods' only
    )
    assert (
        roles[("detector-sweep", "worker")]
        == "| vision | detector-sweep | worker | 4 | 4 | 40 / 160Gi | `l4` | us-west-2a |"
    )
    assert roles[("finetune-8b", "worker")].endswith("| 1 | 8 | 96 / 900Gi | `h100` | us-west-2a |")
    assert (
        "| vision | detector-sweep | Secret `detector-sweep-ef23b8ef-ssh` (the run's SSH keys): "
        "`make mpi-ssh-key RUN=vision/detector-sweep \\| kubectl apply -f -` |"
    ) in summary.splitlines()


def test_gang_checks_count_the_pods_stateful_sets_create() -> None:
    from policy.checks.gang_size import check_gang_size
    from policy.checks.references import check_references
    from policy.checks.suite import run_checks
    from policy.results import Status

    env = workload_aware("dev")
    objects = _objects(SERVICE | {"command": ["serve"], "readiness_command": ["ready"]}, native=True)
    assert [c for c in run_checks(env, objects) if c.status is not Status.OK] == []
    worker = next(o for o in objects if o["kind"] == "StatefulSet" and o["metadata"]["name"].endswith("-worker"))
    worker["spec"]["replicas"] = 1
    (found,) = check_gang_size(env, objects)
    assert found.detail == "gang minCount 3 exceeds the 2 pods that join the group; it can never start"
    worker["spec"]["template"]["spec"]["schedulingGroup"]["podGroupName"] = "elsewhere"
    (missing,) = check_references(env, objects)
    assert missing.subject == f"Pod/team-vision/{worker['metadata']['name']}-0"


def test_fails_pytorch_command_that_names_the_interpreter() -> None:
    assert _fails(PYTORCH | {"command": ["python", "train.py"]}) == (
        "command: torchrun starts the Python interpreter itself; it would run 'python' as the script "
        "(got ['python', 'train.py']); fix: drop the interpreter: [train.py, <arguments>] or [-m, package.module]"
    )
