"""Recordings of a launch: the trace (warps over time) and the step-through replay, with
the plugins that record them.
"""
