"""What the Python package's tests share: the fixtures of test/models and the
suites' fp32 tolerance."""
import os
import sys

import numpy

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")


def model(name):
    return os.path.join(MODELS, name)


def npy(name):
    return numpy.load(model(name))


def check_close(test, out, ref, rtol=1e-4, atol=1e-5):
    """The suites' tolerance, fp32 by default: max|out-ref| <= rtol*max|ref| +
    atol (bfloat16: 2e-2, 1e-2; test/e2e/lit.local.cfg)."""
    test.assertEqual(out.shape, ref.shape)
    out, ref = out.astype(numpy.float64), ref.astype(numpy.float64)
    error = float(numpy.max(numpy.abs(out - ref))) if ref.size else 0.0
    bound = rtol * (float(numpy.max(numpy.abs(ref))) if ref.size else 0.0) + atol
    test.assertLessEqual(error, bound, "max|out-ref| = %g > %g" % (error, bound))


def main():
    import unittest
    sys.exit(0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1)


def read(path):
    with open(path, "rb") as f:
        return f.read()
