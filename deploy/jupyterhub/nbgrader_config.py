"""Machine-wide nbgrader configuration for a JupyterHub that hosts the course.

Copy it to /etc/jupyter/nbgrader_config.py (The Littlest JupyterHub: also readable there by
every user server; Zero to JupyterHub: bake it into the user image at the same path). Every
nbgrader on the machine reads it: the students' Assignment List, the instructors' course
services, and `nbgrader ...` typed in their terminals. The course folder's own
nbgrader_config.py (the repository's) sees that this file names an exchange and then keeps
it (barrier_course/nbgrader_exchange.py), so the same checkout works on a laptop and here.
"""

import os

from nbgrader.auth import JupyterHubAuthPlugin

c = get_config()  # noqa: F821 (provided by traitlets)

# The shared exchange: one folder for every course and every student, world-writable
# (mode 777) like nbgrader's own default, on a disk every user server mounts. Create it once
# as root:  mkdir -p /srv/nbgrader/exchange && chmod 777 /srv/nbgrader/exchange
EXCHANGE_ROOT = "/srv/nbgrader/exchange"
c.Exchange.root = EXCHANGE_ROOT

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
