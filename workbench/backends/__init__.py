"""Who does the thinking. `get_backend(name)` returns a Backend; all speak backends.base."""

from __future__ import annotations

from workbench.backends.base import Backend
from workbench.config import Settings
from workbench.errors import ConfigError

BACKENDS = ("rules", "openai")


def get_backend(name: str, settings: Settings) -> Backend:
    if name == "rules":
        from workbench.backends.rules import RulesBackend

        return RulesBackend(settings)
    if name == "openai":
        from workbench.backends.openai import OpenAIBackend

        return OpenAIBackend(settings)
    raise ConfigError(f"Unknown backend {name!r}: choose one of {', '.join(BACKENDS)}.")
