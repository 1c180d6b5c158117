"""What the H200 did with the conformance corpus's fence, flag and lock kernels, for a lesson.

The rows come from the committed conformance table (conformance/results/h200.json, written by
tools/gpu_conformance.py on an H200) and are shipped, trimmed to what a lesson shows, as
course/data/h200-fences-and-locks.json, so that the lesson shows the GPU's evidence on a
machine without a GPU (tests/barrier_course/lessons/test_gpu_evidence.py checks that the copy matches the table).

Each row says what the rule decides (legal, a race, an endless wait), what simcore reported,
what the GPU run did (completed or hung, and whether its output was the right one) and what
`compute-sanitizer --tool racecheck` reported.  A GPU run that completes with the intended
output is no evidence that a kernel is legal, and racecheck does not model fences or flags.
"""
import json
import os

from .course_data import DATA_DIR, course_data_file

EVIDENCE_FILE = course_data_file("h200-fences-and-locks.json")
TABLE_FILE = os.path.join(os.path.dirname(DATA_DIR), os.pardir, "conformance", "results", "h200.json")
# the corpus entries this evidence covers: forward progress (spin locks, flag waits) and
# release/acquire (fences with flags and locks)
ENTRY_PREFIXES = ("progress_", "ra_")

RULE_WORDS = {"ok": "legal", "race": "race", "step_limit": "endless wait", "deadlock": "deadlock"}


def _gpu_output(gpu):
    """How the GPU's output compared: with the right answer (a legal kernel) or with the values
    the author intended (a broken one, where matching them proves nothing)."""
    if gpu.get("outcome") != "completed":
        return "-"
    if "vs_reference" in gpu:
        return "right" if gpu["vs_reference"].get("equal") else "WRONG"
    if "vs_intended" in gpu:
        return "as intended" if gpu["vs_intended"].get("equal") else "not as intended"
    return "?"


def _sanitizer(result):
    if result.get("outcome") != "completed":
        return "not run" if result.get("outcome") == "skipped" else str(result.get("outcome"))
    hazards = result.get("hazards")
    return f"{hazards if hazards is not None else result.get('errors', 0)} hazards"


def evidence_row(row):
    """One conformance-table row -> the fields the lesson shows."""
    gpu = row.get("gpu", {})
    outcome = gpu.get("outcome", "not run")
    if outcome == "hung":
        outcome = f"hung ({gpu.get('detail', '')})".replace(" ()", "")
    return {"name": row["name"], "rule": row["expected"], "simcore": row["sim"]["verdict"],
            "gpu": outcome, "gpu_output": _gpu_output(gpu),
            "racecheck": _sanitizer(row.get("racecheck", {}))}


def extract(table):
    """The conformance table (h200.json's dict) -> the evidence file's dict."""
    rows = [evidence_row(r) for r in table["rows"] if r["name"].startswith(ENTRY_PREFIXES)]
    meta = table.get("meta", {})
    return {"device": meta.get("device", ""), "date": meta.get("date", ""),
            "source": "conformance/results/h200.json", "rows": rows}


def load(path=None):
    """The shipped evidence: {"device", "date", "source", "rows": [...]}."""
    with open(path or EVIDENCE_FILE) as f:
        return json.load(f)


def rows_by_name(evidence=None):
    evidence = evidence or load()
    return {r["name"]: r for r in evidence["rows"]}


def gpu_hung(name, evidence=None):
    """Whether the H200 run of corpus entry `name` hung (so a lesson must not launch it on a GPU)."""
    row = rows_by_name(evidence).get(name)
    return bool(row) and row["gpu"].startswith("hung")


def evidence_table(names=None, evidence=None):
    """A text table of what the rule, simcore, the H200 and racecheck said, one entry a line."""
    evidence = evidence or load()
    rows = rows_by_name(evidence)
    names = list(names) if names is not None else list(rows)
    missing = [n for n in names if n not in rows]
    if missing:
        raise KeyError(f"not in {evidence.get('source', 'the evidence file')}: {', '.join(missing)}")
    width = max(len(n) for n in names)
    lines = [f"MEASURED on {evidence['device']} ({evidence['date']}), from {evidence['source']}",
             f"{'kernel':{width}s}  {'the rule':12s}  {'simcore':12s}  {'H200 run':24s}  {'output':11s}  racecheck"]
    for n in names:
        r = rows[n]
        lines.append(f"{n:{width}s}  {RULE_WORDS.get(r['rule'], r['rule']):12s}  "
                     f"{RULE_WORDS.get(r['simcore'], r['simcore']):12s}  {r['gpu']:24s}  {r['gpu_output']:11s}  {r['racecheck']}")
    return "\n".join(lines)


def write_evidence(table_path=TABLE_FILE, path=EVIDENCE_FILE):
    """Regenerate the shipped copy from the conformance table (after a new H200 run)."""
    with open(table_path) as f:
        evidence = extract(json.load(f))
    with open(path, "w") as f:
        json.dump(evidence, f, indent=1)
        f.write("\n")
    return evidence


if __name__ == "__main__":
    write_evidence()
    print(evidence_table())
