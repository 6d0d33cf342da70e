"""How the packages may depend on each other: ``core`` is the machinery and imports no context (it reads roles,
scopes and organisations through the ``core.access`` port the system context installs)."""

from __future__ import annotations

import ast
from pathlib import Path

import liftdesk

ROOT = Path(liftdesk.__file__).parent
CONTEXTS = ("system", "fleet", "telemetry", "reporting")


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside functions (TYPE_CHECKING imports included)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_core_imports_no_context() -> None:
    found = {
        f"{path.name}: {module}"
        for path in (ROOT / "core").glob("*.py")
        for module in imports_of(path)
        if module.split(".")[:2] in (["liftdesk", c] for c in CONTEXTS)
    }
    assert not found, f"core imports a context: {sorted(found)}"


def test_the_scan_sees_imports_inside_functions(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    from liftdesk.system.models import Dept\n    import liftdesk.fleet\n")
    assert imports_of(sample) == {"liftdesk.system.models", "liftdesk.fleet"}


#: Which context may import which: a context downstream reacts to one upstream through its events
#: (``core.events``), never the other way round, so no two contexts import each other.
UPSTREAM: dict[str, frozenset[str]] = {
    "system": frozenset(),
    "fleet": frozenset({"system"}),
    "telemetry": frozenset({"system", "fleet"}),
    "reporting": frozenset({"system", "fleet", "telemetry"}),
}


def test_contexts_import_only_what_is_upstream() -> None:
    found = sorted(
        f"{path.relative_to(ROOT).as_posix()}: {module}"
        for context, allowed in UPSTREAM.items()
        for path in (ROOT / context).rglob("*.py")
        for module in imports_of(path)
        if module.split(".")[:1] == ["liftdesk"]
        and len(module.split(".")) > 1
        and module.split(".")[1] in UPSTREAM
        and module.split(".")[1] not in allowed | {context}
    )
    assert not found, f"a context imports one downstream of it: {found}"


def _function_imports(path: Path) -> set[str]:
    """Modules of the app a file imports inside its functions."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("liftdesk"):
                    out.add(f"{node.name}: {inner.module}")
                elif isinstance(inner, ast.Import):
                    out.update(f"{node.name}: {a.name}" for a in inner.names if a.name.startswith("liftdesk"))
    return out


def test_core_needs_no_import_inside_a_function() -> None:
    """The core's modules import each other at their top: the types they share (``Resource``, ``Action``, ``Ctx``)
    are in leaf modules, so no import has to hide in a function to break a cycle."""
    found = {f"{p.name}: {i}" for p in (ROOT / "core").glob("*.py") for i in _function_imports(p)}
    assert not found, sorted(found)


def test_the_registry_is_built_explicitly_not_by_importing() -> None:
    """Importing every context registers nothing: the app builds the registry from the contexts it names
    (``liftdesk.app.build_registry``), in a fresh interpreter so that no other test has built it already."""
    import subprocess
    import sys

    script = (
        "import liftdesk.fleet.context, liftdesk.system.context, liftdesk.telemetry.context, "
        "liftdesk.reporting.context\n"
        "from liftdesk.core.registry import REGISTRY\n"
        "from liftdesk.core import events\n"
        "assert len(REGISTRY) == 0 and not REGISTRY.actions and not events._HANDLERS, 'registered by import'\n"
        "from liftdesk.app import build_registry\n"
        "registry = build_registry()\n"
        "assert len(registry) > 40 and registry.frozen and events._HANDLERS\n"
        "assert build_registry() is registry\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
