"""One Settings object: env vars WORKBENCH_* (plus the OpenAI ones), or a TOML file."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="WORKBENCH_",
        toml_file=os.environ.get("WORKBENCH_CONFIG", "workbench.toml"),
        extra="ignore",
    )

    # Where documents, indexes and the SQLite store live.
    data_dir: Path = Path.home() / ".evidence-workbench"
    # SQLAlchemy URL; default is a SQLite file in data_dir. PostgreSQL: postgresql+psycopg://...
    database_url: str | None = None

    # Input limits: bigger uploads are refused with a clear message.
    max_upload_mb: float = 200.0
    max_pages: int = 3000

    # Retrieval
    chunk_words: int = 160
    top_k: int = 8
    vector_weight: float = 0.5  # share of the vector rank in the hybrid rank mix
    embed_threads: int = 2
    embed_batch: int = 32
    # Build a document's retrieval index in the background right after it is ingested in the
    # app, so the first question does not wait for the embedding.
    index_on_ingest: bool = True

    # Pipeline
    backend: str = "rules"
    max_revisions: int = 2
    quote_min_words: int = 10
    quote_max_words: int = 40

    # OpenAI-compatible backend
    openai_api_key: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "WORKBENCH_OPENAI_API_KEY"))
    openai_base_url: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "WORKBENCH_OPENAI_BASE_URL"))
    model: str = "gpt-4o-mini"
    llm_timeout: float = 60.0
    llm_max_retries: int = 2
    temperature_draft: float = 0.3
    temperature_validate: float = 0.1
    llm_max_concurrency: int = 4

    # Safety gate for exports (seed 003)
    gate_min_coverage: float = 0.7  # share of answer sentences that cite verified evidence
    gate_min_support: float = 0.75  # seed 004's "well supported"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'workbench.sqlite3'}"

    def ensure_dirs(self) -> Path:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return self.data_dir


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
