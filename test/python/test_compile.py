"""duet.compile from a path, bytes and a file object; Program's bytes, save,
report and signature; the torch dispatch with a fake ExportedProgram."""
import io
import os
import sys
import tempfile
import types
import unittest

import duet
from fixtures import check_close, main, model, npy, read

PT2 = model("conv_bn_relu.training.pt2")


class CompileTest(unittest.TestCase):
    def run_program(self, program):
        out = duet.load(program.bytes).run(npy("conv_bn_relu.input0.npy"))
        self.assertEqual(len(out), 1)
        check_close(self, out[0], npy("conv_bn_relu.output0.npy"))

    def test_from_path(self):
        self.run_program(duet.compile(PT2, backends=["portable"]))

    def test_from_pathlike(self):
        import pathlib
        self.run_program(duet.compile(pathlib.Path(PT2), backends=["portable"]))

    def test_from_bytes(self):
        with open(PT2, "rb") as f:
            self.run_program(duet.compile(f.read(), backends=["portable"]))

    def test_from_file_object(self):
        with open(PT2, "rb") as f:
            buffer = io.BytesIO(f.read())
        self.run_program(duet.compile(buffer, backends=["portable"]))

    def test_text_file_object_is_a_type_error(self):
        with self.assertRaisesRegex(TypeError, "binary mode"):
            duet.compile(io.StringIO("x"))

    def test_report_and_signature(self):
        program = duet.compile(PT2, backends=["xnnpack"])
        self.assertIsInstance(program.report, dict)
        self.assertIn("ops", program.report)
        self.assertGreater(program.report["summary"]["xnnpack"], 0)
        name, dtype, shape = program.inputs[0]
        self.assertEqual(dtype, "float32")
        self.assertEqual(shape, npy("conv_bn_relu.input0.npy").shape)
        self.assertEqual(program.outputs[0][2], npy("conv_bn_relu.output0.npy").shape)

    def test_backend_options_reach_the_compiler(self):
        program = duet.compile(PT2, backends="vulkan", target_profile="generic",
                               texture_limits=(2048, 1024, 512), enable_bf16=False)
        limits = program.report["vulkan_limits"]
        self.assertEqual(limits["max_image_extent"], [2048, 1024, 512])
        self.assertIn("profile generic", limits["origin"])
        self.assertEqual(program.report["backends"], ["vulkan"])
        bf16 = duet.compile(model("attention_bf16.aten.pt2"), backends=["xnnpack"],
                            enable_bf16=True)
        self.assertTrue(bf16.report["enable_bf16"])

    def test_placement_by_cost(self):
        # lavapipe's costs put nothing on Vulkan; by priority Vulkan is first.
        by_cost = duet.compile(PT2, backends="vulkan,xnnpack", target_profile="lavapipe",
                               placement="cost")
        self.assertEqual(by_cost.report["placement"]["mode"], "cost")
        self.assertEqual(by_cost.report["summary"]["vulkan"], 0)
        self.assertIn("estimated_us", by_cost.report["ops"][0])
        by_priority = duet.compile(PT2, backends="vulkan,xnnpack", target_profile="lavapipe")
        self.assertNotIn("placement", by_priority.report)
        self.assertGreater(by_priority.report["summary"]["vulkan"], 0)
        with self.assertRaisesRegex(duet.BadInputError, "placement must be"):
            duet.compile(PT2, placement="fastest")

    def test_save_writes_the_program_and_never_the_model(self):
        program = duet.compile(PT2, backends=["portable"])
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.duet")
            program.save(path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), program.bytes)
            self.assertEqual(os.listdir(folder), ["m.duet"])
            self.run_program(types.SimpleNamespace(bytes=read(path)))
            link = os.path.join(folder, "model.pt2")
            os.symlink(PT2, link)
            with self.assertRaisesRegex(duet.BadInputError, "compiled from"):
                duet.compile(link, backends=["portable"]).save(link)
        self.assertTrue(read(PT2).startswith(b"PK"))

    def test_exported_program_goes_through_torch_export_save(self):
        # A stand-in torch module: compile() must recognise the class and
        # hand it to torch.export.save.
        saved = []

        class ExportedProgram:
            pass

        def save(program, buffer):
            saved.append(program)
            buffer.write(read(PT2))

        export = types.ModuleType("torch.export")
        export.ExportedProgram, export.save = ExportedProgram, save
        torch = types.ModuleType("torch")
        torch.export, torch.__version__ = export, "2.5.1+cpu"
        old = {k: sys.modules.get(k) for k in ("torch", "torch.export")}
        sys.modules.update({"torch": torch, "torch.export": export})
        try:
            program = ExportedProgram()
            self.run_program(duet.compile(program, backends=["portable"]))
            self.assertEqual(saved, [program])
            with self.assertRaises(TypeError):
                duet.compile(object())
            torch.__version__ = "2.4.0"
            with self.assertRaisesRegex(duet.Error, "torch >= 2.5"):
                duet.compile(program)
        finally:
            for k, v in old.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v


if __name__ == "__main__":
    main()
