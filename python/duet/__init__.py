"""duet from Python: compile torch.export models into .duet programs and run
them on NumPy arrays (docs/python.md)."""

import json
import os
import threading

import numpy

from . import _duet
from ._errors import (BadInputError, Error, IOError, StrictModeError,
                      UnsupportedOpError)

__all__ = ["compile", "load", "Program", "Model", "Error", "BadInputError",
           "UnsupportedOpError", "StrictModeError", "IOError",
           "compiler_backends", "runtime_backends"]

compiler_backends = _duet.compiler_backends
runtime_backends = _duet.runtime_backends


# torch.export.save writes the archive format the importer reads from 2.5 on.
_TORCH_MINIMUM = (2, 5)


def _is_exported_program(model):
    """True for a torch.export.ExportedProgram; torch is imported only for a
    model that is no path, bytes or file object, and only where installed."""
    if isinstance(model, (str, bytes, bytearray, memoryview, os.PathLike)):
        return False
    try:
        import torch.export
    except ImportError:
        return False
    return isinstance(model, torch.export.ExportedProgram)


def _exported_program_bytes(program):
    import io

    import torch
    import torch.export
    version = tuple(int(part) for part in
                    torch.__version__.split("+")[0].split(".")[:2])
    if version < _TORCH_MINIMUM:
        raise Error("duet.compile: an ExportedProgram needs torch >= %d.%d, "
                    "this is torch %s; save it with torch.export.save and "
                    "compile the file" % (_TORCH_MINIMUM + (torch.__version__,)))
    buffer = io.BytesIO()
    torch.export.save(program, buffer)
    return buffer.getvalue()


