//===- XnnpackBlob.h - the records of an XNNPACK partition blob -*- C++ -*-===//
//
// The values, nodes and host copies of one `duet.delegate <xnnpack>` as the
// blob of runtime/schema/xnnpack.fbs holds them, and their serialization:
// each node in the subgraph step its op was given, each copy between the
// subgraphs it was placed between, in the order they were added.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKBLOB_H
#define DUET_PARTITIONERS_XNNPACK_XNNPACKBLOB_H

#include "runtime/schema/xnnpack_generated.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace duet::xnnpack {

namespace fb = ::duet::xnnpack::schema;

/// A node operand left out (a convolution or fully connected without bias).
constexpr uint32_t kNoValue = 0xFFFFFFFFu;

struct WindowRec {
  std::array<uint32_t, 4> padding = {0, 0, 0, 0};
  std::array<uint32_t, 2> kernel = {1, 1};
  std::array<uint32_t, 2> stride = {1, 1};
  std::array<uint32_t, 2> dilation = {1, 1};
  std::array<uint32_t, 2> adjustment = {0, 0};
  uint32_t groups = 1;
  uint64_t groupInputChannels = 0;
  uint64_t groupOutputChannels = 0;
};

struct NodeRec {
  fb::NodeType type = fb::NodeType::Clamp;
  std::vector<uint32_t> inputs;
  uint32_t output = 0;
  float outputMin = -std::numeric_limits<float>::infinity();
  float outputMax = std::numeric_limits<float>::infinity();
  std::optional<WindowRec> window;
  float scalar = 0;
  std::vector<uint64_t> shape;
  bool alignCorners = false;
  /// The subgraph step it runs in.
  int64_t subgraph = 0;
  /// The program tensor it computes and whether its output is that tensor
  /// in NHWC (xnnpack.fbs, Node.tensor).
  int32_t tensor = -1;
  bool tensorNhwc = false;
};

/// How a quantized value's integers map to real values (xnnpack.fbs,
/// Value): one zero point and scale (Qint8), or a scale per channel.
struct QuantRec {
  int32_t zeroPoint = 0;
  float scale = 1;
  std::vector<float> channelScales;
  uint32_t channelDim = 0;
};

struct ValueRec {
  fb::ValueKind kind = fb::ValueKind::Internal;
  int32_t index = -1;
  fb::DataType type = fb::DataType::Fp32;
  std::vector<uint64_t> dims;
  QuantRec quant;
};

struct CopyRec {
  uint32_t input;
  uint32_t output;
  std::vector<uint8_t> permutation;
  /// It runs before subgraph `subgraph` (after subgraph - 1).
  int64_t subgraph;
};

/// One partition's blob as it is being written.
class BlobRecords {
public:
  uint32_t addValue(ValueRec value) {
    values_.push_back(std::move(value));
    return static_cast<uint32_t>(values_.size() - 1);
  }
  ValueRec &value(uint32_t id) { return values_[id]; }

  /// Adds `node` and its output value, of `type` and `dims` (and `quant`
  /// for a quantized type).
  uint32_t addNode(NodeRec node, fb::DataType type, std::vector<uint64_t> dims,
                   QuantRec quant = {});

  void addCopy(CopyRec copy) { copies_.push_back(std::move(copy)); }

  /// The FlatBuffer of the blob: for each subgraph in order, the copies that
  /// run before it and then the subgraph's nodes.
  std::vector<uint8_t> serialize() const;

private:
  std::vector<ValueRec> values_;
  std::vector<NodeRec> nodes_;
  std::vector<CopyRec> copies_;
};

} // namespace duet::xnnpack

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKBLOB_H
