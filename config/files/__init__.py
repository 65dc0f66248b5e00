"""Reading input files: bounded, regular files only, through the one strict YAML reader."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from config.errors import ConfigError
from config.files.strict_yaml import MAX_FILE_BYTES, parse_yaml

__all__ = ["MAX_FILE_BYTES", "parse_yaml", "read_yaml_file"]


def read_yaml_file(file: Path, *, fix: str = "pass the path of an existing environment file") -> Any:
    """The plain data of ``file`` (see ``parse_yaml``); never reads more than ``MAX_FILE_BYTES`` + 1 bytes.

    Devices, pipes and directories are refused before anything is read: ``/dev/zero`` as a
    configuration file must not fill memory.
    """
    try:
        mode = file.stat().st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError("config", str(file), "not a regular file", fix)
        with file.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise ConfigError("config", str(file), f"cannot read file ({error.strerror})", fix) from None
    return parse_yaml(data)