def _model_source(model):
    """(source, is_path, name) for the compiler from what compile() takes."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fsdecode(os.fspath(model))
        return path, True, path
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), False, "<bytes>"
    if hasattr(model, "read"):
        data = model.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("duet.compile: the file object gave %s, not bytes; "
                            "open it in binary mode ('rb')" % type(data).__name__)
        return bytes(data), False, getattr(model, "name", "<file object>")
    if _is_exported_program(model):
        return _exported_program_bytes(model), False, "<ExportedProgram>"
    raise TypeError("duet.compile: model must be a path, bytes, a binary file "
                    "object or a torch.export.ExportedProgram, not %s"
                    % type(model).__name__)


def _backend_options(target_profile, texture_limits, enable_bf16, force_fp16):
    """The backend options of compiler::Options, named as `duet compile`'s
    flags without the dashes."""
    options = []
    if target_profile is not None:
        options.append(("target-profile", os.fspath(target_profile)))
    if texture_limits is not None:
        if not isinstance(texture_limits, str):
            texture_limits = ",".join(str(int(v)) for v in texture_limits)
        options.append(("texture-limits", texture_limits))
    if enable_bf16:
        options.append(("enable-bf16", "true"))
    if force_fp16:
        options.append(("force-fp16", "true"))
    return options


def compile(model, backends=None, target_profile=None, texture_limits=None,
            enable_bf16=False, force_fp16=False, strict=False, placement="priority",
            max_work=0):
    """Compiles a .pt2 archive (a path, bytes, a binary file object, or a
    torch.export.ExportedProgram when torch is installed) into a Program.

    backends: delegate backends in priority order (None: every backend this
    build can write; ["portable"]: no delegate). placement: "priority" (the
    first backend in that order that can run an op takes it) or "cost" (the
    least estimated time under the target profile's costs; docs/partitioning.md).
    Unlike `duet compile` without --backends, it never probes the machine. The
    other arguments are the `duet compile` flags of the same names (docs/cli.md);
    max_work is --max-work (0: the default limit, 1e15)."""
    source, is_path, name = _model_source(model)
    if isinstance(backends, str):
        backends = backends.split(",")
    program, report = _duet.compile(
        source, is_path, list(backends or []),
        _backend_options(target_profile, texture_limits, enable_bf16, force_fp16),
        str(placement), bool(strict), name, float(max_work))
    return Program(program, json.loads(report), source if is_path else None)


class Program:
    """A compiled .duet program: its bytes and its placement report."""

    def __init__(self, data, report, source_path=None):
        self._bytes = data
        self._report = report
        self._source_path = source_path
        self._model = None

    @property
    def bytes(self):
        """The .duet program file's bytes."""
        return self._bytes

    @property
    def report(self):
        """The placement report (docs/report-json.md) as a dict."""
        return self._report

    def _loaded(self):
        # The reference load reads the signature even where this runtime
        # lacks a delegate the program uses.
        if self._model is None:
            self._model = load(self._bytes, reference=True)
        return self._model

    @property
    def inputs(self):
        """[(name, dtype, shape)] of the program's inputs."""
        return self._loaded().inputs

    @property
    def outputs(self):
        """[(name, dtype, shape)] of the program's outputs."""
        return self._loaded().outputs

    def save(self, path):
        """Writes the program to `path` whole or not at all, flushed to the
        disk, as duet's tools write files; never over the model it was
        compiled from."""
        path = os.fspath(path)
        if self._source_path is not None and os.path.exists(path) and \
                os.path.samefile(path, self._source_path):
            raise BadInputError("'%s' is the model this program was compiled "
                                 "from; choose another output path" % path)
        _duet.write_file(os.fsdecode(path), self._bytes)


class Model:
    """A loaded program. run() may be called from several threads: calls on
    one Model take turns (the C++ Model serves one thread at a time and
    refuses overlapping calls; docs/api.md), separate Models run at the same
    time."""

    def __init__(self, native):
        self._native = native
        self._lock = threading.Lock()

    @property
    def inputs(self):
        """[(name, dtype, shape)] of the model's inputs."""
        return self._native.inputs

    @property
    def outputs(self):
        """[(name, dtype, shape)] of the model's outputs."""
        return self._native.outputs

    def run(self, *arrays):
        """Runs the model on NumPy arrays, one per input, and returns one array
        per output (bfloat16 as float32, float16 as float16)."""
        inputs = self.inputs
        if len(arrays) != len(inputs):
            raise BadInputError("%s: the model takes %d input(s), given %d"
                                % (self._native.name, len(inputs), len(arrays)))
        checked = []
        for index, (array, (name, dtype, shape)) in enumerate(zip(arrays, inputs)):
            array = numpy.asarray(array)
            expected = numpy.dtype("float32" if dtype == "bfloat16" else dtype)
            if array.dtype != expected:
                raise BadInputError("%s: input %d (%s) is %s, given %s" % (
                    self._native.name, index, name,
                    dtype + (" (pass float32)" if dtype == "bfloat16" else ""),
                    array.dtype))
            if tuple(array.shape) != tuple(shape):
                raise BadInputError("%s: input %d (%s) has shape %s, given %s"
                                    % (self._native.name, index, name,
                                       tuple(shape), tuple(array.shape)))
            checked.append(numpy.ascontiguousarray(array))
        with self._lock:
            return self._native.run(checked)


def load(program, reference=False, max_work=0):
    """Loads a .duet program from a path or from bytes. reference=True runs
    every op on the portable kernels (the numeric reference). max_work: the
    most work one run may take, as `duet run --max-work` (0: the default, 1e15)."""
    if isinstance(program, (str, os.PathLike)):
        path = os.fsdecode(os.fspath(program))
        return Model(_duet.load(path, True, path, reference, float(max_work)))
    if isinstance(program, Program):
        program = program.bytes
    if isinstance(program, (bytes, bytearray, memoryview)):
        return Model(_duet.load(bytes(program), False, "<bytes>", reference,
                                float(max_work)))
    raise TypeError("duet.load: program must be a path or bytes, not %s"
                    % type(program).__name__)
