"""nbgrader configuration for the GPU barriers course (nbgrader 0.9).

Layout (nbgrader's default directory_structure "{nbgrader_step}/{student_id}/{assignment_id}",
with student_id "." for the source and release steps, so there is no course-id level):

    solutions/<assignment>/<notebook>.ipynb                 instructor version (source)
    exercises/<assignment>/<notebook>.ipynb                 student release (committed)
    submitted/<student>/<assignment>/<notebook>.ipynb       collected work
    autograded/<student>/<assignment>/...                   after `nbgrader autograde`
    feedback/<student>/<assignment>/...                     after `nbgrader generate_feedback`
    exchange/gpu-barriers/{outbound,inbound,feedback}/      nbgrader's exchange on one machine
                                                            (a shared server names its own)

Grading is isolated (barrier_course/grading/autograde.py): `nbgrader autograde` does not run the
submitted notebook. IsolatedExecute (in place of nbgrader's Execute) reads the kernel source
out of the answer cell as a string literal and runs the instructor's setup and test cells
from solutions/ with it in a fresh, limited interpreter; the outputs go back into the test
cells and nbgrader scores them as usual. FeedbackCleanup removes the hidden tests and the
instructor's paths from the feedback HTML.

Solutions live inside CUDA source strings, so the stub nbgrader leaves in their place must
be valid C and valid Python at once: `__simcore_todo("...");` is a call in both languages.
The grader (barrier_course.grading.checks) refuses a source that still contains it with
NotImplementedError("Exercise not done yet: ..."). See solutions/AUTHORING.md.
"""

import os
import warnings

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearOutput,
                                    DeduplicateIds, GetGrades, IgnorePattern, LimitOutput,
                                    OverwriteCells, OverwriteKernelspec, SaveAutoGrades)

from barrier_course.nbgrader.exchange import course_exchange_root, machine_exchange_root
from barrier_course.nbgrader.hidden_tests import RestoreHiddenTests
from barrier_course.nbgrader.isolation import FeedbackCleanup, IsolatedExecute
from barrier_course.nbgrader.release_guard import protect_releases

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

_ROOT = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.root = _ROOT
c.CourseDirectory.course_id = "gpu-barriers"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(_ROOT, "gradebook.db")

# Generate (command line, `tasks.py release`, the Formgrader's button) never removes a release
# folder that holds someone's changes without a backup and a confirmation
# (barrier_course/nbgrader/release_guard.py).
protect_releases(_ROOT)

# The exchange (release -> fetch -> submit -> collect -> feedback). On a shared server the
# machine-wide nbgrader_config.py names one for every course and student (deploy/jupyterhub/);
# it is used as is. Otherwise (one machine) the exchange is this course's exchange/ folder,
# ignored by git and created here, so the Assignment List and the Formgrader work from the
# first start instead of looking for /usr/local/share/nbgrader/exchange.
if machine_exchange_root(_ROOT) is None:
    c.Exchange.root = course_exchange_root(_ROOT)
    # One OS account plays every student here (`nbgrader submit --student alice`), so a
    # submission is always "owned" by the instructor: that is not a cheating attempt.
    c.ExchangeCollect.check_owner = False
    # Fetch (the Assignment List, `nbgrader fetch_assignment` here) puts the assignment into the
    # student's working copy, ignored by git, never into the repository's root.
    _FETCHED = os.path.join(_ROOT, "my-course", "fetched")
    os.makedirs(_FETCHED, exist_ok=True)
    c.Exchange.assignment_dir = _FETCHED

# Only the notebooks: never copy checkpoints or build junk into the release.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".*"]

# One stub for every solution region: valid C (it sits inside a kernel string) and valid
# Python (a call followed by ';'), so a released notebook always parses.
_STUB = '__simcore_todo("YOUR CODE HERE: replace this line with your code");'
c.ClearSolutions.code_stub = {"python": _STUB}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# The default delimiters match anywhere in a line, so both `### BEGIN SOLUTION` (Python)
# and `// ### BEGIN SOLUTION` (inside CUDA source) work.
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"

# Autograde, first pass (nbgrader's "sanitize" list, RestoreHiddenTests added): test cells
# the student did not touch get their hidden tests back before OverwriteCells compares
# checksums, so "Attribute 'checksum' ... has changed!" is logged only for a locked cell the
# student really edited (see barrier_course/nbgrader/hidden_tests.py).
c.Autograde.sanitize_preprocessors = [
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    RestoreHiddenTests,
    OverwriteCells,
    CheckCellMetadata,
]

# Autograde: nbgrader's default list with Execute replaced by the isolated grader. Its
# limits per submission (defaults in barrier_course.grading.autograde.Limits, stated in the README)
# are IsolatedExecute.cpu_s, wall_s, memory_mb, output_bytes, source_bytes, macro_expansion_chars.
c.Autograde.autograde_preprocessors = [
    IsolatedExecute,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
c.GenerateFeedback.preprocessors = [FeedbackCleanup, GetGrades, CSSHTMLHeaderPreprocessor]

# Only for notebooks nbgrader still executes itself (e.g. `nbgrader validate` in JupyterLab):
# the simulator runs many launches per test cell.
c.Execute.timeout = 600

# Students exist in the gradebook as soon as their submission is autograded.
c.Autograde.create_student = True

# nbgrader 0.9's Gradebook builds a new submission's rows before adding them to the
# session, and SQLAlchemy 2 says so on every first autograde of a student ("SAWarning:
# Object of type <SubmittedAssignment> not in session, add operation along
# 'Student.submissions' will not proceed"). The rows are added right after and the scores
# are stored (tests/barrier_course/nbgrader/test_exchange_workflow.py reads them back), so the warning is noise.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session",
                        module=r"nbgrader\.api")
