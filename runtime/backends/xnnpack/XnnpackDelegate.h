//===- XnnpackDelegate.h - one XNNPACK partition, ready to run --*- C++ -*-===//
//
// What the XNNPACK backend makes of a delegate blob at load: the blob checked
// against the program (value ids, kinds, dims against the DelegateCall's
// tensors, constants, the order in which values are written and read), host
// buffers for the values that cross a step, and one XNNPACK runtime per
// Subgraph step. Running it walks the steps: each runtime is set up with the
// addresses of its external values only when they changed, and each Copy
// transposes or converts on the host. On a CPU with AVX-512 VNNI, a qint8
// convolution of one group runs on duet's own kernel (Qs8Convolution.h)
// instead, as a step of its own between the subgraphs before and after it.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_XNNPACK_XNNPACKDELEGATE_H
#define DUET_RUNTIME_BACKENDS_XNNPACK_XNNPACKDELEGATE_H

#include "runtime/backends/CallFaults.h"
#include "runtime/backends/xnnpack/HostCopy.h"
#include "runtime/backends/xnnpack/Qs8Convolution.h"
#include "runtime/core/Backend.h"
#include "runtime/core/Faults.h"
#include "runtime/core/Program.h"

#include <xnnpack.h>

#include <memory>
#include <variant>
#include <vector>

struct pthreadpool;
struct xnn_runtime;
struct xnn_subgraph;
namespace duet::xnnpack::schema {
struct Delegate;
struct Node;
} // namespace duet::xnnpack::schema

namespace duet::rt::xnnpack {

class XnnpackDelegate : public PreparedDelegate {
public:
  /// Checks delegate `index` of `program` (its blob `blob`) and creates its
  /// XNNPACK runtimes on `threadpool` (null: the calling thread), which
  /// `poolOwner` keeps alive as long as the delegate.
  static Status create(const Program &program, uint32_t index, ByteSpan blob,
                       std::shared_ptr<pthreadpool> poolOwner,
                       std::unique_ptr<PreparedDelegate> &prepared);
  ~XnnpackDelegate() override;

  /// Runs the steps on the DelegateCall's host tensors.
  Status run(const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs);

  /// One part per step: each host copy, each subgraph runtime (its
  /// xnn_setup_runtime when addresses changed and xnn_invoke_runtime) and
  /// each node on duet's own kernel. This
  /// XNNPACK (2022-02) has no per-operator profiling API, so a subgraph is
  /// the finest figure; its name lists the node types in it.
  void profileParts(std::vector<ProfilePart> &parts) const override;

  /// Under LoadOptions::observer: the delegate-internal tensors its nodes
  /// compute (Node.tensor), each given a host buffer, and read from there
  /// back into the program's layout and dtype (XnnpackDebug.cpp).
  std::vector<int32_t> observableTensors() const override {
    return observable_;
  }
  Status readObserved(int32_t id, const TensorView &out) const override;

  enum class Kind : uint8_t { internal, input, output, constant };
  /// One value of the blob as loaded (public for the subgraph builder).
  struct ValueSpec {
    Kind kind = Kind::internal;
    /// Input or output position.
    size_t index = 0;
    HostType type = HostType::f32;
    std::vector<size_t> dims;
    /// The XNNPACK datatype: fp32, fp16, or a quantized one with its
    /// qparams (xnnpack.fbs, Value).
    xnn_datatype datatype = xnn_datatype_fp32;
    int32_t zeroPoint = 0;
    float scale = 1;
    std::vector<float> channelScales;
    size_t channelDim = 0;
    /// Constant data in the program, or the delegate's host buffer of an
    /// internal value that crosses steps; null otherwise.
    const void *constant = nullptr;
    void *buffer = nullptr;
  };

private:
  struct SubgraphRun {
    xnn_runtime *runtime = nullptr;
    /// Its nodes (a blob subgraph's, or a run of them between nodes on
    /// duet's own kernels).
    std::vector<const ::duet::xnnpack::schema::Node *> nodes;
    /// Value ids by XNNPACK external id.
    std::vector<uint32_t> externals;
    /// The addresses the runtime was last set up with.
    std::vector<void *> bound;
    /// Whether it runs on the thread pool; a subgraph of little work runs
    /// on the calling thread (kThreadedWorkMin).
    bool threaded = true;
  };
  struct CopyRun {
    uint32_t input = 0;
    uint32_t output = 0;
    std::vector<uint8_t> permutation;
  };
  /// A qint8 convolution on duet's own kernel: value `input` (NHWC) into
  /// value `output`.
  struct ConvolutionRun {
    std::unique_ptr<Qs8Convolution> kernel;
    uint32_t input = 0;
    uint32_t output = 0;
    size_t batch = 0;
    bool threaded = true;
    /// Whether the pool's workers sleep after it (the last threaded step).
    bool yield = false;
  };

  /// A node that computes a program tensor (Node.tensor): its output value.
  struct NodeTensor {
    int32_t tensor = -1;
    uint32_t value = 0;
    bool nhwc = false;
  };
  /// A fault planted at the node writing `value`: that node writes
  /// `redirect` instead, and a node of the fault's writes `value` from it.
  struct PlantedFault {
    TensorFault fault;
    uint32_t value = 0;
    uint32_t redirect = 0;
    /// The fault's constant operand (one element, with XNN_EXTRA_BYTES).
    std::vector<uint8_t> constant;
  };

