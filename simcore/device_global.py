"""`RawModule.get_global(name)`: a module's `__device__` or `__constant__` variable, seen from the host.

CuPy's `RawModule.get_global(name)` returns a `cupy.cuda.MemoryPointer` to the variable (the
role of cudaMemcpyToSymbol / cudaMemcpyFromSymbol): users copy bytes with
`ptr.copy_from_host(host_address, nbytes)`, or wrap it as `cupy.ndarray(shape, dtype, ptr)`
and assign. simcore's kernels take numpy arrays, so `DeviceGlobal` offers both ways on the
variable itself, with the variable's own dtype and shape:

    mask = mod.get_global("mask")          # __constant__ float mask[9];
    mask.copy_from_host(h.ctypes.data, h.nbytes)   # as MemoryPointer.copy_from_host
    mask.copy_from_host(h)                 # a numpy array (or scalar): its bytes
    mask[...] = h                          # as ndarray assignment (numpy's casting)
    mask.set(h); mask.get()                # as cupy.ndarray.set / .get

The simulator keeps the bytes in the RawModule (kept between launches, as on the GPU); with
backend="cupy" the same object reads and writes the GPU's variable.
"""
import ctypes

import numpy as np

from .errors import LaunchError


class DeviceGlobal:
    def __init__(self, name, dtype, shape, backing, constant=False):
        self.name = name
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.constant = constant
        self._backing = backing       # .read() -> numpy array of dtype/shape; .write(numpy array)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def __repr__(self):
        kind = "__constant__" if self.constant else "__device__"
        return f"<simcore.DeviceGlobal {kind} {self.name}: {self.dtype} shape {self.shape}>"

    # ---- as cupy.ndarray
    def get(self):
        """A numpy copy of the variable."""
        return self._backing.read()

    def set(self, value):
        """Copy a host value into the variable (numpy's casting rules, broadcast to its shape)."""
        self[...] = value

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype)

    def __getitem__(self, key):
        return self.get()[key]

    def __setitem__(self, key, value):
        a = self.get()
        try:
            a[key] = value
        except (ValueError, TypeError, IndexError) as e:
            raise LaunchError(f"cannot assign to {self.name} ({self.dtype}, shape {self.shape}): {e}") from None
        self._backing.write(a)

    # ---- as cupy.cuda.MemoryPointer
    def copy_from_host(self, src, size=None):
        """Copy `size` bytes from the host: src is an address (int, ctypes.c_void_p) as for
        CuPy's MemoryPointer.copy_from_host, or a numpy array or scalar (size: its bytes)."""
        data = _host_bytes(src, size, self.nbytes, self.name)
        raw = self.get().reshape(-1).view(np.uint8).copy()
        raw[:data.size] = data
        self._backing.write(raw.view(self.dtype).reshape(self.shape))

    copy_from = copy_from_host

    def copy_to_host(self, dst, size=None):
        """Copy `size` bytes (default: all) to the host: dst is an address or a writable numpy array."""
        raw = self.get().reshape(-1).view(np.uint8)
        if isinstance(dst, np.ndarray):
            n = dst.nbytes if size is None else int(size)
            if n > dst.nbytes or n > raw.size or not dst.flags.c_contiguous:
                raise LaunchError(f"copy_to_host: {n} bytes do not fit ({self.name} has {raw.size}, the "
                                  f"array {dst.nbytes}, and it must be contiguous)")
            dst.reshape(-1).view(np.uint8)[:n] = raw[:n]
            return
        n = raw.size if size is None else int(size)
        if n > raw.size:
            raise LaunchError(f"copy_to_host: {self.name} has {raw.size} bytes, not {n}")
        ctypes.memmove(_address(dst), raw.ctypes.data, n)


def _address(p):
    if isinstance(p, ctypes.c_void_p):
        return p.value
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool):
        return int(p)
    raise LaunchError(f"expected a host address (an int such as array.ctypes.data) or a numpy array, "
                      f"not {type(p).__name__}")


def _host_bytes(src, size, capacity, name):
    if isinstance(src, (np.ndarray, np.generic)):
        a = np.ascontiguousarray(src)
        n = a.nbytes if size is None else int(size)
        if n > a.nbytes:
            raise LaunchError(f"copy_from_host: the array has {a.nbytes} bytes, not {n}")
        data = a.reshape(-1).view(np.uint8)[:n]
    else:
        if size is None:
            raise LaunchError("copy_from_host(address, size): give the number of bytes to copy")
        n = int(size)
        data = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(_address(src))).copy() if n else \
            np.zeros(0, np.uint8)
    if n > capacity:
        raise LaunchError(f"copy_from_host: {n} bytes do not fit in {name} ({capacity} bytes)")
    return data


class HostBacking:
    """The simulator's variable: the module's bytes."""

    def __init__(self, buf, dtype, shape):
        self.buf, self.dtype, self.shape = buf, dtype, shape

    def read(self):
        return self.buf.view(self.dtype).reshape(self.shape).copy()

    def write(self, a):
        self.buf[...] = np.ascontiguousarray(a, dtype=self.dtype).reshape(-1).view(np.uint8)


def variable_layout(var):
    """(dtype, shape) of a ModuleVariable, as numpy sees it."""
    t, shape = var.ctype, []
    while t.is_array:
        shape.append(t.length)
        t = t.base
    return t.dtype, tuple(shape)
