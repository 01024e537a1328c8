// The partitioner's parts as C++ users see them: texture extents, device
// profiles, the registered backends, the consistency of each backend's rule
// table, and the grouping's promise that partitions are convex, on many
// random graphs.

#include "partitioners/Partitioner.h"
#include "partitioners/common/Grouping.h"
#include "partitioners/vulkan/rules/DeviceProfile.h"
#include "partitioners/vulkan/rules/VulkanRules.h"
#include "partitioners/xnnpack/rules/XnnpackRules.h"

#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace mlir;
using namespace duet;
using namespace duet::partition;

namespace {

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    auto *c = new MLIRContext();
    c->loadDialect<aten::AtenDialect, DuetDialect, arith::ArithDialect,
                   func::FuncDialect>();
    return c;
  }();
  return *ctx;
}

std::string errorText(llvm::Error error) {
  return llvm::toString(std::move(error));
}

/// Whether `expected` holds a value; consumes its error otherwise, saying it.
template <typename T> bool holds(llvm::Expected<T> &expected) {
  if (expected)
    return true;
  UNSCOPED_INFO(errorText(expected.takeError()));
  return false;
}

} // namespace

TEST_CASE("texture extents follow the packing of (N, C, H, W)", "[vulkan]") {
  using V = SmallVector<int64_t, 3>;
  // YOLOv8's head output, rank 3: N does not count.
  CHECK(textureExtents({1, 84, 8400}, PackedDim::width_packed) ==
        V{2100, 84, 1});
  CHECK(textureExtents({1, 84, 8400}, PackedDim::height_packed) ==
        V{8400, 21, 1});
  CHECK(textureExtents({1, 84, 8400}, PackedDim::channels_packed) ==
        V{8400, 84, 1});
  // Rank 4: N multiplies the depth.
  CHECK(textureExtents({2, 5, 3, 7}, PackedDim::width_packed) == V{2, 3, 10});
  CHECK(textureExtents({2, 5, 3, 7}, PackedDim::channels_packed) == V{7, 3, 4});
  // Missing dims are 1; a scalar is one texel.
  CHECK(textureExtents({9}, PackedDim::height_packed) == V{9, 1, 1});
  CHECK(textureExtents({}, PackedDim::channels_packed) == V{1, 1, 1});
}

TEST_CASE("every built-in device profile parses and says where its numbers "
          "come from",
          "[vulkan][profile]") {
  std::vector<std::string> names = builtinProfileNames();
  for (const char *required : {"generic", "powervr-dxt-48-1536", "adreno",
                               "mali", "nvidia-desktop", "lavapipe"})
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  for (const std::string &name : names) {
    INFO(name);
    auto profile = loadDeviceProfile(name);
    REQUIRE(holds(profile));
    CHECK(profile->name == name);
    CHECK(profile->source.size() > 20);
    CHECK(profile->maxImageDimension3D >= 256);
    CHECK(profile->maxStorageBufferRange >= 134217728);
  }
  for (auto [name, extent] : {std::pair<const char *, int64_t>{"generic", 2048},
                              {"nvidia-desktop", 16384},
                              {"lavapipe", 4096}}) {
    auto profile = loadDeviceProfile(name);
    REQUIRE(holds(profile));
    CHECK(profile->maxImageDimension3D == extent);
  }
}

TEST_CASE("a bad profile is an error that says what is wrong",
          "[vulkan][profile]") {
  auto missing = parseDeviceProfile(R"({"name": "x", "source": "y",
      "maxImageDimension3D": 4096})",
                                    "t.json");
  REQUIRE(!static_cast<bool>(missing));
  CHECK(errorText(missing.takeError()) ==
        "device profile t.json: missing \"maxStorageBufferRange\"");
  auto negative = parseDeviceProfile(
      R"({"name": "x", "source": "y", "maxImageDimension3D": -1,
          "maxStorageBufferRange": 1})",
      "t.json");
  REQUIRE(!static_cast<bool>(negative));
  CHECK(errorText(negative.takeError()).find("from 1 to 4294967295") !=
        std::string::npos);
  auto notObject = parseDeviceProfile("[1, 2]", "t.json");
  REQUIRE(!static_cast<bool>(notObject));
  CHECK(errorText(notObject.takeError()) ==
        "device profile t.json: must be a JSON object");
  auto limits = resolveVulkanLimits("adreno", std::array<int64_t, 3>{1, 2, 3});
  REQUIRE(holds(limits));
  CHECK(limits->maxExtent == std::array<int64_t, 3>{1, 2, 3});
  CHECK(limits->maxStorageBufferRange == 134217728);
}

