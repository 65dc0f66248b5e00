"""The typed environment model: parsed and validated once, trusted everywhere after."""

from config.errors import ConfigError
from config.load import load_environment
from config.model import EnvironmentConfig

__all__ = ["ConfigError", "EnvironmentConfig", "load_environment"]
