"""The shape of the code: no import cycle inside simcore or barrier_course, and no private name
(`_x`) used across a module boundary.

Both rules are read from the source (every `import` statement, at module level or inside a
function, counts: a lazy import that dodges a cycle is still a cycle), so they hold for
modules added later without a list to keep. Nothing is allowed by exception.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent
while not (ROOT / "pyproject.toml").is_file():     # the checkout, however deep this file lies
    ROOT = ROOT.parent
PACKAGES = ("simcore", "barrier_course")


def module_files(package):
    """Dotted module name -> its file, for every module of `package`."""
    files = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


ALL_MODULES = {name: path for package in PACKAGES for name, path in module_files(package).items()}


def is_private(name):
    return name.startswith("_") and not name.startswith("__")


def imported_from(module, path, node):
    """The absolute module a `from ... import` statement of `module` reads from."""
    if not node.level:
        return node.module
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def is_main_guard(node):
    """`if __name__ == "__main__":` -- its body runs only when the file is the program itself,
    never when the module is imported, so its imports cannot make an import cycle."""
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def walk_imported_code(tree):
    """ast.walk, leaving out the bodies of `if __name__ == "__main__":` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if not is_main_guard(node):
            stack.extend(ast.iter_child_nodes(node))


def imports_of(module, path):
    """(the module imported, names taken from it, the line) for every import statement that
    runs when the module is imported."""
    for node in walk_imported_code(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            source = imported_from(module, path, node)
            for alias in node.names:
                yield source, alias, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno


def packages_run_by_importing(module, source):
    """The packages whose `__init__` Python runs when `module` imports `source`: every package
    above `source` that is not also above `module` (those are already imported, or being
    imported, before `module` runs). `from simcore.checks.base import Plugin` in
    simcore/recording/trace_recorder.py runs simcore/checks/__init__.py: an import, and a
    possible cycle, that the statement does not spell."""
    own = module.split(".")
    parts = source.split(".")
    found = []
    for depth in range(1, len(parts)):
        package = ".".join(parts[:depth])
        if parts[:depth] != own[:depth]:
            found.append(package)
    return found


def import_graph(package):
    """module -> the modules of the same package it imports (a name that is a submodule
    counts as that submodule; a package whose `__init__` the import runs counts too)."""
    modules = module_files(package)
    graph = {name: set() for name in modules}
    for module, path in modules.items():
        for source, alias, _ in imports_of(module, path):
            if alias is not None and f"{source}.{alias.name}" in modules:
                source = f"{source}.{alias.name}"
            for imported in [source, *packages_run_by_importing(module, source)]:
                if imported in modules and imported != module:
                    graph[module].add(imported)
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def private_imports(module, path):
    """'module:line takes _name from other' for every `from other import _name` and every
    `other._name` read through a module bound by an import."""
    found, module_aliases = [], {}
    for source, alias, line in imports_of(module, path):
        if alias is None:
            if source in ALL_MODULES:
                module_aliases[source.split(".")[0]] = None       # `import simcore.x`: read as a dotted path
            continue
        full = f"{source}.{alias.name}"
        if full in ALL_MODULES:
            module_aliases[alias.asname or alias.name] = full
        elif source in ALL_MODULES and source != module and is_private(alias.name):
            found.append(f"{module}:{line} takes {alias.name} from {source}")
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            owner = dotted(node.value)
            target = module_aliases.get(owner) if owner in module_aliases else owner
            if target in ALL_MODULES and target != module:
                found.append(f"{module}:{node.lineno} takes {node.attr} from {target}")
    return found


def dotted(node):
    """`a.b.c` as text, or None for anything that is not a dotted name."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id] + names[::-1])


def test_simcore_has_no_import_cycle():
    found = cycles(import_graph("simcore"))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_barrier_course_has_no_import_cycle():
    found = cycles(import_graph("barrier_course"))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_no_module_of_simcore_or_barrier_course_uses_another_modules_private_name():
    offenders = [f for module, path in sorted(ALL_MODULES.items()) for f in private_imports(module, path)]
    assert not offenders, "private names used across modules:\n" + "\n".join(offenders)


def test_the_cycle_finder_finds_a_cycle_through_three_modules_and_none_in_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_private_name_finder_sees_from_imports_and_attribute_reads(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("from simcore.module import RawModule, _hidden\n"
                    "from simcore import module\n"
                    "def f():\n"
                    "    return module._hidden, module.__name__\n")
    assert private_imports("simcore.probe", path) == [
        "simcore.probe:1 takes _hidden from simcore.module",
        "simcore.probe:4 takes _hidden from simcore.module"]


def test_an_import_of_a_submodule_counts_as_an_import_of_the_packages_it_runs():
    # trace_recorder's `from ..checks.base import Plugin` runs simcore/checks/__init__.py; once
    # that imported the recorders back, `import simcore.recording.trace_recorder` failed when it
    # was a process's first import (a half-made module), while the statement-only graph had no cycle.
    assert packages_run_by_importing("simcore.recording.trace_recorder", "simcore.checks.base") == ["simcore.checks"]
    # its own packages are already running when a module runs: no edge to them
    assert packages_run_by_importing("simcore.checks.races", "simcore.checks.base") == []
    assert packages_run_by_importing("simcore.perf.model", "simcore.runtime.sync.barriers") == [
        "simcore.runtime", "simcore.runtime.sync"]


def test_every_module_imports_first_in_a_fresh_interpreter():
    """What a user (or one test file run alone) does: import one module before anything else of
    the project. Each module is imported after every project module is dropped from
    sys.modules, in one child process (third-party modules stay loaded: they are not ours)."""
    import subprocess
    import sys

    script = (
        "import importlib, sys, traceback\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] in ('simcore', 'barrier_course')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as err:\n"
        "        failed.append(f'{name}: {type(err).__name__}: {err}')\n"
        "print('\\n'.join(failed))\n")
    done = subprocess.run([sys.executable, "-c", script, *sorted(ALL_MODULES)], cwd=ROOT, text=True,
                          capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "", "modules that fail as a first import:\n" + done.stdout
