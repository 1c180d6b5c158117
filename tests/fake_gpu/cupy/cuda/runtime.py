def getDeviceCount():
    # No device to measure or to "prove it on": cells that time kernels or compare with a
    # real GPU skip themselves (simcore.gpu_available() is False), as on a machine without
    # one. Launches through simcore's backend="cupy" still run (see ../__init__.py).
    return 0


def getDeviceProperties(device_id):
    return {"name": b"fake GPU (the simulator, checks off)", "major": 9, "minor": 0}


def deviceSynchronize():
    return None
