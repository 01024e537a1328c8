//===- Pt2Mutator.h - structure-aware mutations of .pt2 archives -*- C++
//-*-===//
//
// Random bytes almost never get past the zip directory and the JSON parser,
// so the importer's fuzz target mutates archives as archives: it unzips the
// input, edits models/model.json (and the weights config) the way a broken
// or hostile exporter could (sizes, dtypes and attribute values near integer
// boundaries, tensor references, dropped and duplicated nodes, graph outputs)
// and zips the result again, with stored entries.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_TEST_FUZZ_PT2MUTATOR_H
#define DUET_TEST_FUZZ_PT2MUTATOR_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace duet::fuzz {

/// One archive entry: its name and its (uncompressed) bytes.
using ZipEntry = std::pair<std::string, std::string>;

/// The entries of a zip archive, in directory order; nothing when the bytes
/// are not a zip this reader understands (stored or deflated entries, no
/// zip64, no encryption).
std::optional<std::vector<ZipEntry>> readZip(const uint8_t *data, size_t size);

/// A zip archive of `entries`, stored uncompressed. With `alignData`, each
/// entry's data starts at a multiple of 64, as torch.export.save writes it
/// (the importer then uses weights in place instead of copying them).
std::string writeZip(const std::vector<ZipEntry> &entries, bool alignData);

/// Applies one to four random structural mutations, drawn from `seed`, to
/// the archive `data`, and returns the new archive; nothing when `data` is
/// no archive with a parseable models/model.json.
std::optional<std::string> mutatePt2(const uint8_t *data, size_t size,
                                     unsigned seed);

} // namespace duet::fuzz

#endif // DUET_TEST_FUZZ_PT2MUTATOR_H
