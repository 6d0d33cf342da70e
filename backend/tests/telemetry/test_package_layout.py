"""The telemetry modules split by responsibility (``test_module_size``) stay packages whose modules each say what
they hold, import one another without cycles and never through their own package's ``__init__`` (which
re-exports every public class and function, so that ``from liftdesk.telemetry.commands import X`` keeps
working)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

#: Packages made of one former module; their ``__init__`` re-exports the public names of their modules.
SPLIT = (
    "liftdesk.telemetry.commands",
    "liftdesk.telemetry.pipeline",
    "liftdesk.telemetry.simulator.model",
    "liftdesk.telemetry.simulator.fleet",
    "liftdesk.telemetry.codecs.jt808.platform",
)
#: Packages whose modules import one another (the gateway's session is built in layers next to its server).
PACKAGES = (*SPLIT, "liftdesk.telemetry.gateway")


def modules_of(package: str) -> dict[str, Path]:
    """The Python modules of ``package`` (a compiled one, ``_speedups`` built from its ``.pyx``, has no source here)."""
    pkg = importlib.import_module(package)
    found = {
        f"{package}.{info.name}": Path(pkg.__path__[0]) / f"{info.name}.py"
        for info in pkgutil.iter_modules(pkg.__path__)
        if not info.ispkg
    }
    return {name: path for name, path in found.items() if path.exists() or not path.with_suffix(".pyx").exists()}


def _type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(path: Path, module: str) -> set[str]:
    """Modules ``path`` imports when it runs (relative imports resolved; ``if TYPE_CHECKING:`` blocks skipped),
    at the top or inside functions. ``from package import name`` counts as importing ``package``."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if _type_checking(node):
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level]
                out.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_its_own_package(package: str) -> None:
    found = {m: package for m, path in modules_of(package).items() if package in runtime_imports(path, m)}
    assert not found, f"import the sibling module, not the package __init__: {found}"


@pytest.mark.parametrize("package", PACKAGES)
def test_the_modules_of_a_package_import_one_another_without_cycles(package: str) -> None:
    modules = modules_of(package)
    graph = {m: runtime_imports(path, m) & set(modules) for m, path in modules.items()}
    done: set[str] = set()

    def walk(m: str, path: tuple[str, ...]) -> None:
        assert m not in path, f"import cycle: {' → '.join((*path[path.index(m) :], m))}"
        if m in done:
            return
        for n in sorted(graph[m]):
            walk(n, (*path, m))
        done.add(m)

    for m in sorted(graph):
        walk(m, ())


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_says_what_it_holds(package: str) -> None:
    bare = [m for m, path in modules_of(package).items() if not ast.get_docstring(ast.parse(path.read_text()))]
    assert not bare, f"modules without a docstring: {bare}"


@pytest.mark.parametrize("package", SPLIT)
def test_the_package_re_exports_every_public_class_and_function(package: str) -> None:
    pkg: ModuleType = importlib.import_module(package)
    exported = set(pkg.__all__)
    assert all(hasattr(pkg, name) for name in exported)
    missing = {
        f"{m}.{node.name}"
        for m, path in modules_of(package).items()
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and not node.name.startswith("_")
        and node.name not in exported
    }
    assert not missing, f"not re-exported by {package}: {sorted(missing)}"


def test_the_names_other_modules_import_are_where_they_were() -> None:
    from liftdesk.telemetry import commands, pipeline
    from liftdesk.telemetry.gateway import server
    from liftdesk.telemetry.simulator import fleet, model

    for module, names in (
        (commands, ("CommandService", "OutboundCommand", "build_body", "validate", "COMMAND_NAMES", "PENDING")),
        (commands, ("SWITCHES_ALL", "SWITCHES_PID", "UnknownParameter", "switch_bits", "url_upgrade_payload")),
        (pipeline, ("Pipeline", "Batch", "VehicleCtx", "PositionRow", "OpenAlarm", "LIVE_TOPIC", "live_view")),
        (pipeline, ("CLOCK_AHEAD", "TERMINAL_CLOCK", "TENANT_THRESHOLDS")),
        (server, ("Gateway", "GatewayStats", "Session", "DAY_S")),
        (fleet, ("Fleet", "ForkliftStats", "SimClock", "SimulatedForklift", "run_fleet", "HARDWARE_VERSION")),
        (model, ("ForkliftModel", "ReportSchedule")),
    ):
        assert not [n for n in names if not hasattr(module, n)], module.__name__
