"""What the lessons use: setup(), fault sections, widgets, traces, warps, occupancy, the
barrier-cost model, pictures, the step-through player, tuning, handouts.
"""
