"""No code-bearing format is read from disk or from Redis (issue 37, item 3): whoever can write
the data folder or the queue may plant data, never code. Pickle and its relatives (joblib, dill,
shelve, marshal, torch.load, numpy with allow_pickle) run code while loading, so the library
never uses them; numpy arrays are read with allow_pickle=False spelt out."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = sorted((ROOT / "workbench").rglob("*.py"))
CODE_BEARING = {"pickle", "cPickle", "_pickle", "dill", "cloudpickle", "joblib", "shelve", "marshal", "torch"}


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_no_module_imports_a_code_bearing_serialiser():
    users = {}
    for path in LIBRARY:
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        if names & CODE_BEARING:
            users[rel(path)] = sorted(names & CODE_BEARING)
    assert not users, users


def test_numpy_arrays_are_read_without_pickles():
    calls = []
    for path in LIBRARY:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy"):
                ok = any(k.arg == "allow_pickle" and isinstance(k.value, ast.Constant) and k.value.value is False
                         for k in node.keywords)
                calls.append((rel(path), node.lineno, ok))
    assert calls and all(ok for *_, ok in calls), [c for c in calls if not c[2]]


def test_no_index_is_persisted_through_llama_index_storage():
    """llama-index's storage context persists docstores and index stores the library does not
    check; the workbench keeps its own JSON, npy and FAISS files instead."""
    pattern = re.compile(r"load_index_from_storage|StorageContext\.from_defaults\([^)]*persist_dir|\.persist\(")
    assert not [rel(p) for p in LIBRARY if pattern.search(p.read_text(encoding="utf-8"))]
