"""The front end: CUDA source text to C99 that pycparser parses (preprocess, templates,
Cooperative Groups spellings, NVRTC's environment), C types, and the compiler that turns
a source into Programs (parse, lower, generate code; cached).
"""
