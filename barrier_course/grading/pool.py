"""Grade many answers of an exercise with warm interpreters: imports and setup paid once.

:func:`barrier_course.grading.autograde.score_answer` starts a fresh limited interpreter per answer,
which then imports numpy and the simulator and runs the exercise's setup cells before it
grades anything; for a wrong answer that is most of its cost. A :class:`GradingPool` keeps,
per worker thread and per exercise, one :class:`WarmInterpreter`: a limited interpreter
started the same way (``python -I -B``, a read-only copy of the packages, the same
environment) that runs the imports and the setup cells before the first answer cell once,
then forks one process per answer (``autograde_runner.main_serve``). Each answer process
sets the same limits on itself (its CPU time starts at zero at the fork), runs the trusted
cells after the setup in its own copy of the setup's namespace, and exits; the grader kills
its process group at the wall-clock limit. So every answer is graded alone, under its own
limits, by the same trusted cells: the scores are those of :func:`score_answer`.

Where ``fork`` is missing (not POSIX) or CuPy may run (a CUDA context must not be shared by
forked processes), and whenever a warm interpreter cannot serve an answer (it died, its
setup misbehaved), the answer is graded by :func:`score_answer` instead.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .autograde import (AnswerScore, Limits, TrustedProgram, answer_refusal, collect_score,
                        copy_packages, grading_environment, interpreter_limits,
                        gpu_possible, make_writable, refused_score, runner_settings,
                        score_answer, trusted_program)

__all__ = ["GradingPool", "WarmInterpreter", "score_answers", "warm_grading_possible"]

_SERVE_BOOT = ("import json,sys;job=json.load(open(sys.argv[1],encoding='utf-8'));"
               "sys.path[:0]=job['paths'];"
               "from barrier_course.grading.autograde_runner import main;main(job)")


def warm_grading_possible() -> bool:
    """Can answers be forked from a warm interpreter here (POSIX, and no GPU runs)?"""
    return hasattr(os, "fork") and os.name == "posix" and not gpu_possible()


class WarmInterpreterGone(RuntimeError):
    """The warm interpreter cannot grade (it exited, or answered out of turn)."""


class WarmInterpreter:
    """One limited interpreter for one exercise that forks a process per answer."""

    def __init__(self, program: TrustedProgram, limits: Limits):
        self.program, self.limits = program, limits
        self._tmp = tempfile.TemporaryDirectory(prefix="barrier-warm-")
        self.work = Path(self._tmp.name)
        self._count = 0
        job = {"serve": True, "paths": [copy_packages(self.work / "packages")],
               "steps": program.step_records(), "log": str(self.work / "server.log"),
               **runner_settings(limits)}
        job_path = self.work / "job.json"
        job_path.write_text(json.dumps(job), encoding="utf-8")
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _SERVE_BOOT, str(job_path)], cwd=self.work,
            env=grading_environment(str(self.work)), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            preexec_fn=interpreter_limits(limits, False), start_new_session=True)
        self._replies, self._pending = self.proc.stdout.fileno(), b""
        try:
            ready = self._reply(limits.wall_s)
        except (TimeoutError, WarmInterpreterGone, ValueError):
            self.close()        # never ready: the caller grades in a fresh interpreter
            raise WarmInterpreterGone("the warm interpreter did not start") from None
        self.setup_error = ready.get("setup_error")

    def _reply(self, timeout: float) -> dict:
        """The server's next reply line, read straight from the pipe (a buffered reader could
        hold a second line where ``select`` no longer sees it)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            ready, _, _ = select.select([self._replies], [], [], max(deadline - time.monotonic(), 0.0))
            if not ready:
                raise TimeoutError
            chunk = os.read(self._replies, 65536)
            if not chunk:
                raise WarmInterpreterGone("the warm interpreter exited")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return json.loads(line)

    def score(self, answers: dict, *, until_first_failure: bool = False) -> AnswerScore:
        """Grade one answer (already checked by :func:`answer_refusal`) in a forked process
        (``until_first_failure``: see :func:`score_answers`)."""
        start = time.monotonic()
        if self.setup_error:
            done = {"cells": [], "setup_error": self.setup_error}
            return collect_score(self.program, done, 0, False, "", self.limits, 0.0)
        self._count += 1
        result_path = self.work / f"result{self._count}.json"
        log_path = self.work / f"answer{self._count}.log"
        request = {"answers": answers, "result": str(result_path), "log": str(log_path),
                   "until_first_failure": bool(until_first_failure),
                   "limits": {"cpu_s": self.limits.cpu_s, "memory_mb": self.limits.memory_mb,
                              "file_bytes": self.limits.file_bytes, "gpu_possible": False}}
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
            pid = self._reply(self.limits.wall_s)["pid"]
        except (OSError, ValueError, KeyError, TimeoutError) as exc:
            raise WarmInterpreterGone(str(exc)) from None
        timed_out, status = self._wait(pid, start)
        done = _read_json(result_path)
        tail = _tail(log_path, 2000)
        for path in (result_path, log_path):
            path.unlink(missing_ok=True)
        return collect_score(self.program, done, status, timed_out, tail, self.limits,
                             time.monotonic() - start)

    def _wait(self, pid: int, start: float) -> tuple:
        """(timed out, exit status) of the answer process, killed at the wall-clock limit."""
        try:
            left = self.limits.wall_s - (time.monotonic() - start)
            return False, self._reply(left)["status"]
        except TimeoutError:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                return True, self._reply(60.0)["status"]
            except (TimeoutError, KeyError, ValueError) as exc:
                raise WarmInterpreterGone(str(exc)) from None
        except (KeyError, ValueError) as exc:
            raise WarmInterpreterGone(str(exc)) from None

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
        self.proc.stdout.close()
        make_writable(self.work / "packages")
        self._tmp.cleanup()


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _tail(path: Path, n: int) -> str:
    try:
        return path.read_bytes()[-n:].decode("utf-8", "replace")
    except OSError:
        return ""


