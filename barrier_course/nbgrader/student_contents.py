"""A student's JupyterLab never writes into the course's tracked folders.

``python3 tasks.py course`` (without ``--instructor``) serves the repository with this
contents manager. The student works in ``my-course/`` (the working copy of the lessons and
the exercises); ``course/``, ``exercises/`` and ``solutions/`` are the checkout's, and a
notebook opened there by mistake would be rewritten by JupyterLab's autosave (the kernel's
metadata alone makes it "modified"), so that ``git status`` shows it changed and ``git pull``
refuses. Here those folders are read-only: JupyterLab opens their files as read-only
documents, and a save, rename or delete under them is refused with a message naming the copy
to work in.
"""

from __future__ import annotations

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado import web
from traitlets import List, Unicode

#: the tracked folders a student session keeps read-only
TRACKED_FOLDERS = ("course", "exercises", "solutions")


class StudentContentsManager(AsyncLargeFileManager):
    """The default contents manager, with the course's tracked folders read-only."""

    read_only_folders = List(Unicode(), default_value=list(TRACKED_FOLDERS),
                             help="top-level folders that the student session never writes").tag(config=True)

    def _protected(self, path: str) -> bool:
        top = path.strip("/").split("/", 1)[0]
        return top in self.read_only_folders

    def _refuse(self, path: str):
        top = path.strip("/").split("/", 1)[0]
        copy = "my-course/" + ("" if top == "course" else f"{top}/")
        return web.HTTPError(403, f"{path} is part of the course's checkout and stays as it is: "
                                  f"work in your copy under {copy} (python3 tasks.py course makes it)")

    def is_writable(self, path):
        return not self._protected(path) and super().is_writable(path)

    async def save(self, model, path=""):
        if self._protected(path):
            raise self._refuse(path)
        return await super().save(model, path)

    async def delete_file(self, path):
        if self._protected(path):
            raise self._refuse(path)
        return await super().delete_file(path)

    async def rename_file(self, old_path, new_path):
        for path in (old_path, new_path):
            if self._protected(path):
                raise self._refuse(path)
        return await super().rename_file(old_path, new_path)
