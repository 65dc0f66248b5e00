"""Run rules of the launch side of the gang templates: what a team may write, what the platform owns.

Every rule raises one ``ConfigError`` line naming the field, the value and the fix. They run
after the run file parses and before anything renders (``policy.environment.teams.check_run``).
What differs per template the rules ask of the run's kind (``policy.gangs.kinds``), which each
kind's own rules (``RunKind.check_run``) follow.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from typing import Protocol

from catalog.launchers import CHECKPOINT_PATH, PLATFORM_MOUNTS
from config.errors import ConfigError
from config.platform import GangTemplate, RunConfig


class RunKind(Protocol):
    """What the launch rules ask of a template kind (``policy.gangs.kinds.base.TemplateKind``)."""

    @property
    def template(self) -> GangTemplate: ...

    @property
    def unit(self) -> str:
        """What ``replicas`` counts."""
        ...

    @property
    def leads_its_gang(self) -> bool:
        """Rank 0 / the leader is one of ``replicas``."""
        ...

    @property
    def reads(self) -> frozenset[str]:
        """The fields of ``KIND_FIELDS`` the kind reads."""
        ...

    @property
    def mounts(self) -> Mapping[str, str]:
        """What the kind mounts on top of ``PLATFORM_MOUNTS``."""
        ...

    def check_run(self, run: RunConfig, *, name: str) -> None:
        """The kind's own rules."""
        ...


def owned_flags(command: tuple[str, ...], flags: tuple[str, ...]) -> list[str]:
    """The tokens of ``command`` that set one of ``flags`` (``--flag`` or ``--flag=value``)."""
    return [token for token in command if any(token == f or token.startswith(f"{f}=") for f in flags)]


def processes_per_pod(run: RunConfig) -> int:
    """torchrun's ``--nproc-per-node`` and MPI's slots: what the team asked for, else one per GPU."""
    return run.processes_per_pod or max(run.gpus_per_replica, 1)


def check_launch(run: RunConfig, kind: RunKind, *, name: str, composite: bool) -> None:
    """The launch rules of one run of ``kind``; ``composite`` says whether the run renders as a CompositePodGroup
    tree."""
    template = run.template
    if run.replicas < 1:
        raise ConfigError(
            "replicas",
            run.replicas,
            f"a {template.value} run needs at least one {kind.unit}",
            "set replicas >= 1",
        )
    if composite and kind.leads_its_gang and run.replicas < 2:
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
    check_checkpoint_mount(run, kind)
    kind.check_run(run, name=name)


KIND_FIELDS = ("readiness_command", "processes_per_pod")
"""Run fields only some templates read (``RunKind.reads``: the service probe; torchrun's ``--nproc-per-node``
and the MPI hostfile's slots), in the order they are checked. ``job`` is the Job form's, refused with the
gates (``policy.environment.teams.unhonoured_settings``)."""


def check_run_ignored_fields(run: RunConfig, kinds: Iterable[RunKind]) -> None:
    """A field the run's template never reads is an error: it would be dropped without a word. ``kinds``: every
    template's kind, in the order refusals name them."""
    every = tuple(kinds)
    for field in KIND_FIELDS:
        value = getattr(run, field)
        templates = [kind.template for kind in every if field in kind.reads]
        if value in (None, ()) or run.template in templates:
            continue
        users = " and ".join(t.value for t in templates)
        raise ConfigError(
            field,
            list(value) if isinstance(value, tuple) else value,
            f"the {run.template.value} template never reads it (only {users} runs do)",
            f"remove {field} from the run, or use template: {templates[0].value}",
        )


def check_checkpoint_mount(run: RunConfig, kind: RunKind) -> None:
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
    mounts = {**PLATFORM_MOUNTS, **kind.mounts}
    for own, what in sorted(mounts.items()):
        if path == own or own.startswith(path.rstrip("/") + "/"):
            relation = "is where the platform mounts" if path == own else "is above where the platform mounts"
            raise ConfigError(
                "checkpoint.mount_path",
                path,
                f"{relation} {what} ({own})" + ("" if path == own else ", and would hide it"),
                f"use a directory of its own, e.g. {CHECKPOINT_PATH}",
            )
