"""Run rules of the launch side of the gang templates: what a team may write, what the platform owns.

Every rule raises one ``ConfigError`` line naming the field, the value and the fix. They run
after the run file parses and before anything renders (``policy.environment.teams.check_run``).
"""

from __future__ import annotations

import posixpath

from catalog.launchers import (
    CHECKPOINT_PATH,
    MPI_LAUNCHERS,
    MPI_MOUNTS,
    MPI_OWNED_FLAGS,
    PLATFORM_MOUNTS,
    TORCHRUN,
    TORCHRUN_OWNED_FLAGS,
)
from config.errors import ConfigError
from config.platform import GangTemplate, RunConfig

STATEFULSET_NAME_MAX_LENGTH = 52
"""A StatefulSet's name plus ``-<hash>`` must fit the 63-character ``controller-revision-hash`` label."""
SERVICE_RUN_NAME_MAX_LENGTH = STATEFULSET_NAME_MAX_LENGTH - len("-12345678-leader")
"""Service StatefulSets are named ``<run>-<digest>-<role>``."""

_UNITS = {
    GangTemplate.PYTORCH: "Pod",
    GangTemplate.MPI: "worker",
    GangTemplate.SPARK: "executor",
    GangTemplate.SERVICE: "Pod",
}


def _owned(command: tuple[str, ...], flags: tuple[str, ...]) -> list[str]:
    return [token for token in command if any(token == f or token.startswith(f"{f}=") for f in flags)]


def processes_per_pod(run: RunConfig) -> int:
    """torchrun's ``--nproc-per-node`` and MPI's slots: what the team asked for, else one per GPU."""
    return run.processes_per_pod or max(run.gpus_per_replica, 1)


def check_launch(run: RunConfig, *, name: str, composite: bool) -> None:
    """The launch rules of one run; ``composite`` says whether the run renders as a CompositePodGroup tree."""
    template = run.template
    if run.replicas < 1:
        raise ConfigError(
            "replicas",
            run.replicas,
            f"a {template.value} run needs at least one {_UNITS[template]}",
            "set replicas >= 1",
        )
    if composite and template in (GangTemplate.PYTORCH, GangTemplate.SERVICE) and run.replicas < 2:
        raise ConfigError(
            "replicas",
            run.replicas,
            f"a hierarchical {template.value} gang has a group for rank 0 and one for the other Pods, "
            "so it needs at least 2 Pods",
            "set replicas >= 2, or drop hierarchical: true",
        )
    if run.shm_gib is not None and run.shm_gib >= run.memory_gib_per_replica:
        raise ConfigError(
            "shm_gib",
            run.shm_gib,
            f"/dev/shm is memory-backed and counts against the Pod's {run.memory_gib_per_replica}Gi limit",
            "set shm_gib below memory_gib_per_replica",
        )
    check_checkpoint_mount(run)
    if template is GangTemplate.PYTORCH:
        _check_pytorch(run)
    elif template is GangTemplate.MPI:
        _check_mpi(run)
    elif template is GangTemplate.SERVICE:
        _check_service(run, name=name)


def _check_pytorch(run: RunConfig) -> None:
    if run.processes_per_pod is not None and run.gpus_per_replica and run.processes_per_pod != run.gpus_per_replica:
        raise ConfigError(
            "processes_per_pod",
            run.processes_per_pod,
            f"torchrun starts one process per GPU and each Pod claims {run.gpus_per_replica} GPUs",
            f"set processes_per_pod: {run.gpus_per_replica} or drop it, or change gpus_per_replica",
        )
    if not run.command:
        raise ConfigError(
            "command",
            [],
            "a pytorch run names its training script (the platform wraps it in torchrun)",
            "set command: [train.py, <arguments>]",
        )
    if run.command[0].rsplit("/", 1)[-1] in ("python", "python3"):
        raise ConfigError(
            "command",
            list(run.command),
            "torchrun starts the Python interpreter itself; it would run 'python' as the script",
            "drop the interpreter: [train.py, <arguments>] or [-m, package.module]",
        )
    owned = _owned(run.command, TORCHRUN_OWNED_FLAGS)
    if run.command[0] == TORCHRUN or "torch.distributed.run" in run.command or owned:
        raise ConfigError(
            "command",
            list(run.command),
            "the pytorch template runs torchrun and sets --nnodes, --nproc-per-node, --node-rank and the "
            f"rendezvous itself{f' (found {owned[0]})' if owned else ''}",
            "give only the script and its arguments, e.g. [train.py, --config=c.yaml]",
        )


