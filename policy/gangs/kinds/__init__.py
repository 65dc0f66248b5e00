"""The gang template kinds: one object per run file ``template:``, which the planner, the run checks, the
renderer, the summary and the launcher wiring ask.

Each kind is a module of this package holding its ``TemplateKind`` subclass and its one instance,
``KIND``; the registry finds the modules itself, so adding a kind is adding its module (and its
``GangTemplate`` value). ``base`` holds what every kind answers.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Protocol

from config.platform import GangTemplate
from policy.gangs.kinds.base import PodController, TemplateKind

__all__ = ["KINDS", "PodController", "TemplateKind", "kind_of"]


class _Templated(Protocol):
    @property
    def template(self) -> GangTemplate: ...


def _discover() -> dict[GangTemplate, TemplateKind]:
    """Every kind module's ``KIND``, in the order of ``GangTemplate`` (the order refusals list kinds in)."""
    found: dict[GangTemplate, TemplateKind] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name == "base" or module.name.startswith("_"):
            continue
        kind = getattr(importlib.import_module(f"{__name__}.{module.name}"), "KIND", None)
        if not isinstance(kind, TemplateKind):
            raise TypeError(f"{__name__}.{module.name} defines no KIND (a TemplateKind instance)")
        if kind.template in found:
            raise ValueError(f"two kind modules serve template {kind.template.value}")
        found[kind.template] = kind
    missing = [t.value for t in GangTemplate if t not in found]
    if missing:
        raise ValueError(f"no kind module for template {', '.join(missing)} (add policy/gangs/kinds/<kind>.py)")
    return {template: found[template] for template in GangTemplate}


KINDS: dict[GangTemplate, TemplateKind] = _discover()
"""Every template's kind, in ``GangTemplate`` order."""


def kind_of(subject: GangTemplate | _Templated) -> TemplateKind:
    """The kind of a template, or of a run or plan (anything with a ``template``)."""
    return KINDS[subject if isinstance(subject, GangTemplate) else subject.template]
