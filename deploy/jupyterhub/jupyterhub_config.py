"""JupyterHub configuration for a class taking the GPU barriers course (nbgrader multi-course).

Where it goes:

* The Littlest JupyterHub (TLJH): copy this file and nbgrader_hub.py into
  /opt/tljh/config/jupyterhub_config.d/ and run `sudo tljh-config reload hub`. TLJH keeps
  its own authenticator and spawner (one Linux account jupyter-<name> per user); leave
  AUTHENTICATOR below as None.
* Any other JupyterHub started as root: `jupyterhub -f jupyterhub_config.py` from this folder.
* Zero to JupyterHub: the same calls in hub.extraConfig (see the README, "A class on a
  shared server", for the shared exchange volume that Kubernetes needs).

Also needed (README, "A class on a shared server"): deploy/jupyterhub/nbgrader_config.py as
/etc/jupyter/nbgrader_config.py, the exchange /srv/nbgrader/exchange prepared by
deploy/jupyterhub/setup_exchange.sh (root-owned, never mode 777), the course installed in the
users' Python environment, and the grader account with a checkout of the repository as its
course folder.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbgrader_hub import add_courses, private_home  # noqa: E402 (next to this file)

c = get_config()  # noqa: F821 (provided by traitlets)

# ---- edit for your class ------------------------------------------------------------------

# Hub users, by JupyterHub name. For 200 students, read the names from a file, e.g.
#   STUDENTS = open("/opt/tljh/config/students.txt").read().split()
INSTRUCTORS = ["instructor"]
STUDENTS = ["alice", "bob"]

COURSES = {
    # the course id: must be the repository's c.CourseDirectory.course_id
    "gpu-barriers": {
        "instructors": INSTRUCTORS,
        "students": STUDENTS,
        # OS account that runs the Formgrader; create it once:
        #   sudo useradd -m grader-gpu-barriers
        #   sudo -u grader-gpu-barriers git clone <this repository> ~grader-gpu-barriers/course
        "grader": "grader-gpu-barriers",
        "directory": "/home/grader-gpu-barriers/course",
        "port": 9999,  # a free local port, one per course
        # the users' environment (TLJH: /opt/tljh/user), where the course is installed
        "command": ["/opt/tljh/user/bin/jupyterhub-singleuser"],
    },
    # a second course (another workshop, another repository) is one more entry here with its
    # own course id, grader account, folder and port
}

# None keeps the hub's own login (TLJH's); e.g. "github" or "firstuseauthenticator.FirstUseAuthenticator"
AUTHENTICATOR = None

# ---- derived from the above ---------------------------------------------------------------

if AUTHENTICATOR:
    c.JupyterHub.authenticator_class = AUTHENTICATOR
add_courses(c, COURSES)

# Every home is its owner's alone (0700) before their server starts: another student must not
# read their work, nor the names of their submissions in nbgrader's cache.
c.Spawner.pre_spawn_hook = private_home

# Students land in JupyterLab; the course's lessons come with nbgitpuller links (README).
c.Spawner.default_url = "/lab"
