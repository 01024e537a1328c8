//===- ShaderEnums.cpp - writes the shaders' enum constants ---------------===//
//
// A build-time tool: `duet-shader-enums OUT UNARY` writes duet_enums.glsl,
// which tensor.glsl includes, with one `#define <ENUM>_<VALUE> <number>` for
// each value of every enum a shader switches on (UnaryOp::GeluErf becomes
// UNARY_OP_GELU_ERF). It reads them from the headers flatc generated from
// runtime/schema, so the shaders, the runtime and the compiler share one
// numbering, and no shader spells a number of its own. Defines rather than
// constants, so that they can initialize specialization constants.
//
// It also fails the build when activation.glsl (the formulas of unary.comp
// and of the products' epilogues) has no `case` for a UnaryOp: every unary
// op of the aten dialect is placed on Vulkan (the rule table lists them
// all), so a missing formula would otherwise compute the identity.
//
//===----------------------------------------------------------------------===//

#include "runtime/schema/types_generated.h"
#include "runtime/schema/vulkan_generated.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

/// "GeluErf" or "channelsPacked" as "GELU_ERF" or "CHANNELS_PACKED".
std::string macroCase(const char *name) {
  std::string out;
  for (const char *c = name; *c; ++c) {
    if (std::isupper(static_cast<unsigned char>(*c)) && c != name &&
        !std::isupper(static_cast<unsigned char>(c[-1])))
      out += '_';
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
  }
  return out;
}

/// Writes the defines of enum `name`, whose values and value names flatc
/// generated as `values` and `valueName`.
template <typename Enum, size_t N>
void writeEnum(std::ofstream &out, const char *name, const Enum (&values)[N],
               const char *(*valueName)(Enum)) {
  out << "\n// " << name << "\n";
  for (Enum value : values)
    out << "#define " << macroCase(name) << "_" << macroCase(valueName(value))
        << " " << static_cast<int>(value) << "\n";
}

/// Whether the shader at `path` has a `case UNARY_OP_<value>:` for every
/// UnaryOp; names the first that has none.
bool checkUnaryCases(const char *tool, const char *path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s\n", tool, path);
    return false;
  }
  namespace vk = duet::vulkan::schema;
  for (vk::UnaryOp op : vk::EnumValuesUnaryOp()) {
    std::string label =
        "case UNARY_OP_" + macroCase(vk::EnumNameUnaryOp(op)) + ":";
    if (text.str().find(label) == std::string::npos) {
      std::fprintf(
          stderr,
          "%s: %s has no '%s': UnaryOp::%s (runtime/schema/vulkan.fbs) "
          "needs its formula in the shader\n",
          tool, path, label.c_str(), vk::EnumNameUnaryOp(op));
      return false;
    }
  }
  return true;
}

} // namespace

#define DUET_WRITE_ENUM(out, ns, Enum)                                         \
  writeEnum(out, #Enum, ns::EnumValues##Enum(), ns::EnumName##Enum)

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s duet_enums.glsl activation.glsl\n",
                 argv[0]);
    return 2;
  }
  if (!checkUnaryCases(argv[0], argv[2]))
    return 1;
  std::ofstream out(argv[1]);
  out << "// duet_enums.glsl - generated at build time by "
         "runtime/backends/vulkan/ShaderEnums.cpp\n"
         "// from runtime/schema/types.fbs and vulkan.fbs; do not edit.\n";
  DUET_WRITE_ENUM(out, duet::rt, Layout);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, UnaryOp);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, BinaryOp);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, ReduceOp);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, PoolKind);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, GatherKind);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, ConvKernel);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, IndexKind);
  DUET_WRITE_ENUM(out, duet::vulkan::schema, ScanOp);
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
    return 1;
  }
  return 0;
}
