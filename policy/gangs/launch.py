"""Per template, what each role's container runs, and the addresses its Pods use to find each other.

Every Pod gets a stable DNS name from a headless Service: ``<hostname>.<service>.<namespace>.svc``
(Kubernetes DNS for Pods with ``hostname`` and ``subdomain``,
https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-hostname-and-subdomain-field).
Values that differ per Pod come from the downward API (labels of the Pod), so one Pod spec
serves a role, and the same spec works in a Job or StatefulSet template.

- PyTorch: torchrun on every Pod with a c10d rendezvous on rank 0's name and a fixed port.
  A failed rank ends its Pod (``--max-restarts=0``, ``restartPolicy: Never``); its peers'
  collectives fail and so do they: the run fails as a whole and is resubmitted, because a
  synchronous job cannot continue with a missing rank. The Job form (``backoffLimit: 0``)
  makes the Job controller terminate the survivors at once.
- MPI: a CPU-only launcher runs ``mpirun`` over a generated hostfile of the workers' names,
  reaching them over SSH with a per-run key pair from a Secret; it starts only when every
  worker's name resolves, which the headless Service publishes only once sshd is ready. The
  workers' sshd presents a host key from the same Secret and the launcher accepts no other
  (``StrictHostKeyChecking=yes`` against the run's ``known_hosts``). The launcher starts every
  worker's daemon itself (no tree spawn), so only it holds the private key. A rank on a worker
  is a child of that worker's sshd, not of its container: the worker writes its container's
  environment for sshd to hand its sessions before it starts sshd. Open MPI 4 and 5 are both
  set up (5 starts its daemons with PRRTE, which reads its own variables).
- Spark-like: the driver and executors share one gang; executors reach the driver by name.
- Service: the leader is ready only once every worker is (a second headless Service lists
  ready workers only).
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.labels import DOMAIN
from catalog.launchers import (
    CLUSTER_DOMAIN,
    DRIVER_PORT,
    HOSTFILE_KEY,
    MAX_RESTARTS,
    MPI_CONFIG_DIR,
    RENDEZVOUS_PORT,
    SSH_DIR,
    SSH_HOST_KEY,
    SSH_KNOWN_HOSTS,
    SSH_PORT,
    SSH_PRIVATE_KEY,
    SSH_PUBLIC_KEY,
    TORCHRUN,
)
from config.platform import GangTemplate
from policy.gangs.plan import GangPlan, Role

RANK_LABEL = f"{DOMAIN}/rank"
"""A bare Pod's place in the gang (0 = rank 0 / leader / launcher / driver), read through the downward API."""
JOB_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
"""The label the Job controller puts on each Pod of an Indexed Job (Kubernetes >= 1.28)."""
AUTHORIZED_KEYS = "authorized_keys"
HOST_KEY_FILE = "ssh_host_ed25519_key"
KNOWN_HOSTS_FILE = "known_hosts"


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


def ready_service_name(plan: GangPlan) -> str:
    """Service runs: a second headless Service listing only ready workers."""
    return f"{plan.workload_name}-ready"


def hostfile_name(plan: GangPlan) -> str:
    return f"{plan.workload_name}-hostfile"


def ssh_secret_name(plan: GangPlan) -> str:
    """The per-run key pair Secret an MPI run mounts; created at apply time, never rendered."""
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


def _leader(plan: GangPlan) -> str:
    return fqdn(plan, pod_hostname(plan, plan.roles[0], 0))


def _workers(plan: GangPlan) -> list[str]:
    return [fqdn(plan, pod_hostname(plan, role, i)) for role, i, rank in pod_ranks(plan) if rank > 0]


def gang_pods(plan: GangPlan) -> int:
    return len(pod_ranks(plan))


def world_size(plan: GangPlan) -> int:
    """Processes that form the job's world: every PyTorch Pod's, the MPI workers' slots, else the Pods."""
    if plan.template is GangTemplate.PYTORCH:
        return gang_pods(plan) * plan.processes_per_pod
    if plan.template is GangTemplate.MPI:
        return len(_workers(plan)) * plan.processes_per_pod
    return gang_pods(plan)


def hostfile(plan: GangPlan) -> str:
    """Open MPI hostfile: one worker name per line with its slots (ranks per Pod)."""
    return "".join(f"{host} slots={plan.processes_per_pod}\n" for host in _workers(plan))


def known_hosts(plan: GangPlan, host_public_key: str) -> str:
    """The launcher's ``known_hosts``: every worker name of the hostfile (the names ``mpirun`` hands
    to ssh) with the workers' host key, ``<type> <base64>`` (sshd(8), SSH_KNOWN_HOSTS FILE FORMAT;
    a port other than 22 is written ``[name]:port``)."""
    key_type, key, *_ = host_public_key.split()
    names = _workers(plan) if SSH_PORT == 22 else [f"[{host}]:{SSH_PORT}" for host in _workers(plan)]
    return f"{','.join(names)} {key_type} {key}\n"


