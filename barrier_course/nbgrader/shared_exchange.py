"""nbgrader's exchange on a shared server whose exchange root was prepared by root.

nbgrader's own exchange wants its root world-writable (mode 0777): every action checks that
the current user may write there, and the release step even tries to ``chmod`` it to 0777.
On a server with 200 accounts a 777 root lets any student rename the course's folder away
and put one of their own in its place (later submissions and feedback then go to the
attacker), or create a course's folders before its instructor does. The hardened set-up
(``deploy/jupyterhub/setup_exchange.sh``) makes the root owned by root, mode 0755, with the
course folder created by the course's grader account; students then write only into
``inbound/`` (0733 plus the sticky bit), which they cannot list.

Three small changes to nbgrader's default exchange make it work there, and nothing else:

* every action only checks that the root exists and can be entered (:class:`PreparedRoot`),
  instead of demanding, or setting, write permission on it;
* a submission's own folder ends up 0750 and its files 0640 instead of nbgrader's 0777 and
  0644 (:class:`ExchangeSubmitPrivately`): with those, anybody who learns the folder's name
  (it is in the student's nbgrader cache, and in the path of a careless screenshot) could
  read the answer and replace the files. The folder is made inside ``inbound/``, whose
  set-group-id bit gives it the grader's group, so the grader still reads it (``collect``
  only copies); removing old submissions is root's job;
* ``collect`` takes a folder only from the account of the student it names
  (:class:`ExchangeCollectPrepared`).

``deploy/jupyterhub/nbgrader_config.py`` (the machine-wide config) selects these classes
through nbgrader's ``ExchangeFactory``.
"""

from __future__ import annotations

import datetime
import os
import pwd
import shutil

from nbgrader.exchange.default import (ExchangeCollect, ExchangeFetchAssignment,
                                       ExchangeFetchFeedback, ExchangeList,
                                       ExchangeReleaseAssignment, ExchangeReleaseFeedback,
                                       ExchangeSubmit)
from traitlets import List, Unicode

__all__ = ["ExchangeCollectPrepared", "ExchangeFetchAssignmentPrepared",
           "ExchangeFetchFeedbackPrepared", "ExchangeListPrepared",
           "ExchangeReleaseAssignmentPrepared", "ExchangeReleaseFeedbackPrepared",
           "ExchangeSubmitPrivately", "SUBMISSION_DIR_MODE", "SUBMISSION_FILE_MODE",
           "FACTORY_CLASSES"]

#: the time given to a folder that is not collected: older than any real submission
_NEVER = datetime.datetime(1970, 1, 1)  # naive UTC, as nbgrader's parse_utc gives

#: a submission's folders and files: its student writes, the grader's group reads
SUBMISSION_DIR_MODE = 0o750
SUBMISSION_FILE_MODE = 0o640


class PreparedRoot:
    """Mixin: the exchange root is root's to create and keep; nbgrader only checks it."""

    def ensure_root(self):
        if not os.path.isdir(self.root):
            self.fail(f"The exchange folder {self.root} does not exist. The server's "
                      "administrator creates it once (deploy/jupyterhub/setup_exchange.sh).")
        if not os.access(self.root, os.X_OK):
            self.fail(f"The exchange folder {self.root} cannot be entered; please contact "
                      "your instructor.")


class ExchangeReleaseAssignmentPrepared(PreparedRoot, ExchangeReleaseAssignment):
    """Release into the prepared exchange (never chmods its root)."""


class ExchangeReleaseFeedbackPrepared(PreparedRoot, ExchangeReleaseFeedback):
    """Release feedback into the prepared exchange."""


class ExchangeFetchAssignmentPrepared(PreparedRoot, ExchangeFetchAssignment):
    """Fetch from the prepared exchange."""


class ExchangeFetchFeedbackPrepared(PreparedRoot, ExchangeFetchFeedback):
    """Fetch feedback from the prepared exchange."""


class ExchangeListPrepared(PreparedRoot, ExchangeList):
    """List the prepared exchange."""


