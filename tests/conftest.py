"""Session-wide pytest hooks."""
import sys


def pytest_sessionfinish(session, exitstatus):
    """Close the ipywidgets the tests built, while Python still runs. Left to interpreter
    shutdown, each widget's __del__ reaches for ipykernel's comm manager after the import
    system is gone and prints an "Exception ignored ... sys.meta_path is None" traceback per
    widget at the end of the run: noise that hides the real summary."""
    ipywidgets = sys.modules.get("ipywidgets")
    if ipywidgets is not None:
        ipywidgets.Widget.close_all()
