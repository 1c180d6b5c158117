"""nbgrader configuration for the GPU barriers course (nbgrader 0.9).

Layout (nbgrader's default directory_structure "{nbgrader_step}/{student_id}/{assignment_id}",
with student_id "." for the source and release steps, so there is no course-id level):

    solutions/<assignment>/<notebook>.ipynb                 instructor version (source)
    exercises/<assignment>/<notebook>.ipynb                 student release (committed)
    submitted/<student>/<assignment>/<notebook>.ipynb       collected work
    autograded/<student>/<assignment>/...                   after `nbgrader autograde`
    feedback/<student>/<assignment>/...                     after `nbgrader generate_feedback`

Solutions live inside CUDA source strings, so the stub nbgrader leaves in their place must
be valid C and valid Python at once: `__simcore_todo("...");` is a call in both languages.
The grader (barrier_course.grading) refuses a source that still contains it with
NotImplementedError("Exercise not done yet: ..."). See solutions/AUTHORING.md.
"""

import os

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

# The simulator runs many launches per test cell: allow more than nbgrader's 30 s default.
c.Execute.timeout = 600

# Students exist in the gradebook as soon as their submission is autograded.
c.Autograde.create_student = True
