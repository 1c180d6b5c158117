"""barrier_course/nbgrader/shared_exchange.py: nbgrader's exchange on a root-owned exchange root.

The machine-wide config (deploy/jupyterhub/nbgrader_config.py) must select exactly these
classes, and they must accept a root that the user cannot write (nbgrader's own classes
refuse it, and the release step tries to chmod it to 0777). The real-accounts behaviour is
in tests/deploy/test_hub_accounts.py; these are the quick checks without root or a hub.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from traitlets.config.loader import PyFileConfigLoader

from course_testing import ROOT

from barrier_course.nbgrader import shared_exchange
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeError, default


def _machine_config():
    return PyFileConfigLoader("nbgrader_config.py", path=str(ROOT / "deploy" / "jupyterhub")).load_config()


def test_the_machine_config_selects_every_prepared_class():
    factory = _machine_config().ExchangeFactory
    chosen = {name: factory[name] for name in factory}
    expected = {name: f"barrier_course.nbgrader.shared_exchange.{cls.__name__}"
                for name, cls in shared_exchange.FACTORY_CLASSES.items()}
    assert chosen == expected


@pytest.mark.parametrize("action", sorted(shared_exchange.FACTORY_CLASSES))
def test_each_class_is_nbgraders_own_with_the_root_check_replaced(action):
    ours = shared_exchange.FACTORY_CLASSES[action]
    base = {"release_assignment": default.ExchangeReleaseAssignment,
            "release_feedback": default.ExchangeReleaseFeedback,
            "fetch_assignment": default.ExchangeFetchAssignment,
            "fetch_feedback": default.ExchangeFetchFeedback, "list": default.ExchangeList,
            "collect": default.ExchangeCollect, "submit": default.ExchangeSubmit}[action]
    assert issubclass(ours, base)
    assert ours.ensure_root is shared_exchange.PreparedRoot.ensure_root


def _exchange(cls, root: Path):
    coursedir = CourseDirectory(course_id="gpu-barriers", assignment_id="ex01_tail_handling")
    ex = cls(coursedir=coursedir, authenticator=Authenticator(coursedir=coursedir))
    ex.root = str(root)
    return ex


def test_a_missing_root_says_who_creates_it(tmp_path):
    ex = _exchange(shared_exchange.ExchangeReleaseAssignmentPrepared, tmp_path / "nowhere")
    with pytest.raises(ExchangeError, match="setup_exchange.sh"):
        ex.ensure_root()
    assert not (tmp_path / "nowhere").exists()


def test_a_root_that_is_not_world_writable_is_left_as_it_is(tmp_path):
    root = tmp_path / "exchange"
    root.mkdir(mode=0o755)
    root.chmod(0o755)
    _exchange(shared_exchange.ExchangeReleaseAssignmentPrepared, root).ensure_root()
    assert root.stat().st_mode & 0o777 == 0o755
    # nbgrader's own release step would have made it 0777
    _exchange(default.ExchangeReleaseAssignment, root).ensure_root()
    assert root.stat().st_mode & 0o777 == 0o777


def test_setup_script_refuses_without_root_or_grader(tmp_path):
    import subprocess

    script = ROOT / "deploy" / "jupyterhub" / "setup_exchange.sh"
    proc = subprocess.run(["sh", str(script), str(tmp_path / "x"), "gpu-barriers",
                           "no-such-account-here"], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    expected = "run as root" if os.geteuid() != 0 else "no account 'no-such-account-here'"
    assert expected in proc.stderr
    assert not (tmp_path / "x").exists()
