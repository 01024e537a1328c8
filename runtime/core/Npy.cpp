//===- Npy.cpp - NumPy .npy arrays in and out -----------------------------===//
//
// The format: the magic "\x93NUMPY", a major and a minor version byte, the
// header length (2 bytes little-endian in version 1, 4 bytes in versions 2
// and 3), then the header, a Python dict literal such as
// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }` padded with
// spaces and ending in a newline, then the raw elements.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Npy.h"

#include "runtime/core/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

namespace duet::rt {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

struct DescrEntry {
  std::string_view descr;
  DType dtype;
};

/// The descr NumPy writes for each dtype; single bytes have no byte order.
constexpr DescrEntry kDescrs[] = {
    {"<f4", DType::f32}, {"<f2", DType::f16}, {"<f8", DType::f64},
    {"<i8", DType::i64}, {"<i4", DType::i32}, {"<i2", DType::i16},
    {"|i1", DType::i8},  {"|u1", DType::u8},  {"|b1", DType::boolean},
};

std::optional<DType> dtypeOfDescr(std::string_view descr) {
  for (const DescrEntry &entry : kDescrs)
    if (entry.descr == descr)
      return entry.dtype;
  // A byte order on a one-byte type means nothing; some writers put '<'.
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '=') &&
      (descr[1] == 'i' || descr[1] == 'u' || descr[1] == 'b') &&
      descr[2] == '1')
    return dtypeOfDescr(std::string("|") + std::string(descr.substr(1)));
  return std::nullopt;
}

std::string_view descrOfDType(DType dtype) {
  for (const DescrEntry &entry : kDescrs)
    if (entry.dtype == dtype)
      return entry.descr;
  return {};
}

/// The value of one header key.
struct HeaderValue {
  enum Kind { string, boolean, tuple } kind = string;
  std::string text;
  bool flag = false;
  std::vector<int64_t> ints;
};

/// Parses the header's dict literal: string keys, and values that are
/// strings, True/False or tuples of non-negative integers — all NumPy
/// writes. Anything else is an error naming the byte where it went wrong.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &name)
      : text_(text), name_(name) {}

  Status parse(std::vector<std::pair<std::string, HeaderValue>> &entries) {
    skipSpace();
    if (!consume('{'))
      return fail("expected '{' to open the header dict");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      DUET_RETURN_IF_ERROR(parseString(key));
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after key '" + key + "'");
      skipSpace();
      HeaderValue value;
      DUET_RETURN_IF_ERROR(parseValue(value));
      entries.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return fail("expected ',' or '}' after a value");
    }
    skipSpace();
    if (pos_ != text_.size())
      return fail("unexpected text after the header dict");
    return Status::ok();
  }

private:
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  Status fail(const std::string &what) const {
    return Status::error("{}: malformed .npy header at byte {} of the "
                         "header: {}",
                         name_, pos_, what);
  }

  Status parseString(std::string &out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return fail("expected a quoted string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      return fail("unterminated string");
    out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return Status::ok();
  }

  Status parseValue(HeaderValue &value) {
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      value.kind = HeaderValue::string;
      return parseString(value.text);
    }
    if (consumeWord("True")) {
      value.kind = HeaderValue::boolean;
      value.flag = true;
      return Status::ok();
    }
    if (consumeWord("False")) {
      value.kind = HeaderValue::boolean;
      value.flag = false;
      return Status::ok();
    }
    if (!consume('('))
      return fail("expected a string, True, False or a tuple");
    value.kind = HeaderValue::tuple;
    while (true) {
      skipSpace();
      if (consume(')'))
        return Status::ok();
      int64_t number = 0;
      size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        int digit = text_[pos_] - '0';
        if (__builtin_mul_overflow(number, 10, &number) ||
            __builtin_add_overflow(number, digit, &number))
          return fail("a dimension does not fit in 64 bits");
        ++pos_;
      }
      // NumPy writes 3L on some Python 2 files; the suffix changes nothing.
      if (pos_ > start && pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_;
      if (pos_ == start)
        return fail("expected a non-negative integer in the shape");
      value.ints.push_back(number);
      skipSpace();
      if (consume(','))
        continue;
      if (consume(')'))
        return Status::ok();
      return fail("expected ',' or ')' in the shape");
    }
  }

  std::string_view text_;
  const std::string &name_;
  size_t pos_ = 0;
};

uint32_t readLittleEndian(const uint8_t *bytes, size_t count) {
  uint32_t value = 0;
  for (size_t i = 0; i < count; ++i)
    value |= static_cast<uint32_t>(bytes[i]) << (8 * i);
  return value;
}

