"""Helpers for the GPU barriers course, one module per idea.

grading     the autograder behind every nbgrader test cell (check_kernel, try_kernel)
exercise_notebook  an exercise notebook's cells as typed steps; the answer cells' strings
autograde   the isolated scorer: trusted cells with the answer string, in a limited interpreter
grading_pool  warm interpreters forking one limited process per answer (tasks.py grade)
notebook    setup(): the first code cell of every lesson
faults      run a kernel once and capture what happened; parts of a fault report
widgets     run a kernel under chosen settings and judge it; the launch explorer
traces      read a launch's trace: warp timelines, passes, barrier counts
warps       lanes of a warp: masks, lane ranges, shuffles
occupancy   blocks per SM; shared-memory sizes from the compiled kernel
cost_model  the barrier-cost model fitted to the H200 measurements
pictures    figures of traces, read maps and measured costs
"""

__all__ = ["grading"]
