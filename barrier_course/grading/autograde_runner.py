"""The grading interpreter's side of :mod:`barrier_course.grading.autograde` (runs in the child).

It receives trusted cells only (the instructor's setup and grade cells) and the answer
strings, runs them in one namespace in notebook order, and writes each grade cell's result
to the result file after the cell (so that a limit hit later keeps what was done). No
student Python ever reaches this process: the answers are data, bound to their names.

Two shapes of job: one answer (:func:`main`), and a warm interpreter that forks one limited
process per answer (:func:`main_serve`, driven by :mod:`barrier_course.grading.pool`).
"""

from __future__ import annotations

import ast
import io
import json
import os
import sys
import time
import traceback
import warnings

CUT_NOTE = "\n[... output cut: the cell printed {total} characters, the grader keeps {limit}]\n"
LINES_NOTE = "\n[... output cut: the cell printed {total} lines, the grader keeps {limit}]\n"


class _CappedText(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int, max_lines: int = 10**9):
        self.limit = limit
        self.max_lines = max_lines
        self.parts: list = []
        self.kept = 0
        self.total = 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        self.total += len(s)
        room = self.limit - self.kept
        if room > 0:
            piece = s[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(s)

    def text(self) -> str:
        out = "".join(self.parts)
        lines = out.split("\n")
        if len(lines) > self.max_lines + 1:
            out = "\n".join(lines[: self.max_lines])
            if self.total > self.kept:
                out += CUT_NOTE.format(total=self.total, limit=self.limit)
            else:
                out += LINES_NOTE.format(total=len(lines) - 1, limit=self.max_lines)
        elif self.total > self.kept:
            out += CUT_NOTE.format(total=self.total, limit=self.limit)
        return out


def _strip_magics(source: str) -> str:
    """Trusted cells may hold IPython magics (`%matplotlib`); plain Python has none."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.split("\n"))


def _run_cell(source: str, namespace: dict, filename: str):
    """exec the cell; evaluate a final expression like a notebook does and return its value."""
    tree = ast.parse(_strip_magics(source), filename=filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        return eval(compile(last, filename, "eval"), namespace)
    return None


def _message(exc: BaseException) -> str:
    text = str(exc)
    if not text and exc.args:
        text = repr(exc.args[0])
    return text


def _partial(value, max_points: float):
    """nbgrader's rule: a number a grade cell returns is its partial credit."""
    if value is None or isinstance(value, bool):
        return None
    try:
        points = float(value)
    except (TypeError, ValueError):
        return None
    return min(max(points, 0.0), max_points)


def _public_name(exc: BaseException) -> str:
    """The name the feedback shows: the grader's own subclasses under their builtin name."""
    for base in (AssertionError, NotImplementedError):
        if isinstance(exc, base):
            return base.__name__
    return type(exc).__name__


def macro_refusal(name: str, source: str, job: dict):
    """The student's message when the answer's macros expand past the grader's limit (None
    when they do not): simcore's preprocessor, run here in the limited interpreter with that
    limit, stops at it and names the macro and the line."""
    limit = job.get("macro_expansion_chars")
    if not limit or "define" not in source:    # no #define: nothing of the answer's expands
        return None
    from simcore.errors import CompileError  # noqa: PLC0415 - the child's own import
    from simcore.frontend.preprocess import ExpansionLimitError, preprocess  # noqa: PLC0415

    try:
        preprocess(source, max_expansion=limit)
    except ExpansionLimitError as exc:
        return f"The macros of '{name}' expand too much for the grader: {exc.message}."
    except CompileError:
        return None    # any other mistake is the compiler's to report, in the test cells
    return None


def _run_steps(steps, namespace: dict, answers: dict, job: dict, result: dict, save) -> bool:
    """Run trusted steps in `namespace`, appending each grade cell's result to
    result["cells"] (saved after every cell). False when a setup cell failed."""
    limit = int(job["output_bytes"])
    real_out, real_err = sys.stdout, sys.stderr
    for k, step in steps:
        kind = step["kind"]
        if kind == "answer":
            refusal = macro_refusal(step["name"], answers[step["name"]], job)
            if refusal:
                result["refused"] = refusal
                save()
                return True
            namespace[step["name"]] = answers[step["name"]]
            continue
        capture = _CappedText(limit, int(job.get("output_lines", 10**9)))
        sys.stdout = sys.stderr = capture
        started = time.monotonic()
        error = None
        value = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("default")
                value = _run_cell(step["source"], namespace, f"<{kind} cell {k}>")
        except BaseException as exc:  # noqa: BLE001 - every failure is a result here
            error = exc
            if kind == "setup":
                tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        finally:
            sys.stdout, sys.stderr = real_out, real_err
        if kind == "setup":
            if error is not None:
                result["setup_error"] = "".join(tb)[-4000:]
                save()
                return False
            continue
        gid, max_points = step["grade_id"], step["points"]
        cell = {"grade_id": gid, "output": capture.text(),
                "seconds": round(time.monotonic() - started, 3)}
        if error is None:
            partial = _partial(value, max_points)
            cell.update(points=max_points if partial is None else partial, status="passed",
                        error=None, error_name=None)
            if value is not None and partial is None:
                cell["output"] += repr(value)[:limit] + "\n"
        else:
            name = _public_name(error)
            text = _message(error)
            if len(text) > limit:
                text = text[:limit] + CUT_NOTE.format(total=len(text), limit=limit)
            status = "not done" if name == "NotImplementedError" else "failed"
            cell.update(points=0.0, status=status, error=text, error_name=name)
        result["cells"].append(cell)
        save()
        if error is not None and job.get("until_first_failure"):
            return True     # the audit's fast path: one lost cell already decides
    return True


def _saver(result: dict, result_path: str):
    def save():
        tmp = result_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, result_path)
    return save