/// The elements of an array stored in Fortran order (the first index
/// varies fastest: what np.asfortranarray and a transposed view save), in C
/// order.
std::vector<uint8_t> fromFortranOrder(const uint8_t *body,
                                      const std::vector<int64_t> &sizes,
                                      size_t elementBytes) {
  size_t count = 1;
  for (int64_t size : sizes)
    count *= static_cast<size_t>(size);
  std::vector<uint8_t> out(count * elementBytes);
  if (count == 0)
    return out;
  size_t rank = sizes.size();
  std::vector<int64_t> strides(rank), index(rank, 0);
  int64_t stride = 1;
  for (size_t d = 0; d < rank; ++d) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  // Walk the C-order positions (last index fastest), keeping the Fortran
  // offset of each.
  int64_t from = 0;
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(out.data() + i * elementBytes, body + from * elementBytes,
                elementBytes);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < sizes[d]) {
        from += strides[d];
        break;
      }
      from -= strides[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

} // namespace

std::string formatNpyShape(const std::vector<int64_t> &sizes) {
  std::string text = "(";
  for (size_t i = 0; i < sizes.size(); ++i)
    text += fmt::format("{}{}", i ? ", " : "", sizes[i]);
  if (sizes.size() == 1)
    text += ",";
  return text + ")";
}

Status parseNpy(const uint8_t *data, size_t size, const std::string &name,
                NpyArray &array) {
  if (size < kMagicBytes + 2 || std::memcmp(data, kMagic, kMagicBytes) != 0)
    return Status::error("{}: not a .npy file (it does not start with the "
                         "NumPy magic \\x93NUMPY)",
                         name);
  uint8_t major = data[6];
  if (major < 1 || major > 3)
    return Status::error("{}: .npy format version {}.{} is not supported "
                         "(1.0, 2.0 and 3.0 are)",
                         name, major, data[7]);
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = kMagicBytes + 2 + lengthBytes;
  if (size < headerStart)
    return Status::error("{}: the .npy file ends inside its preamble; it is "
                         "truncated",
                         name);
  uint64_t headerBytes = readLittleEndian(data + 8, lengthBytes);
  if (headerBytes > size - headerStart)
    return Status::error("{}: the .npy header declares {} bytes but only {} "
                         "follow; the file is truncated",
                         name, headerBytes, size - headerStart);

  std::vector<std::pair<std::string, HeaderValue>> entries;
  std::string_view header(reinterpret_cast<const char *>(data + headerStart),
                          headerBytes);
  DUET_RETURN_IF_ERROR(HeaderParser(header, name).parse(entries));

  const HeaderValue *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  for (const auto &[key, value] : entries) {
    const HeaderValue **slot = key == "descr"           ? &descr
                               : key == "fortran_order" ? &fortran
                               : key == "shape"         ? &shape
                                                        : nullptr;
    if (!slot)
      return Status::error("{}: the .npy header has an unknown key '{}'", name,
                           key);
    if (*slot)
      return Status::error("{}: the .npy header repeats the key '{}'", name,
                           key);
    *slot = &value;
  }
  if (!descr || !fortran || !shape)
    return Status::error("{}: the .npy header lacks '{}'", name,
                         !descr     ? "descr"
                         : !fortran ? "fortran_order"
                                    : "shape");
  if (descr->kind != HeaderValue::string)
    return Status::error("{}: the .npy header's descr is not a string "
                         "(structured arrays are not supported)",
                         name);
  if (fortran->kind != HeaderValue::boolean)
    return Status::error("{}: the .npy header's fortran_order is not True or "
                         "False",
                         name);
  if (shape->kind != HeaderValue::tuple)
    return Status::error("{}: the .npy header's shape is not a tuple", name);

  std::optional<DType> dtype = dtypeOfDescr(descr->text);
  if (!dtype) {
    if (!descr->text.empty() && descr->text[0] == '>')
      return Status::error(
          "{}: dtype '{}' is big-endian; save the array "
          "little-endian (a.astype(a.dtype.newbyteorder('<')))",
          name, descr->text);
    return Status::error("{}: dtype '{}' is not supported (supported: <f4 "
                         "<f2 <f8 <i8 <i4 <i2 |i1 |u1 |b1)",
                         name, descr->text);
  }
  uint64_t bodyBytes = 0;
  if (!tensorBytes(*dtype, shape->ints, bodyBytes))
    return Status::error("{}: shape {} is too large", name,
                         formatNpyShape(shape->ints));
  uint64_t available = size - headerStart - headerBytes;
  if (available < bodyBytes)
    return Status::error("{}: shape {} of {} needs {} bytes but the file "
                         "holds {}; the file is truncated",
                         name, formatNpyShape(shape->ints), descr->text,
                         bodyBytes, available);
  if (available > bodyBytes)
    return Status::error("{}: {} bytes follow the array of shape {}; the file "
                         "holds more than one array or is corrupt",
                         name, available - bodyBytes,
                         formatNpyShape(shape->ints));

  const uint8_t *body = data + headerStart + headerBytes;
  if (*dtype == DType::boolean)
    if (std::optional<uint64_t> bad = firstInvalidBool(body, bodyBytes))
      return Status::error("{}: bool element {} holds the byte {}, not 0 or "
                           "1; the file is corrupt",
                           name, *bad, body[*bad]);
  array.dtype = *dtype;
  array.sizes = shape->ints;
  if (fortran->flag)
    array.data = fromFortranOrder(body, shape->ints, dtypeSize(*dtype));
  else
    array.data.assign(body, body + bodyBytes);
  return Status::ok();
}

