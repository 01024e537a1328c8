//===- XnnpackBlob.cpp - the records of an XNNPACK partition blob ---------===//

#include "partitioners/xnnpack/emit/XnnpackBlob.h"

#include <algorithm>

namespace duet::xnnpack {

uint32_t BlobRecords::addNode(NodeRec node, fb::DataType type,
                              std::vector<uint64_t> dims, QuantRec quant) {
  ValueRec output;
  output.type = type;
  output.dims = std::move(dims);
  output.quant = std::move(quant);
  node.output = addValue(std::move(output));
  nodes_.push_back(std::move(node));
  return nodes_.back().output;
}

namespace {

flatbuffers::Offset<fb::Window> windowOf(flatbuffers::FlatBufferBuilder &fbb,
                                         const WindowRec &w) {
  std::vector<uint32_t> padding(w.padding.begin(), w.padding.end());
  std::vector<uint32_t> kernel(w.kernel.begin(), w.kernel.end());
  std::vector<uint32_t> stride(w.stride.begin(), w.stride.end());
  std::vector<uint32_t> dilation(w.dilation.begin(), w.dilation.end());
  std::vector<uint32_t> adjustment(w.adjustment.begin(), w.adjustment.end());
  return fb::CreateWindowDirect(fbb, &padding, &kernel, &stride, &dilation,
                                &adjustment, w.groups, w.groupInputChannels,
                                w.groupOutputChannels);
}

} // namespace

std::vector<uint8_t> BlobRecords::serialize() const {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Value>> values;
  for (const ValueRec &rec : values_) {
    bool channelwise =
        rec.type == fb::DataType::Qcint8 || rec.type == fb::DataType::Qcint32;
    values.push_back(fb::CreateValueDirect(
        fbb, rec.kind, rec.index, rec.type, &rec.dims, rec.quant.zeroPoint,
        rec.quant.scale, channelwise ? &rec.quant.channelScales : nullptr,
        rec.quant.channelDim));
  }
  int64_t lastSubgraph = -1, lastCopy = -1;
  for (const NodeRec &node : nodes_)
    lastSubgraph = std::max(lastSubgraph, node.subgraph);
  for (const CopyRec &copy : copies_)
    lastCopy = std::max(lastCopy, copy.subgraph);
  std::vector<fb::Step> stepTypes;
  std::vector<flatbuffers::Offset<void>> steps;
  for (int64_t subgraph = 0; subgraph <= std::max(lastSubgraph + 1, lastCopy);
       ++subgraph) {
    for (const CopyRec &copy : copies_) {
      if (copy.subgraph != subgraph)
        continue;
      stepTypes.push_back(fb::Step::Copy);
      steps.push_back(
          fb::CreateCopyDirect(fbb, copy.input, copy.output, &copy.permutation)
              .Union());
    }
    std::vector<flatbuffers::Offset<fb::Node>> nodes;
    for (const NodeRec &node : nodes_) {
      if (node.subgraph != subgraph)
        continue;
      flatbuffers::Offset<fb::Window> window;
      if (node.window)
        window = windowOf(fbb, *node.window);
      nodes.push_back(fb::CreateNodeDirect(
          fbb, node.type, &node.inputs, node.output, node.outputMin,
          node.outputMax, window, node.scalar,
          node.shape.empty() ? nullptr : &node.shape, node.alignCorners,
          node.tensor, node.tensorNhwc));
    }
    if (nodes.empty())
      continue;
    stepTypes.push_back(fb::Step::Subgraph);
    steps.push_back(fb::CreateSubgraphDirect(fbb, &nodes).Union());
  }
  auto root = fb::CreateDelegateDirect(fbb, &values, &stepTypes, &steps);
  fbb.Finish(root, fb::DelegateIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

} // namespace duet::xnnpack
