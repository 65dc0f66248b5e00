"""The acknowledged risks (``policy.environment.acknowledgements``) as CDK warnings on the construct each concerns.

``cdk synth``/``cdk deploy`` print CDK warnings themselves; ``make synth`` prints the risks from the
configuration and leaves these out (``cli.cdk_messages``), so each is said once either way.
"""

from __future__ import annotations

from collections.abc import Iterable

from aws_cdk import Annotations
from constructs import IConstruct

from policy.environment.acknowledgements import AcknowledgedRisk


def warn_acknowledged(scope: IConstruct, risks: Iterable[AcknowledgedRisk]) -> None:
    for risk in risks:
        Annotations.of(scope).add_warning_v2(risk.acknowledgement.value, risk.text)
