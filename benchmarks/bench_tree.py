"""A simcore source tree run in its own Python process, for `python -m simcore.bench --baseline DIR`.

The benchmark runs two trees side by side (an older one, DIR, and the current one) through the
same harness: each in a worker process started with PYTHONPATH=<tree>, which imports `simcore`
from that tree only (the other tree, and an editable install of the project, are made
unimportable there, and the worker checks that `simcore.__file__` lies under the tree). The parent
sends one launch at a time (kernel source, grid, block, arguments saved to a file) and gets back
the time and the output (saved to a file), which it checks itself against its own numpy reference,
so both trees' outputs are checked by the same code against the same reference.

An older tree may not accept every launch option: the worker passes `max_steps` only when the
kernel's __call__ names it.
"""
import json
import os
import pickle
import select
import shutil
import subprocess
import sys
import tempfile

import numpy as np


class TreeError(Exception):
    """The tree cannot be used: no simcore there, it fails to import, or its process died."""


# Run first in every worker: import simcore from argv[1] and from nowhere else, or say why not
# (one JSON line on the protocol stream) and exit.
ISOLATE = r"""
import importlib.machinery, json, os, sys
root = os.path.realpath(sys.argv[1])
other = os.path.realpath(sys.argv[2])
proto = os.fdopen(os.dup(1), "w")
sys.stdout = sys.stderr                 # whatever simcore prints must not corrupt the protocol
def say(obj):
    proto.write(json.dumps(obj) + "\n")
    proto.flush()
def under(path, d):
    return bool(path) and os.path.realpath(path).startswith(d + os.sep)
if other != root:                       # the tree the benchmark itself runs from: not importable here
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != other]
for finder in list(sys.meta_path):      # e.g. an editable install's finder, which maps simcore elsewhere
    if finder is importlib.machinery.PathFinder or not hasattr(finder, "find_spec"):
        continue
    try:
        spec = finder.find_spec("simcore", None)
    except Exception:
        spec = None
    if spec is not None and not under(spec.origin, root):
        sys.meta_path.remove(finder)
if importlib.machinery.PathFinder.find_spec("simcore", [root]) is None:
    say({"error": "no simcore package there (expected " + os.path.join(root, "simcore", "__init__.py") + ")"})
    sys.exit(1)
try:
    import numpy as np
    import simcore
except BaseException as e:
    say({"error": "importing simcore from it failed: %s: %s" % (type(e).__name__, e)})
    sys.exit(1)
if not under(simcore.__file__, root):
    say({"error": "simcore was imported from %s, not from under it" % simcore.__file__})
    sys.exit(1)
"""

WORKER_SCRIPT = ISOLATE + r"""
import inspect, pickle, time, warnings
say({"simcore": simcore.__file__, "version": getattr(simcore, "__version__", "?")})
modules, templates = {}, {}
for line in sys.stdin:
    req = json.loads(line)
    try:
        key = (req["source"], tuple(req["options"]))
        if key not in modules:
            modules[key] = simcore.RawModule(code=req["source"], options=tuple(req["options"]))
        kern = modules[key].get_function(req["kernel"])
        if req["args"] not in templates:
            with open(req["args"], "rb") as f:
                templates[req["args"]] = pickle.load(f)
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in templates[req["args"]]]
        accepted = inspect.signature(kern.__call__).parameters
        opts = {"checks": req["checks"]}
        if "max_steps" in accepted:
            opts["max_steps"] = req["max_steps"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0, c0 = time.perf_counter(), time.process_time()
            kern(tuple(req["grid"]), tuple(req["block"]), args, **opts)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        np.save(req["out"], np.asarray(args[req["out_index"]]))
        launch = getattr(kern, "last_launch", None)
        say({"seconds": seconds, "cpu": cpu, "options": sorted(opts),
             "thread_instructions": getattr(launch, "thread_instructions", None)})
    except Exception as e:
        say({"error": "%s: %s" % (type(e).__name__, str(e)[:500])})
"""

# RSS after each launch of one kernel, in a fresh process with the cyclic GC off. stdin: a JSON
# object {"source", "options", "kernel", "n", "launches"} (the kernel: out[n/256], in[n], blocks of 256).
MEMORY_SCRIPT = ISOLATE + r"""
import gc
req = json.loads(sys.stdin.read())
k = simcore.RawModule(code=req["source"], options=tuple(req["options"])).get_function(req["kernel"])
n = req["n"]
x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
out = np.zeros(n // 256, np.float32)
page = os.sysconf("SC_PAGE_SIZE")
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page
gc.disable()
sizes = []
for _ in range(req["launches"]):
    k((n // 256,), (256,), (out, x))
    sizes.append(rss())
say({"rss_bytes": sizes})
"""


