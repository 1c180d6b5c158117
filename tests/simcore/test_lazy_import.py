"""`import simcore` is cheap because the package imports its parts on first use: the import loads
no compiler, engine, timing model or GPU backend, and every public name still resolves."""
import subprocess
import sys

import simcore

HEAVY_PARTS = ["simcore.module", "simcore.runtime.engine", "simcore.runtime.runner", "simcore.frontend.compiler", "simcore.perf",
               "simcore.recording.trace", "simcore.cupy_backend", "pycparser", "numpy"]


def modules_loaded_by(statement):
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_importing_simcore_loads_none_of_its_heavy_parts():
    loaded = modules_loaded_by("import simcore")
    assert not loaded & set(HEAVY_PARTS), sorted(loaded & set(HEAVY_PARTS))


def test_importing_rawmodule_leaves_the_timing_model_and_the_gpu_backend_unloaded():
    # (the launch rules read the check names from the plugin registry, which names the
    # step-through recorder, so the recordings' modules load with RawModule)
    loaded = modules_loaded_by("from simcore import RawModule")
    assert "simcore.module" in loaded
    assert not loaded & {"simcore.perf", "simcore.cupy_backend"}


def test_every_public_name_resolves_lazily():
    for name in simcore.__all__:
        assert getattr(simcore, name) is not None, name
    assert set(simcore.__all__) <= set(dir(simcore))


def test_submodules_are_reachable_as_attributes_as_before():
    assert simcore.runtime.engine.Engine is not None and simcore.module.Launch is simcore.Launch


def test_an_unknown_name_is_an_attribute_error_naming_it():
    try:
        simcore.no_such_thing
    except AttributeError as error:
        assert "no_such_thing" in str(error)
    else:
        raise AssertionError("simcore.no_such_thing resolved")
