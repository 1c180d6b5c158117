"""nbgrader and Jupyter server plumbing: the exchange, hidden tests, isolated execution,
the shared-server exchange, the release guard, the students' contents manager.
"""