def this_tree():
    """The source tree this module was imported from (the directory that holds simcore/)."""
    return os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tree_label(root):
    """'85ffb5f' (the commit, '+ uncommitted changes' when the tree differs from it) or the path."""
    try:
        commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, timeout=30)
        if commit.returncode == 0 and commit.stdout.strip():
            dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", "simcore"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=30)
            return commit.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return root


def _env(root):
    env = dict(os.environ, PYTHONPATH=root)
    env.pop("PYTHONSTARTUP", None)
    return env


class TreeProcess:
    """simcore from `root`, in a worker process (started on the first launch, restarted after a
    launch is stopped for running over its time limit)."""

    def __init__(self, root, name):
        self.root, self.name = os.path.realpath(root), name
        self.label = tree_label(self.root)
        self.tmp = tempfile.mkdtemp(prefix="simcore-bench-")
        self.proc = None
        self.info = None
        self.warm = set()       # (kernel, checks) launched once in the running process (the untimed first launch)
        self._args = {}

    def _fail(self, what):
        return TreeError(f"{self.name} {self.root}: {what}")

    def start(self):
        if self.proc is not None:
            return self.info
        if not os.path.isdir(self.root):
            raise self._fail("no such directory")
        self._err = open(os.path.join(self.tmp, "stderr.txt"), "w+")
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER_SCRIPT, self.root, this_tree()],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, text=True,
                                     cwd=self.tmp, env=_env(self.root))
        hello = self._read(timeout=300)
        if hello is None or "error" in hello:
            self.stop()
            raise self._fail(hello["error"] if hello else "the worker did not start")
        self.info = hello
        return hello

    def _read(self, timeout):
        """The worker's next JSON line; None when it did not answer within `timeout` seconds."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self._err.seek(0)
            tail = self._err.read()[-800:].strip()
            self.proc = None
            self.warm = set()
            raise self._fail(f"the worker process died{': ' + tail if tail else ''}")
        return json.loads(line)

    def stop(self):
        if self.proc is not None:
            self.proc.kill()                # our own child, by its handle
            self.proc.wait()
            self.proc = None
        self.warm = set()

    def close(self):
        self.stop()
        if getattr(self, "_err", None) is not None:
            self._err.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def args_file(self, key, make_args):
        if key not in self._args:
            path = os.path.join(self.tmp, f"args{len(self._args)}.pkl")
            with open(path, "wb") as f:
                pickle.dump(make_args(), f)
            self._args[key] = path
        return self._args[key]

    def launch(self, source, options, kernel, grid, block, args_file, out_index, checks, timeout, max_steps=10 ** 8):
        """-> {'seconds', 'cpu', 'thread_instructions', 'output'} or {'error': text} (a fault, or
        'over the time limit' after `timeout` seconds, the worker then stopped)."""
        self.start()
        out = os.path.join(self.tmp, "out.npy")
        req = {"source": source, "options": list(options), "kernel": kernel, "grid": list(grid), "block": list(block),
               "args": args_file, "out_index": out_index, "checks": checks, "max_steps": max_steps, "out": out}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        reply = self._read(timeout)
        if reply is None:
            self.stop()
            return {"error": f"over the time limit ({timeout:.0f} s); stopped"}
        if "error" not in reply:
            reply["output"] = np.load(out)
        return reply


def memory_over_launches(root, source, options, kernel, n, launches, timeout=1800):
    """RSS (bytes) after each of `launches` launches, simcore from `root`, in a fresh process with
    the cyclic GC off; None without /proc. Raises TreeError when the tree cannot run it."""
    if not os.path.exists("/proc/self/statm"):
        return None
    root = os.path.realpath(root)
    req = json.dumps({"source": source, "options": list(options), "kernel": kernel, "n": n, "launches": launches})
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, root, this_tree()], input=req,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                              cwd=tmp, env=_env(root))
    lines = proc.stdout.strip().splitlines()
    reply = json.loads(lines[-1]) if lines else {"error": proc.stderr[-800:].strip() or "no output"}
    if "error" in reply:
        raise TreeError(f"{root}: {reply['error']}")
    return reply["rss_bytes"]
