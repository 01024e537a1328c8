"""Every exception class of duet raised by a real bad input, each carrying
duet's message and its exit-code category."""
import os
import tempfile
import unittest

import numpy

import duet
from fixtures import main, model, npy

PT2 = model("conv_bn_relu.training.pt2")


class ErrorsTest(unittest.TestCase):
    def assertDuetError(self, cls, code, call):
        with self.assertRaises(cls) as caught:
            call()
        self.assertIs(type(caught.exception), cls)
        self.assertEqual(caught.exception.code, code)
        self.assertIsInstance(caught.exception, duet.Error)
        self.assertTrue(str(caught.exception))
        return caught.exception

    def test_truncated_archive_is_bad_input(self):
        with open(PT2, "rb") as f:
            data = f.read()
        e = self.assertDuetError(duet.BadInputError, 2,
                                 lambda: duet.compile(data[: len(data) // 2]))
        self.assertIn("<bytes>", str(e))

    def test_unknown_op_is_unsupported(self):
        e = self.assertDuetError(duet.UnsupportedOpError, 3,
                                 lambda: duet.compile(model("bad_unknown_op.pt2")))
        self.assertIn("bad_unknown_op.pt2", str(e))

    def test_bad_backend_name(self):
        e = self.assertDuetError(duet.BadInputError, 2,
                                 lambda: duet.compile(PT2, backends=["nope"]))
        self.assertIn("nope", str(e))

    def test_bad_backend_option_value(self):
        self.assertDuetError(duet.BadInputError, 2,
                             lambda: duet.compile(PT2, texture_limits="x"))

    def test_strict_fallback(self):
        e = self.assertDuetError(
            duet.StrictModeError, 4,
            lambda: duet.compile(PT2, backends=["portable"], strict=True))
        self.assertIn("portable", str(e))

    def test_missing_files_are_bad_input_as_in_the_cli(self):
        self.assertDuetError(duet.BadInputError, 2,
                             lambda: duet.compile(model("no_such_model.pt2")))
        self.assertDuetError(duet.BadInputError, 2,
                             lambda: duet.load(model("no_such_program.duet")))

    def test_save_into_missing_folder_is_io_error(self):
        program = duet.compile(PT2, backends=["portable"])
        self.assertDuetError(duet.IOError, 5,
                             lambda: program.save("/nonexistent/folder/m.duet"))

    def test_save_that_cannot_finish_keeps_the_old_file(self):
        # The file size limit (`ulimit -f`, SIGXFSZ ignored) stops the write
        # midway: the old file keeps its bytes, no temporary file is left, and
        # the IOError names the path.
        import resource
        import signal
        program = duet.compile(PT2, backends=["portable"])
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.duet")
            with open(path, "wb") as f:
                f.write(b"old bytes\n")
            saved_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
            saved_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE,
                               (len(program.bytes) // 2, saved_limit[1]))
            try:
                e = self.assertDuetError(duet.IOError, 5,
                                         lambda: program.save(path))
            finally:
                resource.setrlimit(resource.RLIMIT_FSIZE, saved_limit)
                signal.signal(signal.SIGXFSZ, saved_handler)
            self.assertEqual(str(e), "cannot write '%s': File too large" % path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"old bytes\n")
            self.assertEqual(os.listdir(folder), ["m.duet"])

    def test_damaged_program_is_bad_input(self):
        data = duet.compile(PT2, backends=["portable"]).bytes
        self.assertDuetError(duet.BadInputError, 2,
                             lambda: duet.load(data[: len(data) // 2]))

    def test_wrong_input_shape_dtype_and_count(self):
        m = duet.load(duet.compile(PT2, backends=["portable"]).bytes)
        x = npy("conv_bn_relu.input0.npy")
        e = self.assertDuetError(duet.BadInputError, 2, lambda: m.run(x[:, :1]))
        self.assertIn("shape", str(e))
        e = self.assertDuetError(duet.BadInputError, 2,
                                 lambda: m.run(x.astype(numpy.float64)))
        self.assertIn("float64", str(e))
        self.assertDuetError(duet.BadInputError, 2, lambda: m.run(x, x))

    def test_failure_is_the_base_class(self):
        self.assertEqual(duet.Error.code, 1)
        for cls in (duet.BadInputError, duet.UnsupportedOpError,
                    duet.StrictModeError, duet.IOError):
            self.assertTrue(issubclass(cls, duet.Error))


if __name__ == "__main__":
    main()
