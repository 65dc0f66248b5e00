"""YAML the tests read (the committed ``dist/``, reference charts and CRDs, rendered values), parsed by libyaml.

PyYAML's pure-Python parser spent seconds of the suite on the chart values and the rendered
files; ``CSafeLoader`` builds the same plain data with the same safe constructors. Environment
files still go through the product's own strict reader wherever a test is about reading them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(text: str) -> Any:
    return yaml.load(text, Loader=_LOADER)


def load_all(text: str) -> Iterator[Any]:
    return yaml.load_all(text, Loader=_LOADER)
