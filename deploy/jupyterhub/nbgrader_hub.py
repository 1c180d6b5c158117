"""nbgrader's multi-course set-up on JupyterHub (2 or later), as one function.

For each course it adds what nbgrader's documentation ("Using nbgrader with JupyterHub",
"multiple classes") asks for:

* the groups ``nbgrader-<course>`` (students) and ``formgrade-<course>`` (instructors and the
  course's grader account): nbgrader's JupyterHubAuthPlugin reads them to decide who sees
  which course in the Assignment List;
* roles: students may see that the course service exists, instructors may open it, every
  user server's token inherits its owner's permissions (so nbgrader can ask the hub for its
  user's groups), and the course service may read and edit its course's student group;
* the course service: a Jupyter server, with the Formgrader as its landing page, run as the
  course's grader account in the course folder (a checkout of this repository), reached at
  ``/services/<course>/``.

jupyterhub_config.py (next to this file) calls :func:`add_courses`; the test
(tests/deploy/test_jupyterhub.py) calls it too, with a local test hub's settings. It needs only the
standard library, so it runs in the hub's own environment.
"""

from __future__ import annotations


def _merge_group(groups: dict, name: str, users) -> None:
    entry = groups.setdefault(name, {"users": []})
    if isinstance(entry, list):  # the older list form of load_groups
        entry = groups[name] = {"users": entry}
    entry["users"] = sorted(set(entry.get("users", [])) | set(users))


def add_courses(c, courses: dict, *, run_as_grader: bool = True) -> None:
    """Add the groups, roles and services of ``courses`` to the JupyterHub config ``c``.

    ``courses`` maps a course id (the repository's nbgrader_config.py says
    ``gpu-barriers``) to a dict with:

    ``instructors``  hub user names that grade the course;
    ``students``     hub user names enrolled in it;
    ``grader``       the course's grader account: a hub user in formgrade-<course> (nbgrader
                     asks the hub for its groups to list the course's assignments) and, with
                     ``run_as_grader``, the OS account that runs the course service and owns
                     the course folder (needs a hub started as root);
    ``directory``    the course folder (a checkout of this repository);
    ``port``         a free local port for the course service (one per course);
    ``command``      the command that starts a Jupyter server from the course's Python
                     environment (default ``["jupyterhub-singleuser"]``).
    """
    groups = dict(c.JupyterHub.load_groups) if "load_groups" in c.JupyterHub else {}
    roles = list(c.JupyterHub.load_roles) if "load_roles" in c.JupyterHub else []
    services = list(c.JupyterHub.services) if "services" in c.JupyterHub else []
    users = set(c.Authenticator.allowed_users) if "allowed_users" in c.Authenticator else set()

    if not any(role.get("name") == "server" for role in roles):
        # a user server's token may do what its user may: nbgrader's JupyterHubAuthPlugin asks
        # the hub for the user's groups with it
        roles.append({"name": "server", "scopes": ["inherit"]})

    for course_id, course in courses.items():
        instructors, students = list(course["instructors"]), list(course["students"])
        grader = course["grader"]
        _merge_group(groups, f"formgrade-{course_id}", instructors + [grader])
        _merge_group(groups, f"nbgrader-{course_id}", students)
        users |= set(instructors) | set(students) | {grader}
        roles += [
            {   # instructors open the course service (the Formgrader)
                "name": f"formgrade-{course_id}",
                "groups": [f"formgrade-{course_id}"],
                "scopes": [f"access:services!service={course_id}", "list:services",
                           f"read:services!service={course_id}"],
            },
            {   # students see that the course exists (Assignment List), nothing more
                "name": f"nbgrader-{course_id}",
                "groups": [f"nbgrader-{course_id}"],
                "scopes": ["list:services", f"read:services!service={course_id}"],
            },
            {   # the Formgrader reads its grader's groups (which courses it may list) and
                # its "add student" puts students in the course's group
                "name": f"grader-{course_id}",
                "services": [course_id],
                "scopes": ["list:users", "read:users", "list:groups",
                           f"groups!group=nbgrader-{course_id}",
                           f"read:groups!group=nbgrader-{course_id}"],
            },
        ]
        service = {
            "name": course_id,
            "url": f"http://127.0.0.1:{int(course['port'])}",
            "command": list(course.get("command") or ["jupyterhub-singleuser"]),
            "cwd": str(course["directory"]),
            # the Formgrader as landing page; JUPYTERHUB_USER is who nbgrader's
            # JupyterHubAuthPlugin asks the hub about (the hub sets it for user servers only)
            "environment": {"JUPYTERHUB_DEFAULT_URL": "/formgrader", "JUPYTERHUB_USER": grader},
            "oauth_no_confirm": True,  # instructors are not asked to authorise their own course
        }
        if run_as_grader:
            service["user"] = grader
        services.append(service)

    c.JupyterHub.load_groups = groups
    c.JupyterHub.load_roles = roles
    c.JupyterHub.services = services
    c.Authenticator.allowed_users = users


#: the mode of every user's home on a shared server: their work and nbgrader's cache (which
#: holds the names of their submissions in the exchange) are theirs alone
PRIVATE_HOME_MODE = 0o700


def os_account(hub_name: str):
    """The Unix account a hub user's server runs as: the same name (LocalProcessSpawner) or
    TLJH's ``jupyter-<name>``; None when neither exists (yet)."""
    import pwd  # noqa: PLC0415 (Unix only; the hub runs there)

    for name in (hub_name, f"jupyter-{hub_name}"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


def private_home(spawner) -> None:
    """``c.Spawner.pre_spawn_hook``: make the user's home 0700 before their server starts.

    useradd gives a home the machine's default mode (0755 on Debian and older Ubuntu, where
    every student could read every other student's work). New accounts get 0700 from
    ``HOME_MODE 0700`` in /etc/login.defs (README); this hook also closes the homes of
    accounts made before that. Only the home's own mode is changed, never its contents.
    """
    import os  # noqa: PLC0415

    account = os_account(spawner.user.name)
    if account is None or account.pw_uid == 0:
        return  # TLJH creates the account in start(), after this hook; login.defs covers it
    home = account.pw_dir
    if os.path.isdir(home) and not os.path.islink(home) and os.stat(home).st_uid == account.pw_uid:
        os.chmod(home, PRIVATE_HOME_MODE)
