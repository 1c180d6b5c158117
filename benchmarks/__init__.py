"""The benchmark and its peers (a developer tool, not part of the installed library):
`python -m simcore.bench` runs bench.py.
"""
