"""Settings: one object, loaded by the entry points and passed down explicitly. Every field is
described, unknown keys are refused, the TOML file is found when settings are loaded (not when
the module is imported), and nothing below the entry points reads the environment or the global
Settings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from workbench.config import Settings, load_settings
from workbench.errors import ConfigError, TooLargeError

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = sorted((ROOT / "workbench").rglob("*.py"))
# The processes' entry points: they load the settings once and pass them down.
# The viewer's HTTP routes (and the link keys they check) run outside any Streamlit session: entry
# points of their own, like the worker.
# the HTTP routes (viewer/routes.py, boot.py's page URLs) are served by the server, which no caller passes Settings to
ENTRY_POINTS = {"workbench/config.py", "workbench/cli.py", "workbench/ui/workspace.py", "workbench/ui/launch.py",
                "workbench/jobs/rq_queue.py", "workbench/ui/viewer/routes.py", "workbench/ui/viewer/access.py",
                "workbench/ui/boot.py"}


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def names_used(path: Path) -> set[str]:
    """Dotted names a file reads (os.environ, os.getenv, get_settings ...) and names it imports."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            out.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {a.name for a in node.names}
    return out


def test_every_setting_is_described():
    bare = [name for name, f in Settings.model_fields.items() if not (f.description or "").strip()]
    assert not bare, f"settings without a description: {bare}"


def test_every_judgment_setting_is_described():
    from workbench.config import JudgmentSettings

    bare = [n for n, f in JudgmentSettings.model_fields.items() if not (f.description or "").strip()]
    assert not bare, f"judgment settings without a description: {bare}"


def test_judgment_settings_come_from_the_environment_and_the_toml_file_and_refuse_unknown_gates(tmp_path, monkeypatch):
    toml = tmp_path / "wb.toml"
    toml.write_text('[judgment]\nmax_proposed = 8\ngates = ["relevance", "hedge"]\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(toml))
    monkeypatch.setenv("WORKBENCH_JUDGMENT__RELEVANT", "0.7")
    s = load_settings()
    assert (s.judgment.relevant, s.judgment.max_proposed, s.judgment.gates) == (0.7, 8, ["relevance", "hedge"])
    toml.write_text('[judgment]\ngates = ["relevance", "vibes"]\n')
    with pytest.raises(ConfigError, match=r"judgment\.gates\.1: Input should be .relevance."):
        load_settings()


def test_an_unknown_keyword_is_refused():
    with pytest.raises(ConfigError, match="top_kk"):
        load_settings(top_kk=3)


def test_an_unknown_key_in_the_toml_file_is_refused_naming_it(tmp_path, monkeypatch):
    toml = tmp_path / "wb.toml"
    toml.write_text('top_k = 5\nchunk_wrods = 100\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(toml))
    with pytest.raises(ConfigError, match=r"chunk_wrods.*wb\.toml"):
        load_settings()


def test_the_toml_file_is_looked_up_when_settings_load_not_at_import(tmp_path, monkeypatch):
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text("top_k = 3\n")
    second.write_text("top_k = 11\n")
    monkeypatch.delenv("WORKBENCH_TOP_K", raising=False)
    monkeypatch.setenv("WORKBENCH_CONFIG", str(first))
    assert load_settings().top_k == 3
    monkeypatch.setenv("WORKBENCH_CONFIG", str(second))
    assert load_settings().top_k == 11


def test_keywords_beat_the_environment_which_beats_the_toml_file(tmp_path, monkeypatch):
    toml = tmp_path / "wb.toml"
    toml.write_text("top_k = 3\nchunk_words = 90\nvector_weight = 0.2\n")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(toml))
    monkeypatch.setenv("WORKBENCH_TOP_K", "4")
    monkeypatch.setenv("WORKBENCH_CHUNK_WORDS", "120")
    s = load_settings(top_k=5)
    assert (s.top_k, s.chunk_words, s.vector_weight) == (5, 120, 0.2)


def test_a_bad_value_is_a_config_error_naming_the_setting(monkeypatch):
    monkeypatch.setenv("WORKBENCH_TOP_K", "many")
    with pytest.raises(ConfigError, match="top_k"):
        load_settings()


def test_the_cli_reports_a_bad_settings_file_in_one_line(tmp_path, monkeypatch, capsys):
    from workbench.cli import main
    from workbench.config import get_settings

    toml = tmp_path / "wb.toml"
    toml.write_text("bakend = 'rules'\n")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(toml))
    get_settings.cache_clear()
    try:
        assert main(["ingest", str(tmp_path / "missing.pdf")]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bakend" in err and err.startswith("workbench: ")


@pytest.mark.parametrize("path", LIBRARY, ids=rel)
def test_only_config_reads_the_environment(path):
    if rel(path) == "workbench/config.py":
        return
    reads = names_used(path) & {"os.environ", "os.getenv", "environ", "getenv"}
    assert not reads, f"{rel(path)} reads the environment ({sorted(reads)}): add a Settings field"


@pytest.mark.parametrize("path", LIBRARY, ids=rel)
def test_only_entry_points_load_the_global_settings(path):
    if rel(path) in ENTRY_POINTS:
        return
    assert "get_settings" not in names_used(path), (
        f"{rel(path)} calls get_settings(): take a Settings argument from the caller instead")


def test_explicit_settings_are_used_all_the_way_down_never_mixed_with_the_environment(tmp_path, monkeypatch, make_pdf):
    """The environment says one thing, the Settings passed in another: the Settings win in the
    store, the retriever, the embedder and the PDF limits."""
    from workbench.service import Workbench

    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "from-env"))
    monkeypatch.setenv("WORKBENCH_EMBED_THREADS", "1")
    monkeypatch.setenv("WORKBENCH_MAX_UPLOAD_MB", "500")
    monkeypatch.setenv("WORKBENCH_CHUNK_WORDS", "999")
    settings = Settings(data_dir=tmp_path / "explicit", embed_threads=3, max_upload_mb=0.0001, chunk_words=77,
                        index_on_ingest=False)
    wb = Workbench(settings)
    assert str(tmp_path / "explicit") in wb.store.url
    assert wb.retriever.settings is settings
    assert wb.retriever.embedder.threads == 3
    assert wb.retriever.store.chunk_words == 77
    assert wb.retriever.store.root == tmp_path / "explicit" / "index"
    with pytest.raises(TooLargeError, match="0.0001 MB limit"):
        wb.ingest(make_pdf(["Some words on a page. " * 20]))
    assert not (tmp_path / "from-env").exists()
