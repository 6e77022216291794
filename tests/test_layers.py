"""The layers as the design notes state them: pages call the service (plus the shared
vocabulary and the UI helpers); only workbench/ui imports streamlit; only workbench/pdf draws
PDFs; imports point down."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py")])
LIBRARY = sorted((ROOT / "workbench").rglob("*.py"))


def imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports included)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_pages_reach_the_library_through_the_service_only(page):
    allowed = ("workbench.service", "workbench.models", "workbench.errors", "workbench.ui")
    wrong = {m for m in imports(page) if m.startswith("workbench") and m != "workbench"
             and not m.startswith(allowed)}
    assert not wrong, f"{rel(page)} imports {sorted(wrong)}: add a service function instead"


def test_only_the_ui_package_imports_streamlit():
    users = [rel(p) for p in LIBRARY if any(m.split(".")[0] == "streamlit" for m in imports(p))]
    assert all(u.startswith("workbench/ui/") for u in users), users


def test_only_the_pdf_layer_and_the_annotated_pdf_export_use_pymupdf():
    users = {rel(p) for p in LIBRARY if any(m.split(".")[0] in ("pymupdf", "fitz") for m in imports(p))}
    assert {u for u in users if not u.startswith("workbench/pdf/")} <= {"workbench/export/annotated_pdf.py"}, users


# Leaf modules any layer may use: the embedding model (text -> vectors; it imports only config and
# errors) is shared by the index and by the judges, never the index's storage or retrieval.
SHARED_LEAVES = ("workbench.index.embed",)


def test_the_shared_leaves_stay_leaves():
    for leaf in SHARED_LEAVES:
        path = ROOT / (leaf.replace(".", "/") + ".py")
        deps = {m for m in imports(path) if m.startswith("workbench.")}
        assert all(m.startswith(("workbench.config", "workbench.errors")) for m in deps), (leaf, sorted(deps))


@pytest.mark.parametrize(("package", "below"), [
    ("workbench/index", ("workbench.backends", "workbench.pipeline", "workbench.service", "workbench.ui")),
    ("workbench/backends", ("workbench.pipeline", "workbench.service", "workbench.ui", "workbench.index")),
    ("workbench/pdf", ("workbench.backends", "workbench.pipeline", "workbench.index", "workbench.service",
                       "workbench.ui")),
    # how a quote or claim is judged is the same for every backend: it knows none of them
    ("workbench/judgment", ("workbench.backends", "workbench.pipeline", "workbench.service", "workbench.ui",
                            "workbench.jobs", "workbench.store", "workbench.pdf")),
])
def test_imports_point_down(package, below):
    wrong = {rel(p): sorted(m for m in imports(p) if m.startswith(below) and not m.startswith(SHARED_LEAVES))
             for p in LIBRARY if rel(p).startswith(package + "/")}
    assert not {k: v for k, v in wrong.items() if v}


def _imports_at_run_time(path: Path) -> set[str]:
    """The workbench modules a file imports when it runs (lazy imports included), leaving out
    those under `if TYPE_CHECKING:`, which only the type checker reads."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING"
                   for n in ast.walk(node)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module.startswith("workbench"):
            out |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("workbench")}
    return out


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_two_packages_import_each_other():
    """Every package of workbench/ points one way: a cycle (jobs <-> service, config <-> judgment)
    makes the layers a tangle that no picture in the design notes describes."""
    edges = {(_package(_module(p)), _package(m)) for p in LIBRARY for m in _imports_at_run_time(p)}
    cycles = sorted((a, b) for a, b in edges if a < b and (b, a) in edges)
    assert not cycles, cycles


def test_no_two_modules_import_each_other():
    """Within a package too (pdf.document <-> pdf.segment was one). `from pkg import mod` imports
    the module, not the package's own code; a package and its submodules are not a cycle."""
    modules = {_module(p): p for p in LIBRARY}

    def targets(path: Path) -> set[str]:
        names = _imports_at_run_time(path)
        return {m for m in names if m in modules and not any(n.startswith(m + ".") and n in modules for n in names)}

    edges = {(_module(p), m) for p in LIBRARY for m in targets(p)}
    cycles = sorted((a, b) for a, b in edges if a < b and (b, a) in edges
                    and not b.startswith(a + ".") and not a.startswith(b + "."))
    assert not cycles, cycles