def _check_mpi(run: RunConfig) -> None:
    owned = _owned(run.command, MPI_OWNED_FLAGS)
    if (run.command and run.command[0].rsplit("/", 1)[-1] in MPI_LAUNCHERS) or owned:
        raise ConfigError(
            "command",
            list(run.command),
            "the mpi template runs mpirun with the generated hostfile and -np itself",
            "give only the program every rank runs, e.g. [python, train.py]",
        )


def _check_service(run: RunConfig, *, name: str) -> None:
    if not run.readiness_command:
        raise ConfigError(
            "readiness_command",
            [],
            "a service is only ready when every Pod is; the template needs each Pod's readiness check",
            "set readiness_command, e.g. [curl, -fsS, http://127.0.0.1:8080/ready]",
        )
    if len(name) > SERVICE_RUN_NAME_MAX_LENGTH:
        raise ConfigError(
            "<file name>",
            name,
            f"a service run names StatefulSets <run>-<digest>-<role>, which stop at {STATEFULSET_NAME_MAX_LENGTH} "
            "characters",
            f"rename the file to at most {SERVICE_RUN_NAME_MAX_LENGTH} characters",
        )


TEMPLATES_USING = {
    "readiness_command": (GangTemplate.SERVICE,),
    "processes_per_pod": (GangTemplate.PYTORCH, GangTemplate.MPI),
}
"""Run fields only some templates read (``policy.gangs.launch``: the service probe; torchrun's
``--nproc-per-node`` and the MPI hostfile's slots). ``job`` is pytorch only too, refused with the gates
(``policy.environment.teams.unhonoured_settings``)."""


def check_run_ignored_fields(run: RunConfig) -> None:
    """A field the run's template never reads is an error: it would be dropped without a word."""
    for field, templates in TEMPLATES_USING.items():
        value = getattr(run, field)
        if value in (None, ()) or run.template in templates:
            continue
        users = " and ".join(t.value for t in templates)
        raise ConfigError(
            field,
            list(value) if isinstance(value, tuple) else value,
            f"the {run.template.value} template never reads it (only {users} runs do)",
            f"remove {field} from the run, or use template: {templates[0].value}",
        )


def check_checkpoint_mount(run: RunConfig) -> None:
    """The checkpoint volume's path: a clean absolute path, not one the platform mounts at, nor above one."""
    if run.checkpoint is None:
        return
    path = run.checkpoint.mount_path
    clean = posixpath.normpath(path)
    if clean != path or path.startswith("//"):
        raise ConfigError(
            "checkpoint.mount_path",
            path,
            "not a plain absolute path ('.', '..', '//' or a trailing '/' make two spellings of one directory)",
            f"write it as {clean if clean != '/' else '/checkpoints'}",
        )
    mounts = PLATFORM_MOUNTS | (MPI_MOUNTS if run.template is GangTemplate.MPI else {})
    for own, what in sorted(mounts.items()):
        if path == own or own.startswith(path.rstrip("/") + "/"):
            relation = "is where the platform mounts" if path == own else "is above where the platform mounts"
            raise ConfigError(
                "checkpoint.mount_path",
                path,
                f"{relation} {what} ({own})" + ("" if path == own else ", and would hide it"),
                f"use a directory of its own, e.g. {CHECKPOINT_PATH}",
            )