TEST_CASE("every built-in profile states costs for every backend and the "
          "portable kernels",
          "[profile][cost]") {
  for (const std::string &name : builtinProfileNames()) {
    INFO(name);
    auto profile = loadDeviceProfile(name);
    REQUIRE(holds(profile));
    REQUIRE(profile->costs.has_value());
    CHECK(profile->costs->source().size() > 20);
    for (const char *backend : {"vulkan", "xnnpack", "portable"}) {
      INFO(backend);
      const BackendCosts *costs = profile->costs->find(backend);
      REQUIRE(costs);
      for (double rate : costs->unitsPerUs)
        CHECK(rate > 0);
    }
    CHECK(profile->costs->find("portable")->callUs == 0);
  }
}

TEST_CASE("the work classes name registered ops, each once", "[cost]") {
  MLIRContext &ctx = context();
  std::set<std::string> seen;
  for (const auto &ops : rt::opsByWorkClass())
    for (std::string_view op : ops) {
      INFO(std::string(op));
      CHECK(RegisteredOperationName::lookup(op, &ctx).has_value());
      CHECK(seen.insert(std::string(op)).second);
    }
}

TEST_CASE("an op's work is counted from its shapes", "[cost]") {
  // A 3x3 convolution 8 -> 16 channels onto 10x10: 16*100 outputs, each
  // 8*9 multiply-adds; transposed, each of the 8*100 inputs is spread over
  // 16*9 (the weight is then [Cin, Cout, k, k]).
  rt::OpWork conv = rt::estimateWork("aten.convolution",
                                     {{1, 8, 10, 10}, {16, 8, 3, 3}, {16}},
                                     {{1, 16, 10, 10}});
  CHECK(conv.cls == rt::WorkClass::gemm);
  CHECK(conv.units == 16 * 100 * 8 * 9);
  rt::OpWork up = rt::estimateWork("aten.convolution",
                                   {{1, 8, 10, 10}, {8, 16, 3, 3}},
                                   {{1, 16, 20, 20}}, /*transposed=*/true);
  CHECK(up.units == 8 * 100 * 16 * 9);
  CHECK(rt::estimateWork("aten.linear", {{4, 32}, {64, 32}}, {{4, 64}}).units ==
        4 * 64 * 32);
  CHECK(rt::estimateWork("aten.addmm", {{64}, {4, 32}, {32, 64}}, {{4, 64}})
            .units == 4 * 64 * 32);
  // Attention: 2 * |query| * key length.
  CHECK(rt::estimateWork("aten.scaled_dot_product_attention",
                         {{1, 2, 5, 8}, {1, 2, 7, 8}, {1, 2, 7, 8}},
                         {{1, 2, 5, 8}})
            .units == 2 * 80 * 7);
  rt::OpWork softmax =
      rt::estimateWork("aten.softmax", {{2, 50}}, {{2, 50}});
  CHECK(softmax.cls == rt::WorkClass::reduce);
  CHECK(softmax.units == 100);
  rt::OpWork mean = rt::estimateWork("aten.mean", {{1, 8, 4, 4}}, {{1, 8, 1, 1}});
  CHECK(mean.units == 128);
  CHECK(rt::estimateWork("aten.permute", {{3, 4}}, {{4, 3}}).cls ==
        rt::WorkClass::data);
  CHECK(rt::estimateWork("aten.relu", {{3, 4}}, {{3, 4}}).cls ==
        rt::WorkClass::elementwise);
}

TEST_CASE("the rule tables name registered ops, once, and decompose only "
          "into native ops",
          "[rules]") {
  MLIRContext &ctx = context();
  auto registered = [&](StringRef name) {
    return RegisteredOperationName::lookup(name, &ctx).has_value();
  };
  auto checkTable = [&](auto table, const llvm::StringSet<> &native) {
    llvm::StringSet<> seen;
    for (const auto &rule : table) {
      INFO(rule.op.str());
      CHECK(registered(rule.op));
      CHECK(seen.insert(rule.op).second);
      CHECK((rule.lowering == Lowering::Decomposed) ==
            !rule.decomposesInto.empty());
      for (llvm::StringLiteral piece : rule.decomposesInto) {
        INFO(piece.str());
        CHECK(native.contains(piece));
      }
    }
  };
  VulkanLimits limits;
  VulkanRules vulkan(&ctx, limits);
  XnnpackRules xnnpack(&ctx, /*enableBf16=*/false);
  checkTable(VulkanRules::table(), vulkan.nativeOps());
  checkTable(XnnpackRules::table(), xnnpack.nativeOps());
  // The activations that must never be decomposed on the backend that has them.
  for (const char *op :
       {"aten.hardswish", "aten.hardsigmoid", "aten.silu", "aten.hardshrink"})
    CHECK(vulkan.nativeOps().contains(op));
  CHECK(xnnpack.nativeOps().contains("aten.hardswish"));
  CHECK_FALSE(xnnpack.nativeOps().contains("aten.silu"));
}

