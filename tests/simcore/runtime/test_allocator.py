"""A launch reuses the pages the previous launch freed (glibc's malloc thresholds, set at the first
launch), unless the user tuned malloc himself."""
import json
import os
import subprocess
import sys

import pytest

from simcore.runtime import allocator

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# three launches of an empty kernel at 2^16 threads; the page faults of the last one
PROBE = r"""
import json, resource, numpy as np, simcore
from simcore.runtime import allocator
k = simcore.RawModule(code="__global__ void empty(float *out) { }").get_function("empty")
out = np.zeros(1, np.float32)
before = dict(allocator._state)
for _ in range(2):
    k((256,), (256,), (out,))
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
k((256,), (256,), (out,))
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
print(json.dumps({"before": before, "after": allocator._state, "faults": faults}))
"""


def _probe(**env):
    clean = {k: v for k, v in os.environ.items() if k not in allocator.USER_SETTINGS and k != "GLIBC_TUNABLES"}
    # the checkout first, then whatever path the caller runs with (packages installed with --target)
    clean.update(env, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    out = subprocess.run([sys.executable, "-c", PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=clean, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


glibc_only = pytest.mark.skipif(allocator._glibc() is None, reason="the thresholds are glibc malloc's")


@glibc_only
def test_a_relaunch_touches_no_fresh_pages():
    r = _probe()
    assert r["before"] == {"done": False, "applied": False}       # importing simcore changes nothing
    assert r["after"] == {"done": True, "applied": True}
    # glibc's defaults: ~2,400 faults (65,536 threads' tables, each a fresh mapping); reused: ~0
    assert r["faults"] < 300, r


@glibc_only
def test_the_users_own_malloc_settings_stand():
    r = _probe(MALLOC_TRIM_THRESHOLD_="131072")
    assert r["after"] == {"done": True, "applied": False}


def test_which_environments_count_as_the_users_choice():
    assert not allocator.user_set_malloc({})
    assert not allocator.user_set_malloc({"GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=1"})
    assert allocator.user_set_malloc({"MALLOC_MMAP_THRESHOLD_": "1000000"})
    assert allocator.user_set_malloc({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1"})
