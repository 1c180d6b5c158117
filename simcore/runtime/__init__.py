"""The run time: a launch (runner), the step loop (engine) over the lane state of a wave (wave),
sync resolution, barriers' phases, memory, the launch context of generated code, the
watchdog and the livelock watch.
"""
