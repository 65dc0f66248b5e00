"""Platform-owned Kubernetes policy in an environment, and the team run file model."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import Field

from catalog.device_classes import DeviceShape
from catalog.priority_tiers import Tier
from config.model_base import DnsLabel, Model, text

_ALL_SHAPES = tuple(DeviceShape)


class PolicyEnforcement(StrEnum):
    DENY = "deny"
    WARN_AUDIT = "warn_audit"


class WorkloadApi(StrEnum):
    """What the stack does when the API server does not serve ``scheduling.k8s.io`` (Workload, PodGroup)."""

    REQUIRED = "required"
    OPTIONAL = "optional"


class TeamConfig(Model):
    """A team: its namespace and the priority tiers it may use."""

    namespace: DnsLabel
    """Namespace the team's runs are rendered into."""
    tiers: tuple[Tier, ...] = (Tier.STANDARD, Tier.OPPORTUNISTIC)
    """Tiers the namespace may use; scarce tiers (critical, deadline) must be granted here."""
    runs: tuple[DnsLabel, ...] | None = None
    """Runs of `teams/<team>/` rendered in this environment (file names without `.yaml`); all by default.
    A small cluster lists the runs sized for it."""


class PlatformConfig(Model):
    """Cluster-scoped objects the platform owns and the teams it serves."""

    device_classes: tuple[DeviceShape, ...] = _ALL_SHAPES
    """DeviceClasses to publish (see `catalog/device_classes.py`)."""
    default_tier: Tier | None = None
    """Tier whose PriorityClass is the cluster's global default; none by default."""
    platform_namespaces: tuple[DnsLabel, ...] = ("gpu-platform",)
    """Namespaces that may use the critical tier."""
    teams: dict[DnsLabel, TeamConfig] = {}
    """Teams by name; runs under `teams/<name>/` render into the team's namespace."""
    policy_enforcement: PolicyEnforcement = PolicyEnforcement.DENY
    """Admission policy actions: `deny`, or `warn_audit` while rolling out."""
    workload_api: WorkloadApi = WorkloadApi.REQUIRED
    """With GenericWorkload acknowledged: `required` makes `make deploy`'s verify step fail (cluster left up)
    when the API server does not serve the Workload API or drops a gated field; `optional` applies no gang
    admission policy and `make verify` reports missing gates as warnings. Without GenericWorkload gangs take
    the fallback form and this setting has no effect."""


class GangTemplate(StrEnum):
    PYTORCH = "pytorch"
    MPI = "mpi"
    SPARK = "spark"
    SERVICE = "service"


class TopologyPreference(StrEnum):
    ZONE = "zone"
    NONE = "none"


class SharedDevices(Model):
    """A claim made once per PodGroup and shared by all its pods (e.g. a MIG slice for a parameter server)."""

    device_class: DeviceShape
    """Platform DeviceClass the shared devices come from."""
    count: Annotated[int, Field(ge=1, le=8)] = 1
    """Devices in the shared claim."""


class CheckpointVolume(Model):
    """A PersistentVolumeClaim the team created (e.g. on FSx for Lustre or EFS), mounted in every Pod."""

    claim_name: DnsLabel
    """Name of the PersistentVolumeClaim in the team's namespace (ReadWriteMany for multi-Pod runs)."""
    mount_path: Annotated[
        str,
        text(
            r"^/[A-Za-z0-9._/-]*$",
            "an absolute path: '/' then letters, digits, '.', '_', '-' and '/' (e.g. /checkpoints)",
            max_length=256,
        ),
    ] = "/checkpoints"
    """Where the volume appears in the containers; not a path the platform mounts at (``/dev/shm``, MPI's
    ``/etc/mpi``) nor a directory above one."""


class RunConfig(Model):
    """One team run (`teams/<team>/<run>.yaml`): the parameters a team may set, nothing more."""

    template: GangTemplate
    """Gang shape: `pytorch` (coordinator + workers), `mpi` (launcher + workers),
    `spark` (driver + executors) or `service` (leader + workers)."""
    replicas: Annotated[int, Field(ge=0, le=1024)]
    """Pods in the gang for `pytorch` and `service` (rank 0 / the leader is one of them); workers for `mpi`
    and executors for `spark` (the CPU-only launcher or driver comes on top)."""
    min_replicas: Annotated[int, Field(ge=1)] | None = None
    """Fewer replicas the gang may start with; requires `elastic: true`."""
    elastic: bool = False
    """Acknowledges that the gang may start with `min_replicas` < `replicas`."""
    gpus_per_replica: Annotated[int, Field(ge=0, le=8)] = 8
    """GPUs each worker claims through its DeviceClass."""
    device_class: DeviceShape = DeviceShape.H100_80GB
    """Platform DeviceClass the GPUs come from."""
    cpu_per_replica: Annotated[int, Field(ge=1, le=192)] = 16
    """vCPUs each worker requests."""
    memory_gib_per_replica: Annotated[int, Field(ge=1, le=2048)] = 64
    """Memory each worker requests."""
    tier: Tier = Tier.STANDARD
    """Priority tier; the platform maps it to priority, preemption and disruption."""
    image: Annotated[
        str,
        text(
            r"^[a-z0-9]+([._/:@-][a-zA-Z0-9_]+)*$",
            "an image reference: lower-case letters and digits, then parts of letters, digits or '_' joined by one of "
            "'.', '_', '/', ':', '@' or '-' (e.g. public.ecr.aws/example/train:1.0 or example/train@sha256:<digest>)",
            max_length=512,
        ),
    ]
    """Container image (pin a digest or tag)."""
    command: tuple[str, ...] = ()
    """`pytorch`: the script and its arguments (the platform adds `torchrun` and its flags); `mpi`: the
    program every rank runs (the platform adds `mpirun`, the hostfile and `-np`); `spark`, `service`: the
    container command."""
    processes_per_pod: Annotated[int, Field(ge=1, le=64)] | None = None
    """`pytorch` and `mpi` only: processes (ranks) each Pod starts: torchrun's `--nproc-per-node`, MPI slots; default
    GPUs per Pod (1 without)."""
    shm_gib: Annotated[int, Field(ge=1, le=1024)] | None = None
    """Size of the memory-backed `/dev/shm` for data loaders; default a quarter of the Pod's memory."""
    checkpoint: CheckpointVolume | None = None
    """A PersistentVolumeClaim for checkpoints, mounted in every Pod of the run."""
    readiness_command: tuple[str, ...] = ()
    """`service` (required; refused on other templates): the command that says one Pod is ready; the leader is
    ready once every Pod is."""
    topology: TopologyPreference = TopologyPreference.ZONE
    """Keep the gang inside one zone (when topology-aware scheduling is on)."""
    job: bool = False
    """Run as an indexed Job with `spec.scheduling` when the cluster has `WorkloadWithJob` (pytorch only)."""
    hierarchical: bool = False
    """Use CompositePodGroups (one child group per role) when the cluster has `CompositePodGroup`."""
    shared_devices: SharedDevices | None = None
    """Devices allocated once per PodGroup and shared by its pods (needs `DRAWorkloadResourceClaims`)."""


@dataclass(frozen=True)
class TeamRun:
    """One run file of a team, parsed: ``teams/<team>/<name>.yaml``."""

    team: str
    name: str
    source: str
    run: RunConfig
