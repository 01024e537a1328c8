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
    """The suites' tolerance, fp32 by default, per element as `duet run
    --expect` checks it: |out-ref| <= atol + rtol*|ref| (bfloat16: 2e-2, 1e-2;
    test/e2e/lit.local.cfg). NaN matches NaN."""
    test.assertEqual(out.shape, ref.shape)
    out, ref = out.astype(numpy.float64), ref.astype(numpy.float64)
    close = numpy.isclose(out, ref, rtol=rtol, atol=atol, equal_nan=True)
    if not close.all():
        worst = numpy.unravel_index(numpy.argmax(numpy.abs(out - ref) - rtol * numpy.abs(ref)),
                                    ref.shape)
        test.fail("%d of %d elements outside |out-ref| <= %g + %g*|ref|; the worst at %s: "
                  "%g for %g" % (close.size - int(close.sum()), close.size, atol, rtol,
                                 tuple(int(i) for i in worst), out[worst], ref[worst]))


def main():
    import unittest
    sys.exit(0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1)


def read(path):
    with open(path, "rb") as f:
        return f.read()
