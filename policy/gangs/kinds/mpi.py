"""``template: mpi``: a CPU-only launcher and GPU workers; the launcher must not start without every worker.

The launcher runs ``mpirun`` over a generated hostfile of the workers' names, reaching them over SSH with
a per-run key pair from a Secret; it starts only when every worker's name resolves, which the headless
Service publishes only once sshd is ready. The workers' sshd presents a host key from the same Secret and
the launcher accepts no other (``StrictHostKeyChecking=yes`` against the run's ``known_hosts``). The
launcher starts every worker's daemon itself (no tree spawn), so only it holds the private key. A rank on
a worker is a child of that worker's sshd, not of its container: the worker writes its container's
environment for sshd to hand its sessions before it starts sshd. Open MPI 4 and 5 are both set up (5
starts its daemons with PRRTE, which reads its own variables).
"""

from __future__ import annotations

from catalog.launchers import (
    HOSTFILE_KEY,
    MPI_CONFIG_DIR,
    MPI_LAUNCHERS,
    MPI_MOUNTS,
    MPI_OWNED_FLAGS,
    SSH_DIR,
    SSH_HOST_KEY,
    SSH_KNOWN_HOSTS,
    SSH_PORT,
    SSH_PRIVATE_KEY,
    SSH_PUBLIC_KEY,
)
from config.errors import ConfigError
from config.platform import GangTemplate, RunConfig
from config.validate_launch import owned_flags
from policy.gangs.kinds.base import TemplateKind
from policy.gangs.launch import (
    ConfigFile,
    EnvVar,
    Launch,
    Probe,
    SecretFile,
    hostfile_name,
    ssh_secret_name,
    worker_addresses,
)
from policy.gangs.shapes import GangPlan, Role

AUTHORIZED_KEYS = "authorized_keys"
HOST_KEY_FILE = "ssh_host_ed25519_key"
KNOWN_HOSTS_FILE = "known_hosts"


def hostfile(plan: GangPlan) -> str:
    """Open MPI hostfile: one worker name per line with its slots (ranks per Pod)."""
    return "".join(f"{host} slots={plan.processes_per_pod}\n" for host in worker_addresses(plan))


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


class Mpi(TemplateKind):
    template = GangTemplate.MPI
    leader = "launcher"
    workers = "workers"
    leads_its_gang = False
    unit = "worker"
    reads = frozenset({"processes_per_pod"})
    mounts = MPI_MOUNTS
    needs_ssh_key = True
    publishes_not_ready = False
    """The launcher waits for its workers' names, so they appear only once sshd is ready."""

    def check_run(self, run: RunConfig, *, name: str) -> None:
        owned = owned_flags(run.command, MPI_OWNED_FLAGS)
        if (run.command and run.command[0].rsplit("/", 1)[-1] in MPI_LAUNCHERS) or owned:
            raise ConfigError(
                "command",
                list(run.command),
                "the mpi template runs mpirun with the generated hostfile and -np itself",
                "give only the program every rank runs, e.g. [python, train.py]",
            )

    def world_size(self, plan: GangPlan) -> int:
        """The workers' slots (the launcher runs no rank)."""
        return len(worker_addresses(plan)) * plan.processes_per_pod

    def discovery(self, plan: GangPlan) -> str:
        return f"hostfile `{hostfile_name(plan)}`, SSH key Secret `{ssh_secret_name(plan)}`"

    def config_files(self, plan: GangPlan) -> tuple[ConfigFile, ...]:
        return (ConfigFile("Hostfile", hostfile_name(plan), ((HOSTFILE_KEY, hostfile(plan)),)),)

    def launch(self, plan: GangPlan, role: Role) -> Launch:
        if role is not plan.roles[0]:
            # -h: only this host key is loaded (sshd(8)); the launcher's known_hosts holds its public half.
            sshd = _SSHD.format(
                port=SSH_PORT, host_key=f"{SSH_DIR}/{HOST_KEY_FILE}", keys=f"{SSH_DIR}/{AUTHORIZED_KEYS}"
            )
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
            (
                "sh",
                "-c",
                _MPIRUN,
                "mpirun",
                "--hostfile",
                hostfile_path,
                "-np",
                str(self.world_size(plan)),
                *plan.command,
            ),
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


KIND = Mpi()
