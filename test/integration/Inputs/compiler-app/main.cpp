// Compiles a .pt2 held in memory with the installed compiler library, runs
// the program with the runtime library, and prints what it got.
//
//   compile-and-run model.pt2 input.npy

#include <duet/compiler.h>
#include <duet/runtime.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<char> bytes{std::istreambuf_iterator<char>(file),
                          std::istreambuf_iterator<char>()};
  duet::compiler::Result compiled;
  duet::Status status = duet::compiler::compileBuffer(
      bytes.data(), bytes.size(), {}, compiled, "model-in-memory.pt2");
  if (!status) {
    std::fprintf(stderr, "error: %s\n", status.message().c_str());
    return static_cast<int>(status.code());
  }
  std::unique_ptr<duet::runtime::Model> model;
  status = duet::runtime::Model::loadFromBytes(
      compiled.program.data(), compiled.program.size(), model);
  if (status)
    status = model->setInputFromNpy(0, argv[2]);
  if (status)
    status = model->run();
  std::vector<float> out;
  if (status)
    status = model->outputAsFloat32(0, out);
  if (!status) {
    std::fprintf(stderr, "error: %s\n", status.message().c_str());
    return static_cast<int>(status.code());
  }
  std::string counts;
  for (const auto &[backend, count] : compiled.backendOps)
    counts += backend + " " + std::to_string(count) + ", ";
  std::printf("compiled %zu ops (%sportable %zu) into %zu bytes; output 0 "
              "has %zu values\n",
              compiled.ops, counts.c_str(), compiled.portableOps,
              compiled.program.size(), out.size());

  const char garbage[] = "not a model";
  status = duet::compiler::compileBuffer(garbage, sizeof garbage, {}, compiled,
                                         "garbage.pt2");
  std::printf("garbage: code %d: %s\n", static_cast<int>(status.code()),
              status.message().c_str());
  return 0;
}
