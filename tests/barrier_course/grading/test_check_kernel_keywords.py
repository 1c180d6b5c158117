"""check_kernel's keywords say one thing each: ``on_gpu=`` is whether the check also runs on
the GPU; ``gpu=``, its old spelling, still works for notebooks written with it, with a
DeprecationWarning naming the new keyword (``gpu=`` names a GPU model in the timing API)."""

import warnings

import numpy as np
import pytest

from barrier_course.grading.checks import KernelCheckFailed, check_kernel

COPY = 'extern "C" __global__ void copy(const float *a, float *b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i]; }'


def make_args(n, block, rng):
    return ((n + block - 1) // block,), (rng.random(n).astype(np.float32), np.full(n, np.nan, np.float32), np.int32(n))


def reference(args, n, block):
    return {1: args[0]}


def check(**keywords):
    check_kernel(COPY, "copy", make_args=make_args, reference=reference, block_sizes=(32,),
                 sizes=(40,), schedules=("lockstep",), quiet=True, **keywords)


def test_on_gpu_false_checks_on_the_simulator_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(on_gpu=False)


def test_on_gpu_true_without_a_gpu_fails_the_check_saying_so(monkeypatch):
    monkeypatch.setenv("BARRIER_COURSE_NO_GPU", "1")
    with pytest.raises(KernelCheckFailed, match="needs a GPU"):
        check(on_gpu=True)


def test_the_old_gpu_keyword_still_works_with_a_warning_naming_on_gpu():
    with pytest.warns(DeprecationWarning, match="on_gpu="):
        check(gpu=False)


def test_both_spellings_at_once_are_refused():
    with pytest.raises(TypeError, match="on_gpu"):
        check(on_gpu=False, gpu=False)
