"""Model.run on the portable kernels and on XNNPACK against the eager outputs;
two threads running two models at once, and two threads sharing one model
(docs/api.md, "Threads")."""
import threading
import unittest

import numpy

import duet
from fixtures import check_close, main, model, npy


class RunTest(unittest.TestCase):
    def check_fixture(self, name, backends):
        program = duet.compile(model(name + ".training.pt2"), backends=backends)
        m = duet.load(program.bytes)
        inputs = [npy("%s.input%d.npy" % (name, i)) for i in range(len(m.inputs))]
        out = m.run(*inputs)
        self.assertEqual(len(out), len(m.outputs))
        for i, array in enumerate(out):
            check_close(self, array, npy("%s.output%d.npy" % (name, i)))

    def test_portable(self):
        self.check_fixture("conv_bn_relu", ["portable"])

    def test_int64_inputs(self):
        self.check_fixture("gather", ["portable"])
        self.check_fixture("bert_embeddings", None)

    def test_xnnpack(self):
        if "xnnpack" not in duet.runtime_backends():
            self.skipTest("this build has no XNNPACK")
        self.check_fixture("conv_bn_relu", ["xnnpack"])
        self.check_fixture("linear_bn_2d", ["xnnpack"])

    def test_bfloat16_as_float32(self):
        if "xnnpack" not in duet.runtime_backends():
            self.skipTest("this build has no XNNPACK")
        program = duet.compile(model("attention_bf16.aten.pt2"), backends=["xnnpack"],
                               enable_bf16=True)
        self.assertEqual(program.inputs[0][1], "bfloat16")
        m = duet.load(program.bytes)
        x = npy("attention_bf16.input0.npy")
        (out,) = m.run(x)
        self.assertEqual(out.dtype, numpy.float32)
        check_close(self, out, npy("attention_bf16.output0.npy"), rtol=2e-2, atol=1e-2)

    def test_load_from_path(self):
        import os
        import tempfile
        program = duet.compile(model("conv_bn_relu.training.pt2"), backends=["portable"])
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.duet")
            program.save(path)
            out = duet.load(path).run(npy("conv_bn_relu.input0.npy"))
        check_close(self, out[0], npy("conv_bn_relu.output0.npy"))

    def test_two_threads_two_models(self):
        cases = {"conv_bn_relu": ["xnnpack"], "linear_bn_2d": ["portable"]}
        models = {name: duet.load(duet.compile(model(name + ".training.pt2"),
                                               backends=backends).bytes)
                  for name, backends in cases.items()}
        results, errors = {}, []

        def work(name):
            try:
                for _ in range(20):
                    results[name] = models[name].run(npy(name + ".input0.npy"))
            except Exception as e:  # reported by the main thread
                errors.append(e)

        threads = [threading.Thread(target=work, args=(n,)) for n in cases]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for name in cases:
            check_close(self, results[name][0], npy(name + ".output0.npy"))

    def test_two_threads_one_model_take_turns(self):
        # Each thread runs its own input; calls on one Model take turns, so
        # each gets the output of its own input, bit for bit, every time.
        m = duet.load(duet.compile(model("conv_bn_relu.training.pt2"),
                                   backends=["portable"]).bytes)
        x = npy("conv_bn_relu.input0.npy")
        inputs = [x, (x * -0.5).astype(numpy.float32)]
        alone = [m.run(array)[0] for array in inputs]
        self.assertFalse(numpy.array_equal(alone[0], alone[1]))
        errors = []

        def work(index):
            try:
                for round in range(300):
                    (out,) = m.run(inputs[index])
                    if not numpy.array_equal(out, alone[index]):
                        errors.append("thread %d, round %d: another input's "
                                      "output" % (index, round))
                        return
            except Exception as e:  # reported by the main thread
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])


if __name__ == "__main__":
    main()
