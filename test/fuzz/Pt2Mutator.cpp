//===- Pt2Mutator.cpp - structure-aware mutations of .pt2 archives -------===//
//
// Built without exceptions, like the importer: every nlohmann::json access
// checks the type first (a wrong-typed access would abort the fuzzer, not
// find a bug in duet).
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/Pt2Mutator.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>

using json = nlohmann::json;

namespace duet::fuzz {
namespace {

using Rng = std::minstd_rand;

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfDirectory = 0x06054b50;
/// Entries larger than this are not inflated: no fixture has one, and a
/// mutated size field must not make the mutator allocate gigabytes.
constexpr uint64_t kMaxEntryBytes = uint64_t(64) << 20;

uint32_t read16(const uint8_t *p) { return p[0] | p[1] << 8; }
uint32_t read32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
void write16(std::string &out, uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8 & 0xff);
}
void write32(std::string &out, uint32_t v) {
  write16(out, v & 0xffff);
  write16(out, v >> 16);
}

std::optional<std::string> inflateRaw(const uint8_t *data, size_t size,
                                      uint64_t expected) {
  if (expected > kMaxEntryBytes)
    return std::nullopt;
  std::string out(expected, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return std::nullopt;
  stream.next_in = const_cast<Bytef *>(data);
  stream.avail_in = static_cast<uInt>(size);
  stream.next_out = reinterpret_cast<Bytef *>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int status = inflate(&stream, Z_FINISH);
  inflateEnd(&stream);
  if (status != Z_STREAM_END || stream.avail_out != 0)
    return std::nullopt;
  return out;
}

/// Values near the edges of the integer types the importer and the
/// verifiers compute with.
int64_t boundaryInt(Rng &rng, int64_t current) {
  static const int64_t values[] = {
      0,
      1,
      -1,
      2,
      3,
      -2,
      7,
      64,
      255,
      65536,
      int64_t(1) << 31,
      (int64_t(1) << 31) - 1,
      -(int64_t(1) << 31),
      (int64_t(1) << 32) - 1,
      int64_t(1) << 32,
      (int64_t(1) << 32) + 1,
      int64_t(1) << 62,
      std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::max() - 1,
      std::numeric_limits<int64_t>::min(),
  };
  switch (rng() % 4) {
  case 0: {
    // Near the current value: off-by-one and sign mistakes.
    int64_t delta = static_cast<int64_t>(rng() % 5) - 2;
    if (current > std::numeric_limits<int64_t>::min() + 2 &&
        current < std::numeric_limits<int64_t>::max() - 2)
      return current + delta;
    return 0;
  }
  case 1:
    return current > std::numeric_limits<int64_t>::min() ? -current : 0;
  default:
    return values[rng() % std::size(values)];
  }
}

json boundaryFloat(Rng &rng) {
  switch (rng() % 9) {
  case 0:
    return 0.0;
  case 1:
    return -1.0;
  case 2:
    return 1e-45;
  case 3:
    return 3.5e38;
  case 4:
    return 1e308;
  case 5:
    return "NaN";
  case 6:
    return "Infinity";
  case 7:
    return "-Infinity";
  default:
    return static_cast<double>(static_cast<int32_t>(rng())) / 1024;
  }
}

template <typename T> T &pick(Rng &rng, std::vector<T> &items) {
  return items[rng() % items.size()];
}

/// The member `key` of `object`, or nullptr when `object` is no object or
/// lacks it.
json *member(json *object, const char *key) {
  if (!object || !object->is_object())
    return nullptr;
  auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

/// Every value of `root` (depth first), so that a mutation can pick any.
void collect(json &root, std::vector<json *> &all) {
  all.push_back(&root);
  if (root.is_object() || root.is_array())
    for (json &child : root)
      collect(child, all);
}

class ModelMutator {
public:
  ModelMutator(json &model, json *weights, Rng &rng)
      : model(model), weights(weights), rng(rng) {
    json *graphModule = member(&model, "graph_module");
    graph = member(graphModule, "graph");
    signature = member(graphModule, "signature");
    nodes = member(graph, "nodes");
    if (json *values = member(graph, "tensor_values");
        values && values->is_object())
      for (auto it = values->begin(); it != values->end(); ++it)
        tensorNames.push_back(it.key());
  }

  /// One mutation; false when the document lacks what it would change.
  bool mutate() {
    switch (rng() % 12) {
    case 0:
    case 1:
      return mutateAnyInteger();
    case 2:
      return mutateTensorMeta(randomTensorMeta());
    case 3:
    case 4:
      return mutateNodeArgument();
    case 5:
      return mutateTensorReference();
    case 6:
      return mutateNodeList();
    case 7:
      return mutateGraphOutputs();
    case 8:
      return mutateTensorMeta(randomWeightMeta());
    case 9:
      return mutateNodeOutput();
    case 10:
      return mutateSignature();
    default:
      return swapTargets();
    }
  }

private:
  /// A tensor name: one the graph records, or one nothing defines.
  std::string tensorName() {
    if (tensorNames.empty() || rng() % 8 == 0)
      return "fuzz_undefined";
    return pick(rng, tensorNames);
  }

  json *randomNode() {
    if (!nodes || !nodes->is_array() || nodes->empty())
      return nullptr;
    return &(*nodes)[rng() % nodes->size()];
  }

  json *randomTensorMeta() {
    json *values = member(graph, "tensor_values");
    if (!values || !values->is_object() || values->empty())
      return nullptr;
    auto it = values->begin();
    std::advance(it, rng() % values->size());
    return &*it;
  }

  json *randomWeightMeta() {
    json *config = member(weights, "config");
    if (!config || !config->is_object() || config->empty())
      return nullptr;
    auto it = config->begin();
    std::advance(it, rng() % config->size());
    if (rng() % 4 == 0) {
      // Another weight's storage file: sizes and storage disagree.
      json *path = member(&*it, "path_name");
      json *other = member(&*std::next(config->begin(), rng() % config->size()),
                           "path_name");
      if (path && other)
        *path = *other;
    }
    return member(&*it, "tensor_meta");
  }

  bool mutateAnyInteger() {
    std::vector<json *> all, integers;
    collect(rng() % 4 == 0 && weights ? *weights : model, all);
    for (json *v : all)
      if (v->is_number_integer())
        integers.push_back(v);
    if (integers.empty())
      return false;
    json *target = pick(rng, integers);
    int64_t current = target->is_number_unsigned()
                          ? static_cast<int64_t>(target->get<uint64_t>())
                          : target->get<int64_t>();
    *target = boundaryInt(rng, current);
    return true;
  }

  /// Sizes, strides, storage offset or dtype of a TensorMeta.
  bool mutateTensorMeta(json *meta) {
    if (!meta || !meta->is_object())
      return false;
    json *sizes = member(meta, "sizes"), *strides = member(meta, "strides");
    switch (rng() % 5) {
    case 0: {
      static const int64_t dtypes[] = {0, 1, 4, 5, 6, 7, 8, 11, 12, 13, 99, -1};
      (*meta)["dtype"] = dtypes[rng() % std::size(dtypes)];
      return true;
    }
    case 1:
      // A dim more or less, in sizes and strides alike.
      if (!sizes || !sizes->is_array() || !strides || !strides->is_array())
        return false;
      if (rng() % 2 && !sizes->empty() && !strides->empty()) {
        sizes->erase(sizes->size() - 1);
        strides->erase(strides->size() - 1);
      } else {
        sizes->push_back({{"as_int", boundaryInt(rng, 1)}});
        strides->push_back({{"as_int", 1}});
      }
      return true;
    case 2:
      (*meta)["storage_offset"] = {{"as_int", boundaryInt(rng, 0)}};
      return true;
    default: {
      json *list = rng() % 3 == 0 ? strides : sizes;
      if (!list || !list->is_array() || list->empty())
        return false;
      json &item = (*list)[rng() % list->size()];
      json *value = member(&item, "as_int");
      int64_t current =
          value && value->is_number_integer() ? value->get<int64_t>() : 1;
      item = {{"as_int", boundaryInt(rng, current)}};
      return true;
    }
    }
  }

  /// An argument of a node, changed within its kind (or, rarely, to None).
  bool mutateNodeArgument() {
    json *node = randomNode();
    json *inputs = member(node, "inputs");
    if (!inputs || !inputs->is_array() || inputs->empty())
      return false;
    json &input = (*inputs)[rng() % inputs->size()];
    json *arg = member(&input, "arg");
    if (!arg || !arg->is_object() || arg->size() != 1)
      return false;
    if (rng() % 16 == 0) {
      *arg = {{"as_none", true}};
      return true;
    }
    std::string kind = arg->begin().key();
    json &value = arg->begin().value();
    if (kind == "as_int") {
      value = boundaryInt(rng,
                          value.is_number_integer() ? value.get<int64_t>() : 0);
    } else if (kind == "as_ints" && value.is_array()) {
      if (value.empty() || rng() % 4 == 0) {
        if (rng() % 2 || value.empty())
          value.push_back(boundaryInt(rng, 1));
        else
          value.erase(value.size() - 1);
      } else {
        json &item = value[rng() % value.size()];
        item = boundaryInt(rng,
                           item.is_number_integer() ? item.get<int64_t>() : 0);
      }
    } else if (kind == "as_float") {
      value = boundaryFloat(rng);
    } else if (kind == "as_floats" && value.is_array() && !value.empty()) {
      value[rng() % value.size()] = boundaryFloat(rng);
    } else if (kind == "as_bool") {
      value = !(value.is_boolean() && value.get<bool>());
    } else if (kind == "as_tensor") {
      value = {{"name", tensorName()}};
    } else if (kind == "as_tensors" && value.is_array() && !value.empty()) {
      if (rng() % 3 == 0)
        value.erase(value.size() - 1);
      else
        value[rng() % value.size()] = {{"name", tensorName()}};
    } else if (kind == "as_scalar_type" || kind == "as_memory_format" ||
               kind == "as_layout") {
      value = boundaryInt(rng, 0);
    } else if (kind == "as_string") {
      static const char *strings[] = {"same", "valid", "floor", "trunc",
                                      "tanh", "none",  "",      "reflect"};
      value = strings[rng() % std::size(strings)];
    } else {
      // Another kind altogether: a builder that expects one kind gets another.
      static const char *kinds[] = {"as_int",  "as_ints",   "as_float",
                                    "as_bool", "as_tensor", "as_none"};
      *arg = {{kinds[rng() % std::size(kinds)], json::array()}};
    }
    return true;
  }

  /// Some tensor reference of some node names another tensor.
  bool mutateTensorReference() {
    std::vector<json *> all, references;
    if (!nodes)
      return false;
    collect(*nodes, all);
    for (json *v : all)
      if (json *t = member(v, "as_tensor"); t && member(t, "name"))
        references.push_back(t);
    if (references.empty())
      return false;
    *pick(rng, references) = {{"name", tensorName()}};
    return true;
  }

  /// Drop, duplicate or reorder nodes.
  bool mutateNodeList() {
    if (!nodes || !nodes->is_array() || nodes->empty())
      return false;
    size_t i = rng() % nodes->size(), j = rng() % nodes->size();
    switch (rng() % 3) {
    case 0:
      nodes->erase(i);
      return true;
    case 1:
      nodes->insert(nodes->begin() + j, json((*nodes)[i]));
      return true;
    default:
      std::swap((*nodes)[i], (*nodes)[j]);
      return true;
    }
  }

  /// graph.outputs and the output specs: renamed, dropped, emptied, doubled.
  bool mutateGraphOutputs() {
    json *outputs = member(graph, "outputs");
    json *specs = member(signature, "output_specs");
    json *list = rng() % 2 ? outputs : specs;
    if (!list || !list->is_array())
      return false;
    switch (rng() % 4) {
    case 0:
      list->clear();
      return true;
    case 1:
      if (list->empty())
        return false;
      list->push_back(json((*list)[rng() % list->size()]));
      return true;
    default:
      return renameSomeTensor(*list);
    }
  }

  /// Gives one `name` string found under `root` another tensor name.
  bool renameSomeTensor(json &root) {
    std::vector<json *> all, names;
    collect(root, all);
    for (json *v : all)
      if (json *name = member(v, "name"); name && name->is_string())
        names.push_back(name);
    if (names.empty())
      return false;
    *pick(rng, names) = tensorName();
    return true;
  }

  /// A node's output defines another (maybe existing) name.
  bool mutateNodeOutput() {
    json *outputs = member(randomNode(), "outputs");
    if (!outputs || !outputs->is_array() || outputs->empty())
      return false;
    json &output = (*outputs)[rng() % outputs->size()];
    if (rng() % 4 == 0) {
      output = {{"as_none", true}};
      return true;
    }
    json *tensor = member(&output, "as_tensor");
    if (!tensor || !tensor->is_object())
      return false;
    (*tensor)["name"] = tensorName();
    return true;
  }

  /// Input specs and graph inputs: dropped, renamed or of another kind.
  bool mutateSignature() {
    json *inputs = member(graph, "inputs");
    json *specs = member(signature, "input_specs");
    if (!inputs || !inputs->is_array() || !specs || !specs->is_array() ||
        specs->empty())
      return false;
    size_t i = rng() % specs->size();
    switch (rng() % 3) {
    case 0:
      specs->erase(i);
      if (i < inputs->size() && rng() % 2)
        inputs->erase(i);
      return true;
    case 1:
      return renameSomeTensor((*specs)[i]);
    default: {
      static const char *kinds[] = {"user_input", "parameter", "buffer",
                                    "tensor_constant", "constant_input"};
      json &spec = (*specs)[i];
      if (!spec.is_object() || spec.size() != 1)
        return false;
      json body = spec.begin().value();
      spec = {{kinds[rng() % std::size(kinds)], body}};
      return true;
    }
    }
  }

  /// A node runs another node's op on its own arguments.
  bool swapTargets() {
    json *a = member(randomNode(), "target");
    json *b = member(randomNode(), "target");
    if (!a || !b)
      return false;
    std::swap(*a, *b);
    return true;
  }

  json &model;
  json *weights;
  Rng &rng;
  json *graph = nullptr;
  json *signature = nullptr;
  json *nodes = nullptr;
  std::vector<std::string> tensorNames;
};

ZipEntry *findEntry(std::vector<ZipEntry> &entries, const std::string &suffix) {
  for (ZipEntry &entry : entries)
    if (entry.first.size() >= suffix.size() &&
        entry.first.compare(entry.first.size() - suffix.size(), suffix.size(),
                            suffix) == 0)
      return &entry;
  return nullptr;
}

std::string dump(const json &doc) {
  // Replacing invalid UTF-8 keeps dump() from throwing (aborting).
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

std::optional<std::vector<ZipEntry>> readZip(const uint8_t *data, size_t size) {
  if (size < 22)
    return std::nullopt;
  // The end-of-directory record, searched back over a comment of up to 64K.
  size_t end = size - 22;
  size_t stop = size > 22 + 65535 ? size - 22 - 65535 : 0;
  while (read32(data + end) != kEndOfDirectory) {
    if (end == stop)
      return std::nullopt;
    --end;
  }
  uint32_t count = read16(data + end + 10);
  uint64_t directory = read32(data + end + 16);
  std::vector<ZipEntry> entries;
  uint64_t at = directory;
  for (uint32_t i = 0; i < count; ++i) {
    if (at + 46 > size || read32(data + at) != kCentralHeader)
      return std::nullopt;
    const uint8_t *h = data + at;
    uint32_t flags = read16(h + 8), method = read16(h + 10);
    uint64_t compressed = read32(h + 20), uncompressed = read32(h + 24);
    uint64_t nameBytes = read16(h + 28), extraBytes = read16(h + 30),
             commentBytes = read16(h + 32), local = read32(h + 42);
    if (at + 46 + nameBytes > size || (flags & 1))
      return std::nullopt;
    std::string name(reinterpret_cast<const char *>(h + 46), nameBytes);
    at += 46 + nameBytes + extraBytes + commentBytes;
    if (local + 30 > size || read32(data + local) != kLocalHeader)
      return std::nullopt;
    uint64_t start =
        local + 30 + read16(data + local + 26) + read16(data + local + 28);
    if (start > size || compressed > size - start)
      return std::nullopt;
    const uint8_t *bytes = data + start;
    if (method == 0 && compressed == uncompressed) {
      entries.emplace_back(
          std::move(name),
          std::string(reinterpret_cast<const char *>(bytes), compressed));
    } else if (method == Z_DEFLATED) {
      std::optional<std::string> inflated =
          inflateRaw(bytes, compressed, uncompressed);
      if (!inflated)
        return std::nullopt;
      entries.emplace_back(std::move(name), std::move(*inflated));
    } else {
      return std::nullopt;
    }
  }
  return entries;
}

std::string writeZip(const std::vector<ZipEntry> &entries, bool alignData) {
  std::string out, directory;
  for (const auto &[name, bytes] : entries) {
    uint32_t crc = crc32(0, reinterpret_cast<const Bytef *>(bytes.data()),
                         static_cast<uInt>(bytes.size()));
    uint64_t offset = out.size();
    size_t headerEnd = offset + 30 + name.size();
    // An extra field of padding (id 0x4246, "FB", as PyTorch writes it)
    // moves the data to the next multiple of 64.
    size_t pad = alignData ? (64 - (headerEnd + 4) % 64) % 64 : 0;
    size_t extra = alignData ? 4 + pad : 0;
    write32(out, kLocalHeader);
    write16(out, 20);
    write16(out, 0);
    write16(out, 0);
    write32(out, 0);
    write32(out, crc);
    write32(out, static_cast<uint32_t>(bytes.size()));
    write32(out, static_cast<uint32_t>(bytes.size()));
    write16(out, static_cast<uint32_t>(name.size()));
    write16(out, static_cast<uint32_t>(extra));
    out += name;
    if (alignData) {
      write16(out, 0x4246);
      write16(out, static_cast<uint32_t>(pad));
      out.append(pad, 'Z');
    }
    out += bytes;

    write32(directory, kCentralHeader);
    write16(directory, 20);
    write16(directory, 20);
    write16(directory, 0);
    write16(directory, 0);
    write32(directory, 0);
    write32(directory, crc);
    write32(directory, static_cast<uint32_t>(bytes.size()));
    write32(directory, static_cast<uint32_t>(bytes.size()));
    write16(directory, static_cast<uint32_t>(name.size()));
    write16(directory, 0);
    write16(directory, 0);
    write16(directory, 0);
    write16(directory, 0);
    write32(directory, 0);
    write32(directory, static_cast<uint32_t>(offset));
    directory += name;
  }
  uint64_t directoryOffset = out.size();
  out += directory;
  write32(out, kEndOfDirectory);
  write16(out, 0);
  write16(out, 0);
  write16(out, static_cast<uint32_t>(entries.size()));
  write16(out, static_cast<uint32_t>(entries.size()));
  write32(out, static_cast<uint32_t>(directory.size()));
  write32(out, static_cast<uint32_t>(directoryOffset));
  write16(out, 0);
  return out;
}

std::optional<std::string> mutatePt2(const uint8_t *data, size_t size,
                                     unsigned seed) {
  std::optional<std::vector<ZipEntry>> entries = readZip(data, size);
  if (!entries)
    return std::nullopt;
  ZipEntry *modelEntry = findEntry(*entries, "/models/model.json");
  if (!modelEntry)
    return std::nullopt;
  json model = json::parse(modelEntry->second, nullptr,
                           /*allow_exceptions=*/false);
  if (model.is_discarded())
    return std::nullopt;
  ZipEntry *weightsEntry =
      findEntry(*entries, "/data/weights/model_weights_config.json");
  json weights;
  if (weightsEntry)
    weights = json::parse(weightsEntry->second, nullptr, false);
  bool haveWeights = weightsEntry && !weights.is_discarded();

  Rng rng(seed);
  ModelMutator mutator(model, haveWeights ? &weights : nullptr, rng);
  unsigned wanted = 1 + rng() % 4, done = 0;
  for (unsigned tries = 0; done < wanted && tries < 16; ++tries)
    done += mutator.mutate();
  modelEntry->second = dump(model);
  if (haveWeights)
    weightsEntry->second = dump(weights);

  // Now and then the non-JSON entries: a truncated weight, a missing entry.
  if (rng() % 16 == 0 && !entries->empty()) {
    ZipEntry &entry = (*entries)[rng() % entries->size()];
    if (rng() % 2)
      entry.second.resize(entry.second.size() / 2);
    else
      entries->erase(entries->begin() + (&entry - entries->data()));
  }
  return writeZip(*entries, /*alignData=*/rng() % 8 != 0);
}

} // namespace duet::fuzz