  explicit XnnpackDelegate(const runtime::FaultOptions &faults)
      : faults_(faults) {}
  /// Reads the nodes' program tensors, gives the observed ones host memory
  /// (`hostMemory`) and plans the faults of LoadOptions::faults that are
  /// this delegate's; an error names a fault it cannot plant.
  Status planDebugging(const Program &program, uint32_t index,
                       const ::duet::xnnpack::schema::Delegate &root,
                       std::vector<bool> &hostMemory);
  /// The fault planted at the node writing `value`, or null.
  const PlantedFault *plantedAt(uint32_t value) const;
  /// Defines the fault's node reading XNNPACK value `from` and writing `to`.
  Status defineFault(xnn_subgraph *subgraph, const PlantedFault &fault,
                     uint32_t from, uint32_t to);
  Status load(const Program &program, uint32_t index, ByteSpan blob);
  /// Reads the blob's values and checks each against the program tensor it
  /// stands for (dtype, element count, role).
  Status loadValues(const Program &program, const DelegateCall &call,
                    const ::duet::xnnpack::schema::Delegate &root);
  /// Checks the steps: every value written once before it is read, operand
  /// counts and shapes; `hostMemory` gets the values that need a host buffer
  /// (read by a copy, or crossing steps).
  Status checkSteps(const ::duet::xnnpack::schema::Delegate &root,
                    std::vector<bool> &hostMemory);
  /// A step as the delegate will run it (XnnpackDelegate.cpp).
  struct PlannedStep;
  /// The steps as they will run: the blob's copies, and its subgraphs split
  /// around the nodes duet's own kernel computes (Qs8Convolution: qint8
  /// convolutions of one group, when the CPU has AVX-512 VNNI,
  /// `xnnpackOnly` is off and no fault is planted at the node) into runs of
  /// the other nodes, each run on the pool or not. Every value two of them
  /// touch gets host memory (`hostMemory`), as one that crosses blob steps
  /// does; `lives` gets each value's first and last of them.
  void planSteps(const ::duet::xnnpack::schema::Delegate &root,
                 bool xnnpackOnly, std::vector<bool> &hostMemory,
                 std::vector<std::pair<int64_t, int64_t>> &lives,
                 std::vector<PlannedStep> &plan) const;
  /// Gives each internal value of `hostMemory` a host buffer, in one block
  /// where values that no step touches together (`lives`, from planSteps;
  /// null: none) share bytes.
  Status
  allocateHostBuffers(const std::vector<bool> &hostMemory,
                      const std::vector<std::pair<int64_t, int64_t>> *lives);
  /// Makes the planned steps: an XNNPACK runtime for each run of nodes,
  /// duet's kernel for each of its nodes, each copy.
  Status createRuntimes(const std::vector<PlannedStep> &plan);
  /// Defines `nodes` (blob step `s`'s nodes, numbered by `indices`) as one
  /// XNNPACK subgraph and appends its runtime to the steps: on the pool
  /// when `threaded`, whose workers sleep after it when `yield`.
  Status createSubgraph(
      size_t s, const std::vector<const ::duet::xnnpack::schema::Node *> &nodes,
      const std::vector<size_t> &indices, bool threaded, bool yield);
  /// The parameters of a node duet's convolution kernel can compute, or
  /// false.
  bool convolutionParams(const ::duet::xnnpack::schema::Node &node,
                         Qs8ConvolutionParams &params) const;
  /// Step `s` as a profile names it (profileParts).
  std::string stepName(size_t s) const;
  /// Runs step `s`.
  Status runStep(size_t s, const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs);
  /// The multiply-adds (elements for nodes without a filter) of a
  /// subgraph's nodes, to decide whether it is worth the thread pool.
  double subgraphWork(
      const std::vector<const ::duet::xnnpack::schema::Node *> &nodes) const;
  /// Checks that the dims of `node`'s output follow from its operands and
  /// parameters: XNNPACK trusts them, and would read or write past a buffer
  /// the blob describes wrongly.
  Status checkShapes(const ::duet::xnnpack::schema::Node &node,
                     const std::string &what) const;
  void *address(uint32_t id, const std::vector<TensorView> &inputs,
                const std::vector<TensorView> &outputs) const;

  std::string where_;
  std::shared_ptr<pthreadpool> pool_;
  size_t inputCount_ = 0;
  size_t outputCount_ = 0;
  std::vector<ValueSpec> values_;
  std::vector<std::variant<SubgraphRun, CopyRun, ConvolutionRun>> steps_;
  std::vector<void *> buffers_;
  /// When profiling: each step's name and its time in the latest run.
  std::vector<ProfilePart> stepTimes_;
  std::vector<NodeTensor> nodeTensors_;
  std::vector<int32_t> observable_;
  std::vector<PlantedFault> planted_;
  /// Its calls, counted against LoadOptions::faults.calls.
  CallFaults faults_;
};

} // namespace duet::rt::xnnpack

#endif // DUET_RUNTIME_BACKENDS_XNNPACK_XNNPACKDELEGATE_H