Status readNpy(const std::string &path, NpyArray &array) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return Status::error("{}: cannot open: {}", path, std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + got);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    return Status::error("{}: cannot read the file", path);
  return parseNpy(bytes.data(), bytes.size(), path, array);
}

Status copyNpyInto(const NpyArray &array, const std::string &name,
                   std::string_view what, DType dtype,
                   const std::vector<int64_t> &sizes, void *dst,
                   std::string &notice) {
  notice.clear();
  if (array.sizes != sizes)
    return Status::error("{}: shape {} does not match {}, which has shape {}",
                         name, formatNpyShape(array.sizes), what,
                         formatNpyShape(sizes));
  if (array.dtype == dtype) {
    // An empty array has no buffer: memcpy must not see its null pointer.
    if (!array.data.empty())
      std::memcpy(dst, array.data.data(), array.data.size());
    return Status::ok();
  }
  bool toHalf = dtype == DType::f16 || dtype == DType::bf16;
  if (array.dtype != DType::f32 || !toHalf)
    return Status::error("{}: dtype {} does not match {}, which is {}; save "
                         "the array as {}",
                         name, dtypeName(array.dtype), what, dtypeName(dtype),
                         dtype == DType::bf16 ? "float32 (NumPy has no "
                                                "bfloat16)"
                                              : std::string(dtypeName(dtype)));
  const auto *src = reinterpret_cast<const float *>(array.data.data());
  auto *out = static_cast<uint16_t *>(dst);
  size_t count = array.data.size() / sizeof(float);
  for (size_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, src + i, sizeof value);
    out[i] = dtype == DType::f16 ? floatToHalf(value) : floatToBf16(value);
  }
  notice = fmt::format("{}: float32 values rounded to {} for {}", name,
                       dtypeName(dtype), what);
  return Status::ok();
}

Status encodeNpy(const TensorView &tensor, std::vector<uint8_t> &bytes,
                 std::string &notice) {
  notice.clear();
  uint64_t bodyBytes = 0;
  if (!tensorBytes(tensor.dtype, tensor.sizes, bodyBytes))
    return Status::error("shape {} is too large to write",
                         formatNpyShape(tensor.sizes));
  bool widen = tensor.dtype == DType::bf16;
  DType fileType = widen ? DType::f32 : tensor.dtype;
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                  descrOfDType(fileType), formatNpyShape(tensor.sizes));
  // Pad so that the body starts 64-byte aligned, as NumPy does.
  bool version2 = header.size() + 64 > 65535;
  size_t total = kMagicBytes + 2 + (version2 ? 4 : 2) + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string preamble(kMagic, kMagicBytes);
  preamble += static_cast<char>(version2 ? 2 : 1);
  preamble += '\0';
  uint32_t length = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < (version2 ? 4u : 2u); ++i)
    preamble += static_cast<char>((length >> (8 * i)) & 0xff);
  preamble += header;

  size_t fileBodyBytes = widen ? bodyBytes * 2 : bodyBytes;
  bytes.resize(preamble.size() + fileBodyBytes);
  std::memcpy(bytes.data(), preamble.data(), preamble.size());
  uint8_t *body = bytes.data() + preamble.size();
  if (!widen) {
    if (bodyBytes)
      std::memcpy(body, tensor.data, bodyBytes);
    return Status::ok();
  }
  const auto *src = static_cast<const uint16_t *>(tensor.data);
  for (size_t i = 0; i < bodyBytes / sizeof(uint16_t); ++i) {
    float value = bf16ToFloat(src[i]);
    std::memcpy(body + i * sizeof value, &value, sizeof value);
  }
  notice = "bfloat16 values written as float32 (NumPy has no bfloat16)";
  return Status::ok();
}

Status writeNpy(const std::string &path, const TensorView &tensor,
                std::string &notice) {
  std::vector<uint8_t> bytes;
  DUET_RETURN_IF_ERROR(encodeNpy(tensor, bytes, notice).withContext(path));
  DUET_RETURN_IF_ERROR(writeFileAtomically(path, bytes.data(), bytes.size()));
  if (!notice.empty())
    notice = path + ": " + notice;
  return Status::ok();
}

} // namespace duet::rt
