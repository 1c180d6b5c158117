"""Which exchange the course's nbgrader configuration picks, and what deploy/jupyterhub/ sets.

Fast checks of the configuration files themselves (the round trips that use them are
tests/barrier_course/nbgrader/test_exchange_workflow.py and tests/deploy/test_jupyterhub.py, both slow): on one machine the
course's own exchange/ (created world-writable, the owner check off); on a server whose
machine-wide nbgrader_config.py names an exchange, that one, untouched; the hub's
multi-course groups, roles and services.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from traitlets.config.loader import Config, PyFileConfigLoader

from course_testing import ROOT

DEPLOY = ROOT / "deploy" / "jupyterhub"


def _load(folder: Path, name: str = "nbgrader_config.py") -> Config:
    return PyFileConfigLoader(name, path=str(folder)).load_config()


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A copy of the course's nbgrader_config.py, with an empty Jupyter config path."""
    shutil.copy2(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "user-jupyter"))
    monkeypatch.delenv("JUPYTER_CONFIG_PATH", raising=False)
    for var in ("JUPYTERHUB_USER", "JUPYTERHUB_SERVICE_NAME"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def _machine_exchange_configured() -> bool:
    from barrier_course.nbgrader.exchange import machine_exchange_root

    return machine_exchange_root(ROOT / "no-such-course") is not None


def test_one_machine_uses_the_course_exchange(course):
    if _machine_exchange_configured():
        pytest.skip("this machine's own nbgrader config names an exchange (a shared server)")
    config = _load(course)
    assert config.Exchange.root == str(course / "exchange")
    assert stat.S_IMODE((course / "exchange").stat().st_mode) == 0o777
    assert config.ExchangeCollect.check_owner is False


def test_formgrader_and_assignment_list_find_the_exchange(course):
    """What the Formgrader asks before it shows "The exchange directory ... does not exist"."""
    if _machine_exchange_configured():
        pytest.skip("this machine's own nbgrader config names an exchange (a shared server)")
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    config = _load(course)
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    assert api.exchange_root == str(course / "exchange")
    assert api.exchange_is_functional, "the Formgrader would say the exchange does not exist"


def test_a_server_exchange_wins(course, monkeypatch):
    machine = course / "etc-jupyter"
    machine.mkdir()
    shutil.copy2(DEPLOY / "nbgrader_config.py", machine / "nbgrader_config.py")
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(machine))
    config = _load(course)
    assert "root" not in config.Exchange, config.Exchange
    assert not (course / "exchange").exists()
    assert _load(machine).Exchange.root == "/srv/nbgrader/exchange"


def test_hub_student_id_is_the_hub_name_except_in_the_course_service(monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")
    monkeypatch.delenv("JUPYTERHUB_SERVICE_NAME", raising=False)
    student = _load(DEPLOY)
    assert student.CourseDirectory.student_id == "alice"
    assert student.Exchange.path_includes_course is True
    assert student.ExchangeCollect.check_owner is False
    monkeypatch.setenv("JUPYTERHUB_USER", "grader-gpu-barriers")
    monkeypatch.setenv("JUPYTERHUB_SERVICE_NAME", "gpu-barriers")
    assert "student_id" not in _load(DEPLOY).CourseDirectory


def test_jupyterhub_config_sets_up_the_course():
    c = PyFileConfigLoader("jupyterhub_config.py", path=str(DEPLOY)).load_config()
    hub = c.JupyterHub
    assert hub.load_groups["formgrade-gpu-barriers"]["users"] == ["grader-gpu-barriers",
                                                                  "instructor"]
    assert hub.load_groups["nbgrader-gpu-barriers"]["users"] == ["alice", "bob"]
    roles = {r["name"]: r for r in hub.load_roles}
    assert roles["server"]["scopes"] == ["inherit"]
    assert "access:services!service=gpu-barriers" in roles["formgrade-gpu-barriers"]["scopes"]
    assert not any(s.startswith("access:") for s in roles["nbgrader-gpu-barriers"]["scopes"])
    (service,) = hub.services
    assert service["name"] == "gpu-barriers" and service["user"] == "grader-gpu-barriers"
    assert service["url"] == "http://127.0.0.1:9999"
    assert service["environment"]["JUPYTERHUB_USER"] == "grader-gpu-barriers"
    assert set(c.Authenticator.allowed_users) == {"instructor", "alice", "bob",
                                                  "grader-gpu-barriers"}


def test_course_id_matches_the_hub_course():
    text = (ROOT / "nbgrader_config.py").read_text()
    assert 'c.CourseDirectory.course_id = "gpu-barriers"' in text
    assert '"gpu-barriers": {' in (DEPLOY / "jupyterhub_config.py").read_text()