namespace {

/// A random graph of `size` ops in one function: each op reads one or two
/// earlier values (the argument included), relu or add.
func::FuncOp randomGraph(OpBuilder &builder, ModuleOp module, std::mt19937 &rng,
                         int size) {
  auto type = RankedTensorType::get({4}, builder.getF32Type());
  builder.setInsertionPointToEnd(module.getBody());
  auto function =
      builder.create<func::FuncOp>(builder.getUnknownLoc(), "graph",
                                   builder.getFunctionType({type}, {type}));
  Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  std::vector<Value> values = {body->getArgument(0)};
  for (int i = 0; i < size; ++i) {
    // Prefer recent values, so graphs have long chains as well as skips.
    auto pick = [&]() {
      std::uniform_int_distribution<int> back(
          0, std::min<int>(values.size() - 1, 4));
      return values[values.size() - 1 - back(rng)];
    };
    if (rng() % 2)
      values.push_back(
          builder.create<aten::ReluOp>(builder.getUnknownLoc(), type, pick()));
    else
      values.push_back(
          builder.create<aten::AddOp>(builder.getUnknownLoc(), type, pick(),
                                      pick(), builder.getF64FloatAttr(1.0)));
  }
  builder.create<func::ReturnOp>(builder.getUnknownLoc(), values.back());
  return function;
}

} // namespace

TEST_CASE("partitions are connected, of one backend, acyclic once "
          "contracted, and merged wherever merging keeps that",
          "[grouping]") {
  MLIRContext &ctx = context();
  OpBuilder builder(&ctx);
  std::mt19937 rng(20240613);
  for (int trial = 0; trial < 1000; ++trial) {
    OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
    int size = 2 + trial % 40;
    func::FuncOp function = randomGraph(builder, *module, rng, size);
    Block &block = function.getBody().front();
    std::vector<Operation *> ops;
    DenseMap<Operation *, int> assignment, position;
    for (Operation &op : block.without_terminator()) {
      position[&op] = ops.size();
      ops.push_back(&op);
      int backend = static_cast<int>(rng() % 3) - 1; // -1: portable
      if (backend >= 0)
        assignment[&op] = backend;
    }
    int n = ops.size();
    SmallVector<Partition> partitions = groupPartitions(block, assignment);
    // node -> partition index, or -1.
    std::vector<int> partitionOf(n, -1);
    for (auto [index, partition] : llvm::enumerate(partitions))
      for (Operation *op : partition.ops)
        partitionOf[position[op]] = index;
    // Whether the graph with each class of `classOf` (-1: own class)
    // contracted to one node is acyclic: Kahn's algorithm empties it.
    auto contractedAcyclic = [&](const std::vector<int> &classOf) {
      auto nodeOf = [&](int op) {
        return classOf[op] >= 0 ? classOf[op] : n + op;
      };
      std::map<int, std::set<int>> successors;
      std::map<int, int> pending;
      for (int op = 0; op < n; ++op)
        pending[nodeOf(op)];
      for (int op = 0; op < n; ++op)
        for (Value operand : ops[op]->getOperands())
          if (Operation *def = operand.getDefiningOp()) {
            int from = nodeOf(position[def]), to = nodeOf(op);
            if (from != to && successors[from].insert(to).second)
              ++pending[to];
          }
      std::vector<int> ready;
      for (auto [node, count] : pending)
        if (!count)
          ready.push_back(node);
      size_t done = 0;
      while (!ready.empty()) {
        int node = ready.back();
        ready.pop_back();
        ++done;
        for (int next : successors[node])
          if (--pending[next] == 0)
            ready.push_back(next);
      }
      return done == pending.size();
    };

    INFO("trial " << trial);
    CHECK(contractedAcyclic(partitionOf));
    for (auto [index, partition] : llvm::enumerate(partitions)) {
      llvm::DenseSet<int> members;
      for (Operation *op : partition.ops)
        members.insert(position[op]);
      // One backend, every op claimed by it.
      for (Operation *op : partition.ops)
        CHECK(assignment.lookup(op) == partition.backend);
      // Connected through direct edges inside the partition.
      llvm::DenseSet<int> reached = {position[partition.ops.front()]};
      for (bool grew = true; grew;) {
        grew = false;
        for (int m : members)
          for (Value operand : ops[m]->getOperands())
            if (Operation *def = operand.getDefiningOp()) {
              int d = position[def];
              if (members.count(d) && (reached.count(d) != reached.count(m))) {
                reached.insert(d);
                reached.insert(m);
                grew = true;
              }
            }
      }
      CHECK(reached.size() == members.size());
    }
    // Every claimed op is in a partition, and two partitions of one backend
    // joined by an edge could not be merged without closing a cycle.
    for (auto [op, backend] : assignment)
      CHECK(partitionOf[position[op]] >= 0);
    for (int op = 0; op < n; ++op)
      for (Value operand : ops[op]->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def)
          continue;
        int a = partitionOf[position[def]], b = partitionOf[op];
        if (a < 0 || b < 0 || a == b ||
            partitions[a].backend != partitions[b].backend)
          continue;
        std::vector<int> merged = partitionOf;
        for (int &index : merged)
          if (index == b)
            index = a;
        CHECK_FALSE(contractedAcyclic(merged));
      }

    // Outlining reorders the block so that every use still follows its def.
    auto delegates = outlinePartitions(
        block, partitions, {DelegateKind::vulkan, DelegateKind::xnnpack});
    REQUIRE(succeeded(delegates));
    CHECK(delegates->size() == partitions.size());
    CHECK(succeeded(verify(*module)));
  }
}

