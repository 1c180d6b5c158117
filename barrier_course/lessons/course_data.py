"""Where the course's H200 measurements are: course/data/, beside the package or beside the
notebook that runs."""
import os

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "course", "data")


def course_data_file(name):
    """course/data/<name>. The H200 measurements ship with the course folder, not inside the
    package: found beside the package (a checkout, an editable install), else from the
    notebook's working directory (a package installed from the repository, as Binder does,
    with the lessons run in course/, the exercises in exercises/<name>/). A missing file gives
    the checkout's path, for the caller's error."""
    cwd = os.getcwd()
    for folder in (DATA_DIR, os.path.join(cwd, "data"), os.path.join(cwd, "course", "data"),
                   os.path.join(cwd, os.pardir, "course", "data"),
                   os.path.join(cwd, os.pardir, os.pardir, "course", "data")):
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return os.path.join(DATA_DIR, name)
