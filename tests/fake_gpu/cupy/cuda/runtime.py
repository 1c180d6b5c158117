def getDeviceCount():
    return 1


def getDeviceProperties(device_id):
    return {"name": b"fake GPU (the simulator, checks off)", "major": 9, "minor": 0}


def deviceSynchronize():
    return None
