"""Where nbgrader's exchange lives: the machine's shared one, or the course's own folder.

nbgrader hands assignments out and in through an *exchange* folder (``c.Exchange.root``).
Its default, ``/usr/local/share/nbgrader/exchange``, exists on no laptop: the Formgrader then
says the exchange "does not exist", the Assignment List says "Error fetching courses!", and
``nbgrader release_assignment`` run as root quietly creates a system folder.

The course's ``nbgrader_config.py`` therefore picks the exchange like this:

* a **shared server** (JupyterHub, see ``deploy/jupyterhub/``) names its exchange in a
  machine-wide ``nbgrader_config.py`` (``/etc/jupyter/`` or another folder on Jupyter's
  config path). That one wins: every student and every course on the server must meet in the
  same folder. :func:`machine_exchange_root` finds it.
* on **one machine** (a laptop, a workshop leader trying the steps) the exchange is the
  course's own ``exchange/`` folder, ignored by git: :func:`course_exchange_root` creates it
  with the permissions nbgrader's release step wants (``0o777``, so that it never warns).

The course folder's own ``nbgrader_config.py`` is loaded after (and overrides) the
machine-wide one, which is why it has to look for the machine's setting itself.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["machine_exchange_root", "course_exchange_root", "EXCHANGE_FOLDER"]

#: The single-machine exchange, relative to the course root (listed in .gitignore).
EXCHANGE_FOLDER = "exchange"

#: What nbgrader's ExchangeReleaseAssignment.ensure_root sets (without group sharing).
_EXCHANGE_MODE = 0o777

_CONFIG_FILES = ("nbgrader_config.py", "nbgrader_config.json")


def _configured_root(folder: str, filename: str) -> str | None:
    from traitlets.config.loader import JSONFileConfigLoader, PyFileConfigLoader

    loader_class = PyFileConfigLoader if filename.endswith(".py") else JSONFileConfigLoader
    try:
        config = loader_class(filename, path=folder).load_config()
    except Exception:  # a broken machine config is nbgrader's to report, not ours
        return None
    exchange = config.get("Exchange", {})
    root = exchange.get("root") if hasattr(exchange, "get") else None
    return str(root) if root else None


def machine_exchange_root(course_root: str | os.PathLike) -> str | None:
    """The ``Exchange.root`` set by an nbgrader config outside the course folder, or None.

    Looks in every folder of Jupyter's config path (``JUPYTER_CONFIG_PATH``, the user's
    ``~/.jupyter``, the environment's ``etc/jupyter``, ``/usr/local/etc/jupyter``,
    ``/etc/jupyter``) in nbgrader's order of precedence, skipping the course folder.
    """
    from jupyter_core.paths import jupyter_config_path

    course = Path(course_root).resolve()
    for folder in jupyter_config_path():
        try:
            if Path(folder).resolve() == course:
                continue
        except OSError:
            continue
        for filename in _CONFIG_FILES:
            if os.path.isfile(os.path.join(folder, filename)):
                root = _configured_root(folder, filename)
                if root:
                    return root
    return None


def course_exchange_root(course_root: str | os.PathLike) -> str:
    """``<course_root>/exchange``, created world-writable as nbgrader's release step wants.

    Created as soon as the configuration is read (not only by the release step), so that
    the Assignment List and the Formgrader find an (empty) exchange from the first start.
    Where the folder cannot be created (a read-only checkout) nbgrader reports it when used.
    """
    root = Path(course_root) / EXCHANGE_FOLDER
    try:
        root.mkdir(exist_ok=True)
        if (root.stat().st_mode & 0o777) != _EXCHANGE_MODE:
            root.chmod(_EXCHANGE_MODE)  # mkdir's mode is cut by the umask
    except OSError:
        pass
    return str(root)
