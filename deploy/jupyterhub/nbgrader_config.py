"""Machine-wide nbgrader configuration for a JupyterHub that hosts the course.

Copy it to /etc/jupyter/nbgrader_config.py (The Littlest JupyterHub: also readable there by
every user server; Zero to JupyterHub: bake it into the user image at the same path). Every
nbgrader on the machine reads it: the students' Assignment List, the instructors' course
services, and `nbgrader ...` typed in their terminals. The course folder's own
nbgrader_config.py (the repository's) sees that this file names an exchange and then keeps
it (barrier_course/nbgrader/exchange.py), so the same checkout works on a laptop and here.
"""

import os

from nbgrader.auth import JupyterHubAuthPlugin

c = get_config()  # noqa: F821 (provided by traitlets)

# The shared exchange: one folder for every course and every student, on a disk every user
# server mounts. NOT world-writable as nbgrader's default wants: owned by root (mode 0755),
# each course's folder created in it by that course's grader account, inbound/ 0733 with
# the sticky bit. Prepare it once as root, for each course:
#   deploy/jupyterhub/setup_exchange.sh /srv/nbgrader/exchange gpu-barriers grader-gpu-barriers
EXCHANGE_ROOT = "/srv/nbgrader/exchange"
c.Exchange.root = EXCHANGE_ROOT

# nbgrader's exchange, changed only where a root-owned root needs it: no action checks for
# (or sets) write permission on the root, and a submission is 0750/0640 instead of 0777/0644
# (barrier_course/nbgrader/shared_exchange.py says why). The course is installed in every user's
# environment, so these import wherever nbgrader runs.
for _action, _class in {
    "release_assignment": "ExchangeReleaseAssignmentPrepared",
    "release_feedback": "ExchangeReleaseFeedbackPrepared",
    "fetch_assignment": "ExchangeFetchAssignmentPrepared",
    "fetch_feedback": "ExchangeFetchFeedbackPrepared",
    "list": "ExchangeListPrepared",
    "collect": "ExchangeCollectPrepared",
    "submit": "ExchangeSubmitPrivately",
}.items():
    setattr(c.ExchangeFactory, _action, "barrier_course.nbgrader.shared_exchange." + _class)

# Several courses on one hub: a student's fetched work goes to ~/<course id>/<assignment>,
# so two courses with an assignment of the same name never collide.
c.Exchange.path_includes_course = True

# Who may see which course comes from JupyterHub's groups: nbgrader-<course> (students) and
# formgrade-<course> (instructors), set in jupyterhub_config.py (nbgrader_hub.py).
c.Authenticator.plugin_class = JupyterHubAuthPlugin

# A student's id is their JupyterHub name, not their OS account (The Littlest JupyterHub's
# accounts are jupyter-<name>; Zero to JupyterHub runs everyone as jovyan; a test hub runs
# everyone as one account). The instructors' course service (JUPYTERHUB_SERVICE_NAME is set
# there and in its terminals) keeps nbgrader's default "every student" for collect.
if os.environ.get("JUPYTERHUB_USER") and not os.environ.get("JUPYTERHUB_SERVICE_NAME"):
    c.CourseDirectory.student_id = os.environ["JUPYTERHUB_USER"]

# The submissions' owners are OS accounts (jupyter-alice, jovyan, ...), never the student ids
# above, so nbgrader's owner check would call every submission a "cheating attempt".
c.ExchangeCollect.check_owner = False