def main(job: dict) -> None:
    if job.get("serve"):
        return main_serve(job)
    result = {"cells": [], "setup_error": None}
    save = _saver(result, job["result"])
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    save()
    _run_steps(list(enumerate(job["steps"])), namespace, job["answers"], job, result, save)


def _setup_namespace(steps, job: dict):
    """Run the setup cells before the first answer cell once; -> (namespace, the remaining
    steps, the setup's traceback or None)."""
    first = next((i for i, (_, s) in enumerate(steps) if s["kind"] != "setup"), len(steps))
    base = {"__name__": "__main__", "__builtins__": __builtins__}
    shared = {"cells": [], "setup_error": None}
    _run_steps(steps[:first], base, {}, job, shared, lambda: None)
    return base, steps[first:], shared["setup_error"]


def _limit_self(limits: dict) -> None:
    """The per-answer resource limits, set by the forked answer process on itself (its CPU
    time starts at zero at the fork, so RLIMIT_CPU counts this answer only)."""
    import resource  # noqa: PLC0415

    memory = resource.RLIMIT_DATA if limits["gpu_possible"] else resource.RLIMIT_AS
    for res, value in ((resource.RLIMIT_CPU, int(limits["cpu_s"])),
                       (memory, int(limits["memory_mb"]) << 20),
                       (resource.RLIMIT_FSIZE, int(limits["file_bytes"])),
                       (resource.RLIMIT_CORE, 0)):
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass


def _answer_process(rest, base: dict, request: dict, job: dict, reply_fd: int) -> None:
    """In the forked child: own process group, output to the answer's log, its limits, then
    the trusted cells after the setup with this answer. Never returns."""
    code = 1
    try:
        os.setpgid(0, 0)
        os.close(reply_fd)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)   # the requests are the server's alone
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        _limit_self(request["limits"])
        result = {"cells": [], "setup_error": None}
        save = _saver(result, request["result"])
        save()
        answer_job = {**job, "until_first_failure": bool(request.get("until_first_failure"))}
        _run_steps(rest, dict(base), request["answers"], answer_job, result, save)
        code = 0
    except BaseException:  # noqa: BLE001 - the parent reads the log tail
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def main_serve(job: dict) -> None:
    """A warm grading interpreter for one exercise: the imports and the setup cells before
    the first answer cell run once; then, for each request line on stdin (one answer, where
    to write its result and log, its limits), a forked process grades that answer alone
    under its own limits. Replies on the original stdout, one JSON line each: ``ready`` (or
    the setup's traceback) once, then ``pid`` and ``status`` (the exit status, negative for a
    signal) per answer. Everything the cells print goes to the log files, never the replies."""
    reply_fd = os.dup(1)
    reply_stream = os.fdopen(reply_fd, "w", encoding="utf-8")
    log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)

    def reply(**what):
        reply_stream.write(json.dumps(what) + "\n")
        reply_stream.flush()

    base, rest, setup_error = _setup_namespace(list(enumerate(job["steps"])), job)
    reply(ready=setup_error is None, setup_error=setup_error)
    for line in iter(sys.stdin.readline, ""):
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _answer_process(rest, base, request, job, reply_fd)
        reply(pid=pid)
        _, status = os.waitpid(pid, 0)
        reply(status=os.waitstatus_to_exitcode(status))
