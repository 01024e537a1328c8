//===- DuetModule.cpp - the _duet extension module of the duet package ----===//
//
// A thin pybind11 layer over duet's installed C++ API (include/duet/): it
// turns Status values into the Python exceptions of duet/__init__.py and
// NumPy arrays into TensorViews. Policy (argument mapping, file rules, the
// torch dispatch) lives in the Python package; the GIL is released around
// every call that compiles or runs.
//
//===----------------------------------------------------------------------===//

#include "duet/compiler.h"
#include "duet/runtime.h"
#include "runtime/core/AtomicFile.h"
#include "runtime/core/DType.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// Raises the Python error for a failed Status: duet/__init__.py maps the
/// code to an exception class.
void check(const duet::Status &status) {
  if (status)
    return;
  py::object raise = py::module_::import("duet._errors").attr("raise_status");
  raise(static_cast<int>(status.code()), status.message());
  throw py::error_already_set();
}

/// The NumPy dtype a program dtype is handed over as: NumPy knows duet's
/// dtype names, bfloat16 excepted, which goes as float32.
py::dtype numpyDtype(duet::runtime::DType dtype) {
  return py::dtype(dtype == duet::runtime::DType::bfloat16
                       ? "float32"
                       : duet::runtime::dtypeName(dtype));
}

py::list tensorInfos(const std::vector<duet::runtime::TensorInfo> &infos) {
  py::list list;
  for (const duet::runtime::TensorInfo &info : infos)
    list.append(py::make_tuple(info.name, duet::runtime::dtypeName(info.dtype),
                               py::tuple(py::cast(info.shape))));
  return list;
}

/// A loaded program and the arrays it last ran on.
class PyModel {
public:
  explicit PyModel(std::unique_ptr<duet::runtime::Model> model)
      : model_(std::move(model)) {}

  py::list inputs() const { return tensorInfos(model_->inputs()); }
  py::list outputs() const { return tensorInfos(model_->outputs()); }
  std::string name() const { return model_->name(); }

  /// `arrays` are C-contiguous arrays already of the dtype and shape the
  /// Python side checked; bfloat16 inputs come as float32.
  py::list run(const std::vector<py::array> &arrays) {
    const auto &inputs = model_->inputs();
    if (arrays.size() != inputs.size())
      check(duet::Status(duet::ErrorCode::badInput,
                         model_->name() + ": the model takes " +
                             std::to_string(inputs.size()) +
                             " input(s), given " +
                             std::to_string(arrays.size())));
    std::vector<uint16_t> rounded;
    for (size_t i = 0; i < arrays.size(); ++i) {
      duet::runtime::TensorView view;
      view.dtype = inputs[i].dtype;
      view.shape.assign(arrays[i].shape(),
                        arrays[i].shape() + arrays[i].ndim());
      view.data = arrays[i].data();
      // bfloat16 comes as float32 (NumPy has no bfloat16): rounded to
      // nearest even, as `duet run` rounds a float32 .npy file.
      if (view.dtype == duet::runtime::DType::bfloat16) {
        const float *values = static_cast<const float *>(arrays[i].data());
        rounded.resize(arrays[i].size());
        for (size_t k = 0; k < rounded.size(); ++k)
          rounded[k] = duet::rt::floatToBf16(values[k]);
        view.data = rounded.data();
      }
      check(model_->setInput(i, view));
    }
    duet::Status status;
    {
      py::gil_scoped_release release;
      status = model_->run();
    }
    check(status);
    py::list results;
    for (size_t i = 0; i < model_->outputCount(); ++i) {
      const duet::runtime::TensorInfo &info = model_->outputs()[i];
      py::array out(numpyDtype(info.dtype), info.shape);
      if (info.dtype == duet::runtime::DType::bfloat16) {
        std::vector<float> values;
        check(model_->outputAsFloat32(i, values));
        std::memcpy(out.mutable_data(), values.data(),
                    values.size() * sizeof(float));
      } else {
        std::memcpy(out.mutable_data(), model_->output(i).data, info.bytes);
      }
      results.append(out);
    }
    return results;
  }

private:
  std::unique_ptr<duet::runtime::Model> model_;
};

/// Loads a program given as a path or as bytes (`name` stands for them in
/// messages).
PyModel load(const py::object &source, bool isPath, const std::string &name,
             bool reference, double maxWork) {
  duet::runtime::LoadOptions options;
  options.reference = reference;
  options.maxWork = maxWork;
  std::unique_ptr<duet::runtime::Model> model;
  duet::Status status;
  if (isPath) {
    std::string path = source.cast<std::string>();
    py::gil_scoped_release release;
    status = duet::runtime::Model::load(path, model, options);
  } else {
    std::string_view bytes = source.cast<py::bytes>();
    py::gil_scoped_release release;
    status = duet::runtime::Model::loadFromBytes(bytes.data(), bytes.size(),
                                                 model, options, name);
  }
  check(status);
  return PyModel(std::move(model));
}

/// Compiles a .pt2 archive given as a path or as bytes; returns (program
/// bytes, report JSON).
py::tuple
compile(const py::object &source, bool isPath,
        const std::vector<std::string> &backends,
        const std::vector<std::pair<std::string, std::string>> &backendOptions,
        const std::string &placement, bool strict, const std::string &name,
        double maxWork) {
  duet::compiler::Options options;
  options.maxWork = maxWork;
  options.backends = backends;
  options.placement = placement;
  options.backendOptions = backendOptions;
  options.strict = strict;
  duet::compiler::Result result;
  duet::Status status;
  if (isPath) {
    std::string path = source.cast<std::string>();
    py::gil_scoped_release release;
    status = duet::compiler::compileFile(path, options, result);
  } else {
    std::string_view bytes = source.cast<py::bytes>();
    py::gil_scoped_release release;
    status = duet::compiler::compileBuffer(bytes.data(), bytes.size(), options,
                                           result, name);
  }
  check(status);
  return py::make_tuple(
      py::bytes(reinterpret_cast<const char *>(result.program.data()),
                result.program.size()),
      result.reportJson);
}

/// Writes `data` to `path` as every duet tool writes its files
/// (runtime/core/AtomicFile.h): whole, or not at all.
void writeFile(const std::string &path, const py::bytes &data) {
  std::string_view bytes = data;
  duet::rt::Status status;
  {
    py::gil_scoped_release release;
    status = duet::rt::writeFileAtomically(path, bytes.data(), bytes.size());
  }
  if (!status)
    check(duet::Status(duet::ErrorCode::ioError, status.message()));
}

} // namespace

PYBIND11_MODULE(_duet, m) {
  m.doc() = "duet's C++ API (include/duet/); use the duet package instead.";
  m.def("compile", &compile, py::arg("source"), py::arg("is_path"),
        py::arg("backends"), py::arg("backend_options"), py::arg("placement"),
        py::arg("strict"), py::arg("name"), py::arg("max_work"));
  m.def("load", &load, py::arg("source"), py::arg("is_path"), py::arg("name"),
        py::arg("reference"), py::arg("max_work"));
  m.def("write_file", &writeFile, py::arg("path"), py::arg("data"));
  m.def("compiler_backends", &duet::compiler::availableBackends);
  m.def("runtime_backends", &duet::runtime::availableBackends);
  py::class_<PyModel>(m, "Model")
      .def_property_readonly("inputs", &PyModel::inputs)
      .def_property_readonly("outputs", &PyModel::outputs)
      .def_property_readonly("name", &PyModel::name)
      .def("run", &PyModel::run, py::arg("arrays"));
}