def discovery(plan: GangPlan) -> str:
    """How the Pods find each other, in one line for reviewers."""
    if plan.template is GangTemplate.PYTORCH:
        return f"c10d rendezvous `{_leader(plan)}:{RENDEZVOUS_PORT}`"
    if plan.template is GangTemplate.MPI:
        return f"hostfile `{hostfile_name(plan)}`, SSH key Secret `{ssh_secret_name(plan)}`"
    if plan.template is GangTemplate.SPARK:
        return f"driver `{_leader(plan)}:{DRIVER_PORT}`"
    return f"leader `{_leader(plan)}`, ready when Service `{ready_service_name(plan)}` lists every worker"


def _rank_env(plan: GangPlan) -> EnvVar:
    label = JOB_INDEX_LABEL if plan.job else RANK_LABEL
    return EnvVar("NODE_RANK", field_path=f"metadata.labels['{label}']")


def _pytorch(plan: GangPlan) -> Launch:
    pods = gang_pods(plan)
    group = plan.groups[-1]
    minimum = pods if group.min_count is None else group.min_count + (pods - group.replicas)
    nnodes = f"{minimum}:{pods}" if plan.elastic and minimum < pods else str(pods)
    env = [
        _rank_env(plan),
        EnvVar("NNODES", nnodes),
        EnvVar("NPROC_PER_NODE", str(plan.processes_per_pod)),
        EnvVar("MASTER_ADDR", _leader(plan)),
        EnvVar("MASTER_PORT", str(RENDEZVOUS_PORT)),
        EnvVar("RDZV_ID", plan.workload_name),
    ]
    if ":" not in nnodes:  # an elastic world's size is only known once the rendezvous closes
        env.append(EnvVar("WORLD_SIZE", str(world_size(plan))))
    command = (
        TORCHRUN,
        "--nnodes=$(NNODES)",
        "--nproc-per-node=$(NPROC_PER_NODE)",
        "--node-rank=$(NODE_RANK)",
        "--rdzv-backend=c10d",
        "--rdzv-endpoint=$(MASTER_ADDR):$(MASTER_PORT)",
        "--rdzv-id=$(RDZV_ID)",
        f"--max-restarts={MAX_RESTARTS}",
        *plan.command,
    )
    return Launch(command, tuple(env), ports=(("rendezvous", RENDEZVOUS_PORT),))


_WAIT_FOR_HOSTFILE = (
    "for host in $(cut -d' ' -f1 {hostfile}); do\n"
    '  until getent hosts "$host" >/dev/null; do echo "waiting for $host"; sleep 2; done\n'
    "done"
)
_MPIRUN = (
    # mpirun by its absolute path, links resolved: that is --prefix <its installation> (mpirun(1),
    # "--prefix"), so Open MPI 4 starts each worker's orted from there, not whatever orted the
    # session's PATH finds (Open MPI takes the prefix from the path as called, links and all).
    'mpirun=$(command -v mpirun) && mpirun=$(readlink -f "$mpirun") '
    '|| { echo "mpirun is not on the image\'s PATH" >&2; exit 127; }\n'
    'exec "$mpirun" "$@"'
)
_SSHD = (
    # A rank is a child of this container's sshd, whose sessions get sshd's default PATH and none
    # of the container's variables (its own, the image's, and what admission added, such as EKS Pod
    # Identity's or IRSA's credentials): sshd reads them from ~/.ssh/environment, with
    # PermitUserEnvironment (sshd(8), "~/.ssh/environment"), one NAME=value a line. The umask is
    # the subshell's: the sessions keep the container's.
    "set -e\n"
    "mkdir -p /run/sshd\n"
    "(umask 077 && mkdir -p ~root/.ssh && awk 'BEGIN {{ for (name in ENVIRON) "
    'if (name !~ /^(PWD|OLDPWD|SHLVL|_)$/ && ENVIRON[name] !~ /\\n/) print name "=" ENVIRON[name] }}\' '
    "> ~root/.ssh/environment)\n"
    "exec /usr/sbin/sshd -D -e -p {port} -h {host_key} -o AuthorizedKeysFile={keys} -o StrictModes=no "
    "-o PasswordAuthentication=no -o PermitUserEnvironment=yes"
)


