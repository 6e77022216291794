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
    # Text a PDF may carry, checked page by page while extracting (about 1 KB of memory per word
    # otherwise: an 86 KB file can hold 2 M words). A page or document over a cap is refused with
    # a message naming the page and the setting; workbench/pdf/limits.py says how it is counted.
    max_page_chars: int = Field(200_000, gt=0, description=(
        "Characters one page may hold (a dense page holds about 10,000). Checked before extracting "
        "the page where its content shows it, else right after; a page over it refuses the PDF."))
    max_page_words: int = Field(30_000, gt=0, description=(
        "Words one page may hold (a dense page holds about 2,000); a page over it refuses the PDF."))
    max_document_chars: int = Field(20_000_000, gt=0, description=(
        "Characters one PDF may hold in all (about 3,000 dense pages); counted while extracting."))
    max_document_words: int = Field(3_000_000, gt=0, description=(
        "Words one PDF may hold in all; ingest needs about 1 KB of memory per word."))
    # Page images: at most this many pixels (zoom is scaled down to fit); 25 MP ≈ 75 MB RGB.
    render_max_pixels: int = Field(25_000_000, gt=0, description=(
        "Pixels one page image may have; a bigger page is drawn at the largest zoom that fits."))

    # The app listens on this interface only. 127.0.0.1: this machine only. Anything wider
    # (0.0.0.0, a LAN address) lets everyone who reaches it read and label: turn sign_in on and/or
    # put an authenticating reverse proxy in front first (README, "Serving others").
    listen_address: str = "127.0.0.1"
    # Key for the run-record signatures and the review-event hash chain (store/signing.py). Unset:
    # a random key in data_dir/integrity.key. Every process sharing one database needs the same key.
    integrity_key: str | None = None

    # Retrieval
    chunk_words: int = 160
    top_k: int = 8
    vector_weight: float = 0.5  # share of the vector rank in the hybrid rank mix
    embed_threads: int = 2
    embed_batch: int = 32
    # Build a document's retrieval index in the background right after it is ingested in the
    # app, so the first question does not wait for the embedding.
    index_on_ingest: bool = True

    # Sign-in: off, the reviewer types a name (one analyst, a trusted team). On, every review
    # event records the signed-in identity and roles apply (reviewer < adjudicator < admin):
    # local accounts (`workbench user add`), or OIDC through st.login when sign_in_provider names
    # a provider configured in .streamlit/secrets.toml ([auth.<provider>]).
    sign_in: bool = False
    sign_in_provider: str | None = None

    # Jobs: unset runs ingest, indexing, runs and draft checks in this process (the embedded
    # default); a Redis URL (redis://127.0.0.1:6379/0) sends them to `workbench worker` processes.
    queue_url: str | None = None
    # RQ queue name, also the prefix of the job records in Redis: one per workspace sharing a Redis.
    queue_name: str = "workbench"
    job_timeout: int = 3600  # seconds one job may run before the worker stops it

    # Pipeline
    backend: str = "rules"
    max_revisions: int = 2
    quote_min_words: int = 10
    quote_max_words: int = 40

    # OpenAI-compatible backend
    openai_api_key: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "WORKBENCH_OPENAI_API_KEY"))
    openai_base_url: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "WORKBENCH_OPENAI_BASE_URL"))
    model: str = "gpt-4o-mini"
    # Seconds one LLM call may take in all, retries included (one deadline, not per read).
    llm_timeout: float = 60.0
    llm_max_retries: int = 2
    temperature_draft: float = 0.3
    temperature_validate: float = 0.1
    llm_max_concurrency: int = 4
    # The model's context window in tokens, when the server does not report it (llama.cpp and
    # vLLM do): extract calls are sized to fit it.
    llm_context_tokens: int = 8192

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