class ExchangeCollectPrepared(PreparedRoot, ExchangeCollect):
    """Collect from the prepared exchange, only what each student submitted themselves.

    Any student may create a folder in ``inbound/`` (that is how submitting works), so
    nothing stops mallory from creating ``alice+ex01+<a later time>+x``: nbgrader's collect
    takes each student's latest folder and, with ``check_owner``, only *warns* that the
    owner differs. Here a folder whose owner is not the student's account is never
    collected (an error names it); the student's own latest submission is taken instead.
    On a hub whose accounts are not named after the students, set ``owner_names`` (or
    ``[]`` to switch the check off, as nbgrader's ``check_owner = False`` does).
    """

    owner_names = List(Unicode(), ["{student}", "jupyter-{student}"],
                       help="Account names that may own a student's submission: '{student}' "
                            "is the student id (TLJH's accounts are jupyter-<name>); [] trusts "
                            "every folder, as nbgrader does.").tag(config=True)

    def _owned_by_student(self, path: str, student: str) -> bool:
        if not self.owner_names:
            return True
        try:
            owner = pwd.getpwuid(os.stat(path).st_uid).pw_name
        except (KeyError, OSError):
            return False
        return owner in {name.format(student=student) for name in self.owner_names}

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        if not self._owned_by_student(path, record["username"]):
            self.log.error("Not collected: %s claims to be submitted by %s but belongs to "
                           "another account", path, record["username"])
            # never the latest: the student's own submission wins; dropped in copy_files
            record["timestamp"] = _NEVER
            record["foreign"] = True
        return record

    def copy_files(self):
        self.src_records = [r for r in self.src_records if not r.get("foreign")]
        super().copy_files()


class ExchangeSubmitPrivately(PreparedRoot, ExchangeSubmit):
    """Submit as nbgrader does, then close the submission folder to other students."""

    def do_copy(self, src, dest, log=None):
        """nbgrader's copy (same size limit, same ignore rules), but into fresh folders and
        files only: ``shutil.copytree`` would copy the home folder's mode onto the new
        folder, which drops the set-group-id bit it got from ``inbound/``, and then the
        files nbgrader writes next (timestamp.txt, submission_secret.txt) would not have the
        grader's group."""
        from nbgrader.utils import ignore_patterns  # noqa: PLC0415

        if not os.path.realpath(dest).startswith(os.path.realpath(self.inbound_path) + os.sep):
            return super().do_copy(src, dest, log=log)  # the copy into the student's cache
        if self.get_size(src) > 1000 * self.coursedir.max_dir_size:
            self.log.error("Directory size is too big")
            raise RuntimeError("Directory size is too big")
        ignore = ignore_patterns(exclude=self.coursedir.ignore, include=self.coursedir.include,
                                 max_file_size=self.coursedir.max_file_size, log=self.log)
        os.mkdir(dest)
        for folder, dirs, files in os.walk(src):
            skipped = set(ignore(folder, dirs + files))
            dirs[:] = [d for d in dirs if d not in skipped]
            target = os.path.join(dest, os.path.relpath(folder, src))
            for d in dirs:
                os.mkdir(os.path.join(target, d))
            for f in files:
                if f not in skipped:
                    shutil.copyfile(os.path.join(folder, f), os.path.join(target, f))

    def copy_files(self):
        super().copy_files()
        dest = os.path.join(self.inbound_path, self.assignment_filename)
        for folder, _, files in os.walk(dest):
            for name in files:
                os.chmod(os.path.join(folder, name), SUBMISSION_FILE_MODE)
            os.chmod(folder, SUBMISSION_DIR_MODE)


#: ExchangeFactory trait -> class, as the machine-wide nbgrader_config.py sets them
FACTORY_CLASSES = {
    "release_assignment": ExchangeReleaseAssignmentPrepared,
    "release_feedback": ExchangeReleaseFeedbackPrepared,
    "fetch_assignment": ExchangeFetchAssignmentPrepared,
    "fetch_feedback": ExchangeFetchFeedbackPrepared,
    "list": ExchangeListPrepared,
    "collect": ExchangeCollectPrepared,
    "submit": ExchangeSubmitPrivately,
}