def _mpi(plan: GangPlan, role: Role) -> Launch:
    if role is not plan.roles[0]:
        # -h: only this host key is loaded (sshd(8)); the launcher's known_hosts holds its public half.
        sshd = _SSHD.format(port=SSH_PORT, host_key=f"{SSH_DIR}/{HOST_KEY_FILE}", keys=f"{SSH_DIR}/{AUTHORIZED_KEYS}")
        return Launch(
            ("sh", "-c", sshd),
            readiness=Probe(tcp_port=SSH_PORT),
            ports=(("ssh", SSH_PORT),),
            ssh_files=(SecretFile(SSH_PUBLIC_KEY, AUTHORIZED_KEYS), SecretFile(SSH_HOST_KEY, HOST_KEY_FILE)),
        )
    hostfile_path = f"{MPI_CONFIG_DIR}/{HOSTFILE_KEY}"
    ssh = (
        f"-i {SSH_DIR}/{SSH_PRIVATE_KEY} -o StrictHostKeyChecking=yes "
        f"-o UserKnownHostsFile={SSH_DIR}/{KNOWN_HOSTS_FILE} -o GlobalKnownHostsFile=/dev/null "
        f"-o BatchMode=yes -p {SSH_PORT}"
    )
    return Launch(
        ("sh", "-c", _MPIRUN, "mpirun", "--hostfile", hostfile_path, "-np", str(world_size(plan)), *plan.command),
        env=(
            # Open MPI's default tree spawn has each daemon ssh on to its children past 64 workers
            # (routed_radix); the workers hold no private key, so the launcher starts them all.
            # Open MPI 4 (ORTE) reads OMPI_MCA_*; Open MPI 5's PRRTE ignores those (mpirun 5.0.11
            # ran plain ssh with them) and reads PRTE_MCA_*, where rsh is called ssh.
            EnvVar("OMPI_MCA_plm_rsh_agent", "ssh"),
            EnvVar("OMPI_MCA_plm_rsh_args", ssh),
            EnvVar("OMPI_MCA_plm_rsh_no_tree_spawn", "true"),
            EnvVar("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
            EnvVar("PRTE_MCA_plm_ssh_agent", "ssh"),
            EnvVar("PRTE_MCA_plm_ssh_args", ssh),
            EnvVar("PRTE_MCA_plm_ssh_no_tree_spawn", "true"),
            EnvVar("PRTE_MCA_prte_keep_fqdn_hostnames", "true"),
            # The Pods run as the image's user, root where the workers' sshd binds port 22 and logs
            # the launcher in; mpirun refuses root unless both of these are set.
            EnvVar("OMPI_ALLOW_RUN_AS_ROOT", "1"),
            EnvVar("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        ),
        wait_command=("sh", "-c", _WAIT_FOR_HOSTFILE.format(hostfile=hostfile_path)),
        hostfile=True,
        ssh_files=(SecretFile(SSH_PRIVATE_KEY, SSH_PRIVATE_KEY), SecretFile(SSH_KNOWN_HOSTS, KNOWN_HOSTS_FILE)),
    )


def _spark(plan: GangPlan) -> Launch:
    env = (EnvVar("DRIVER_HOST", _leader(plan)), EnvVar("DRIVER_PORT", str(DRIVER_PORT)))
    return Launch(plan.command, env, ports=(("driver", DRIVER_PORT),))


_GROUP_READY = (
    'ready=$(getent ahosts "$READY_WORKERS" | cut -d" " -f1 | sort -u | wc -l)\n'
    '[ "$ready" -ge "$WORKERS" ] && exec "$@"'
)


def _service(plan: GangPlan, role: Role) -> Launch:
    own = plan.readiness_command
    if role is not plan.roles[0]:
        return Launch(plan.command, readiness=Probe(own))
    env = (
        EnvVar("WORKERS", str(len(_workers(plan)))),
        EnvVar("READY_WORKERS", f"{ready_service_name(plan)}.{plan.namespace}.svc.{CLUSTER_DOMAIN}"),
    )
    return Launch(plan.command, env, readiness=Probe(("sh", "-c", _GROUP_READY, "group-ready", *own)))


def launch(plan: GangPlan, role: Role) -> Launch:
    """The container side of one role of a run."""
    if plan.template is GangTemplate.PYTORCH:
        return _pytorch(plan)
    if plan.template is GangTemplate.MPI:
        return _mpi(plan, role)
    if plan.template is GangTemplate.SPARK:
        return _spark(plan)
    return _service(plan, role)


def publishes_not_ready(plan: GangPlan) -> bool:
    """Whether the identity Service's DNS lists Pods before they are ready.

    MPI's launcher waits for its workers' names, so they appear only once sshd is ready;
    every other template needs the names at once (rank 0's rendezvous, the driver).
    """
    return plan.template is not GangTemplate.MPI


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


def generated_names(plan: GangPlan) -> list[GeneratedName]:
    """Every name built from the run's name that a length limit applies to: the Services, the Pods' names and
    hostnames (the longest index of each role), the StatefulSets or the Job, and the labels carrying it."""
    names = [
        GeneratedName("label gpu-platform.io/run", plan.run, LABEL_VALUE_LIMIT),
        GeneratedName("label app.kubernetes.io/part-of", plan.workload_name, LABEL_VALUE_LIMIT),
        GeneratedName("Service name", service_name(plan), LABEL_VALUE_LIMIT),
    ]
    if plan.template is GangTemplate.SERVICE:
        names.append(GeneratedName("ready Service name", ready_service_name(plan), LABEL_VALUE_LIMIT))
        names += [
            GeneratedName(
                f"StatefulSet name ({role.name})", f"{plan.workload_name}-{role.name}", STATEFULSET_NAME_LIMIT
            )
            for role in plan.roles
        ]
    else:
        names += [
            GeneratedName(f"Pod hostname ({role.name})", pod_hostname(plan, role, role.replicas - 1), LABEL_VALUE_LIMIT)
            for role in plan.roles
            if role.replicas
        ]
    if plan.job:
        names.append(GeneratedName("Job name", plan.workload_name, LABEL_VALUE_LIMIT))
    return names