TEST_CASE("every backend of the dialect is registered once, with a title, "
          "options of distinct names and rows of registered ops",
          "[backends]") {
  MLIRContext &ctx = context();
  for (uint32_t value = 0; value <= getMaxEnumValForDelegateKind(); ++value) {
    std::optional<DelegateKind> kind = symbolizeDelegateKind(value);
    REQUIRE(kind);
    const BackendLowering *backend =
        findBackendLowering(stringifyDelegateKind(*kind));
    REQUIRE(backend);
    CHECK(backend->kind() == *kind);
  }
  llvm::StringSet<> names, options;
  for (const BackendLowering *backend : backendLowerings()) {
    INFO(backend->name().str());
    CHECK(names.insert(backend->name()).second);
    CHECK(!backend->title().empty());
    // Every option is a flag of `duet compile`, so names are distinct
    // across backends.
    for (const OptionSpec &spec : backend->options()) {
      INFO(spec.name.str());
      CHECK(options.insert(spec.name).second);
      CHECK(!spec.help.empty());
    }
    for (const OpDoc &doc : backend->describeOps()) {
      INFO(doc.op.str());
      CHECK(RegisteredOperationName::lookup(doc.op, &ctx).has_value());
    }
  }
  CHECK(names.size() == knownBackends().size());
}

TEST_CASE("docs/partitioning.md lists every op of each rule table in its "
          "backend's section",
          "[rules][docs]") {
  std::ifstream file(std::string(DUET_SOURCE_DIR) + "/docs/partitioning.md");
  REQUIRE(file.good());
  std::string docs((std::istreambuf_iterator<char>(file)),
                   std::istreambuf_iterator<char>());
  size_t vulkanAt = docs.find("## Vulkan rules");
  size_t xnnpackAt = docs.find("## XNNPACK rules");
  size_t reportAt = docs.find("## The report");
  REQUIRE(vulkanAt != std::string::npos);
  REQUIRE(xnnpackAt != std::string::npos);
  REQUIRE(reportAt != std::string::npos);
  std::string vulkanDocs = docs.substr(vulkanAt, xnnpackAt - vulkanAt);
  std::string xnnpackDocs = docs.substr(xnnpackAt, reportAt - xnnpackAt);
  for (const VulkanRule &rule : VulkanRules::table()) {
    INFO(rule.op.str());
    CHECK(vulkanDocs.find("`" + rule.op.str() + "`") != std::string::npos);
  }
  for (const XnnpackRule &rule : XnnpackRules::table()) {
    INFO(rule.op.str());
    CHECK(xnnpackDocs.find("`" + rule.op.str() + "`") != std::string::npos);
  }
}

TEST_CASE("with no delegate backend every op is portable and the module "
          "is unchanged",
          "[report]") {
  MLIRContext &ctx = context();
  OpBuilder builder(&ctx);
  std::mt19937 rng(7);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  randomGraph(builder, *module, rng, 5);
  PartitionReport report = portableReport(*module);
  REQUIRE(report.ops.size() == 5);
  for (const OpDecision &op : report.ops) {
    CHECK(op.backend == "portable");
    CHECK(op.partition == -1);
    CHECK(op.rejections.empty());
  }
  CHECK(report.ops[2].node == "#2");
  CHECK(portableOps(report).size() == 5);
  CHECK(
      module->getBody()->front().getRegion(0).front().getOperations().size() ==
      6);
}