class GradingPool:
    """Scores answers like :func:`score_answer`, reusing one warm interpreter per exercise
    and thread. Use as a context manager (the interpreters are closed at the end); safe to
    call :meth:`score` from several threads at once."""

    def __init__(self, limits: Limits | None = None, *, warm: bool | None = None):
        self.limits = limits or Limits()
        self.warm = warm_grading_possible() if warm is None else bool(warm)
        self._local = threading.local()
        self._all: list = []
        self._lock = threading.Lock()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def interpreters(self) -> list:
        """The warm interpreters running now (every thread's)."""
        with self._lock:
            return list(self._all)

    def score(self, instructor_nb, answers, *, until_first_failure: bool = False) -> AnswerScore:
        """The score of one answer (a string, or ``{variable: string}``) of the exercise whose
        instructor notebook (path or parsed JSON) is ``instructor_nb``
        (``until_first_failure``: see :func:`score_answers`)."""
        program = trusted_program(instructor_nb)
        answers = program.answer_dict(answers)
        refusal = answer_refusal(answers, self.limits)
        if refusal:
            return refused_score(program, *refusal)
        if self.warm:
            try:
                return self._interpreter(program).score(answers, until_first_failure=until_first_failure)
            except (WarmInterpreterGone, TimeoutError, OSError):
                self._drop(program)
        return score_answer(instructor_nb, answers, limits=self.limits)

    def _interpreter(self, program: TrustedProgram) -> WarmInterpreter:
        mine = self._local.__dict__.setdefault("interpreters", {})
        key = program.digest()
        if key not in mine:
            interpreter = WarmInterpreter(program, self.limits)
            mine[key] = interpreter
            with self._lock:
                self._all.append(interpreter)
        return mine[key]

    def _drop(self, program: TrustedProgram) -> None:
        interpreter = self._local.__dict__.get("interpreters", {}).pop(program.digest(), None)
        if interpreter is not None:
            with self._lock:
                self._all.remove(interpreter)
            interpreter.close()

    def close(self) -> None:
        with self._lock:
            interpreters, self._all = self._all, []
        for interpreter in interpreters:
            interpreter.close()


def score_answers(notebook_path, sources, *, limits: Limits | None = None,
                  until_first_failure: bool = False) -> list:
    """Grade several answers of one exercise (the course's tests, the audit): the scores of
    :func:`score_answer` on each, in order. Each answer runs alone in a process forked from one
    warm interpreter, under the limits of one answer, as a class is graded, so a hung or
    crashing answer costs only its own points and no answer sees another's namespace; where
    warm grading is not possible (no fork, a GPU), each is graded by :func:`score_answer`.

    ``until_first_failure`` (for :mod:`barrier_course.grading.audit`, which only asks "full
    marks or not?"): on the warm interpreter an answer stops at its first failing grade cell
    and the cells after it score 0 with "This test did not run."; the answers graded by
    :func:`score_answer` run every cell (the same verdict). Never for real grading.
    """
    with GradingPool(limits) as pool:
        return [pool.score(notebook_path, source, until_first_failure=until_first_failure)
                for source in sources]
