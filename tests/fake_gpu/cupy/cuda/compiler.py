class CompileException(Exception):
    pass
