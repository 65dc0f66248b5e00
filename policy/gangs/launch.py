"""What a role's container runs and needs, and the names and addresses its Pods use to find each other.

Every Pod gets a stable DNS name from a headless Service: ``<hostname>.<service>.<namespace>.svc``
(Kubernetes DNS for Pods with ``hostname`` and ``subdomain``,
https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-hostname-and-subdomain-field).
Values that differ per Pod come from the downward API (labels of the Pod), so one Pod spec
serves a role, and the same spec works in a Job or StatefulSet template.

What each template's roles run, and how they meet, is its kind's (``policy.gangs.kinds``); this
module holds what they share: the container's description, the names and the addresses.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.labels import DOMAIN
from catalog.launchers import CLUSTER_DOMAIN, SSH_PORT
from policy.gangs.shapes import GangPlan, Role

RANK_LABEL = f"{DOMAIN}/rank"
"""A bare Pod's place in the gang (0 = rank 0 / leader / launcher / driver), read through the downward API."""
JOB_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
"""The label the Job controller puts on each Pod of an Indexed Job (Kubernetes >= 1.28)."""


@dataclass(frozen=True)
class EnvVar:
    """A container variable: a literal, or a Pod field the kubelet fills (downward API)."""

    name: str
    value: str | None = None
    field_path: str | None = None


@dataclass(frozen=True)
class Probe:
    """Readiness: an exec command or a TCP port."""

    command: tuple[str, ...] = ()
    tcp_port: int | None = None


@dataclass(frozen=True)
class SecretFile:
    key: str
    path: str


@dataclass(frozen=True)
class Launch:
    """What one role's container runs and needs."""

    command: tuple[str, ...]
    env: tuple[EnvVar, ...] = ()
    wait_command: tuple[str, ...] = ()
    """An init container: the main container starts only once this exits 0."""
    readiness: Probe | None = None
    ports: tuple[tuple[str, int], ...] = ()
    hostfile: bool = False
    """Mount the run's hostfile ConfigMap at ``MPI_CONFIG_DIR``."""
    ssh_files: tuple[SecretFile, ...] = ()
    """Files of the run's SSH Secret mounted under ``SSH_DIR``."""


@dataclass(frozen=True)
class HeadlessService:
    """A headless Service of the run besides its identity Service: the Pods of ``role`` (all when ``None``)."""

    name: str
    role: str | None
    publish_not_ready: bool


@dataclass(frozen=True)
class ConfigFile:
    """A ConfigMap of the run: ``data`` under ``name``, rendered as construct ``construct_id``."""

    construct_id: str
    name: str
    data: tuple[tuple[str, str], ...]


def pod_env(plan: GangPlan, role: Role) -> tuple[EnvVar, ...]:
    """What a role's container is told whatever it runs: its role and workload, and on EFA pools
    libfabric's settings."""
    efa = plan.efa_for(role.name)
    return (
        EnvVar("GANG_ROLE", role.name),
        EnvVar("GANG_WORKLOAD", plan.workload_name),
        *(EnvVar(name, value) for name, value in (efa.env if efa else ())),
    )


def service_name(plan: GangPlan) -> str:
    """The headless Service whose name every Pod of the run uses as its ``subdomain``."""
    return plan.workload_name


def hostfile_name(plan: GangPlan) -> str:
    return f"{plan.workload_name}-hostfile"


def ssh_secret_name(plan: GangPlan) -> str:
    """The per-run key pair Secret a run that needs one mounts; created at apply time, never rendered."""
    return f"{plan.workload_name}-ssh"


def pod_hostname(plan: GangPlan, role: Role, index: int) -> str:
    """The Pod's name and hostname; an Indexed Job's Pods are ``<job>-<index>``."""
    return f"{plan.workload_name}-{index}" if plan.job else f"{plan.workload_name}-{role.name}-{index}"


def fqdn(plan: GangPlan, hostname: str) -> str:
    return f"{hostname}.{service_name(plan)}.{plan.namespace}.svc.{CLUSTER_DOMAIN}"


def pod_ranks(plan: GangPlan) -> list[tuple[Role, int, int]]:
    """(role, index within the role, place in the gang) of every Pod, leader first."""
    found, rank = [], 0
    for role in plan.roles:
        for index in range(role.replicas):
            found.append((role, index, rank))
            rank += 1
    return found


def leader_address(plan: GangPlan) -> str:
    """Rank 0's (the leader's, the launcher's, the driver's) DNS name."""
    return fqdn(plan, pod_hostname(plan, plan.roles[0], 0))


def worker_addresses(plan: GangPlan) -> list[str]:
    """Every other Pod's DNS name, in rank order."""
    return [fqdn(plan, pod_hostname(plan, role, i)) for role, i, rank in pod_ranks(plan) if rank > 0]


def gang_pods(plan: GangPlan) -> int:
    return len(pod_ranks(plan))


def known_hosts(plan: GangPlan, host_public_key: str) -> str:
    """The launcher's ``known_hosts``: every worker name of the hostfile (the names ``mpirun`` hands
    to ssh) with the workers' host key, ``<type> <base64>`` (sshd(8), SSH_KNOWN_HOSTS FILE FORMAT;
    a port other than 22 is written ``[name]:port``)."""
    key_type, key, *_ = host_public_key.split()
    hosts = worker_addresses(plan)
    names = hosts if SSH_PORT == 22 else [f"[{host}]:{SSH_PORT}" for host in hosts]
    return f"{','.join(names)} {key_type} {key}\n"


LABEL_VALUE_LIMIT = 63
"""Label values, DNS labels (Service names, Pod hostnames) and Job names (the ``job-name`` label) stop at 63."""
STATEFULSET_NAME_LIMIT = 52
"""A StatefulSet's name plus ``-<hash>`` must fit the 63-character ``controller-revision-hash`` label."""


@dataclass(frozen=True)
class GeneratedName:
    """One name the platform builds from the run's name, and the most characters it may have."""

    what: str
    name: str
    limit: int
