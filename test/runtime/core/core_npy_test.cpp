//===- core_npy_test.cpp - .npy files in and out
//---------------------------===//

#include "core_test_support.h"

#include "runtime/core/Npy.h"

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

/// A .npy file as NumPy lays it out: magic, version, header length, the
/// header dict padded with spaces to a 64-byte boundary, a newline, `body`.
std::vector<uint8_t> npyFile(const std::string &dict,
                             const std::vector<uint8_t> &body,
                             uint8_t major = 1) {
  size_t lengthBytes = major == 1 ? 2 : 4;
  std::string header = dict;
  size_t total = 8 + lengthBytes + header.size() + 1;
  header.append(64 - total % 64, ' ');
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  for (size_t i = 0; i < lengthBytes; ++i)
    bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), body.begin(), body.end());
  return bytes;
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  NpyArray array;
  Status status = parseNpy(bytes.data(), bytes.size(), "a.npy", array);
  REQUIRE_FALSE(status.isOk());
  return status.message();
}

const std::vector<uint8_t> kSixFloats =
    bytesOf(std::vector<float>{1, 2, 3, 4, 5, 6});

} // namespace

// What encodeNpy writes parses back to the same dtype, shape and bytes,
// for every dtype NumPy has, and for a scalar, a vector and an empty array.
TEST_CASE("npy round trip of every dtype", "[npy]") {
  for (DType dtype :
       {DType::f32, DType::f16, DType::f64, DType::i64, DType::i32, DType::i16,
        DType::i8, DType::u8, DType::boolean}) {
    for (std::vector<int64_t> sizes :
         {std::vector<int64_t>{}, std::vector<int64_t>{5},
          std::vector<int64_t>{2, 3, 1}, std::vector<int64_t>{0, 3}}) {
      INFO(dtypeName(dtype) << " " << formatNpyShape(sizes));
      uint64_t nbytes = 0;
      REQUIRE(tensorBytes(dtype, sizes, nbytes));
      std::vector<uint8_t> data(nbytes);
      for (size_t i = 0; i < data.size(); ++i)
        data[i] =
            dtype == DType::boolean ? i % 2 : static_cast<uint8_t>(i * 13);
      TensorView view;
      view.dtype = dtype;
      view.sizes = sizes;
      view.data = data.data();
      std::vector<uint8_t> bytes;
      std::string notice;
      REQUIRE(encodeNpy(view, bytes, notice).isOk());
      CHECK(notice.empty());
      CHECK((bytes.size() - nbytes) % 64 == 0); // the body starts aligned
      NpyArray array;
      Status status = parseNpy(bytes.data(), bytes.size(), "a.npy", array);
      INFO(status.message());
      REQUIRE(status.isOk());
      CHECK(array.dtype == dtype);
      CHECK(array.sizes == sizes);
      CHECK(array.data == data);
    }
  }
}

// The exact header encodeNpy writes, as NumPy writes it.
TEST_CASE("npy header text", "[npy]") {
  std::vector<float> values(6);
  TensorView view;
  view.sizes = {2, 3};
  view.data = values.data();
  std::vector<uint8_t> bytes;
  std::string notice;
  REQUIRE(encodeNpy(view, bytes, notice).isOk());
  std::string header(bytes.begin() + 10, bytes.end() - 24);
  CHECK(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, "
                     "3), }",
                     0) == 0);
  CHECK(header.back() == '\n');
  CHECK(bytes[6] == 1);
  CHECK(size_t{bytes[8]} + 256 * size_t{bytes[9]} == header.size());
  CHECK(formatNpyShape({}) == "()");
  CHECK(formatNpyShape({7}) == "(7,)");
}

// Versions 2.0 and 3.0 have a 4-byte header length; keys may come in any
// order and the header may use double quotes.
TEST_CASE("npy versions 2.0 and 3.0", "[npy]") {
  for (uint8_t major : {uint8_t{2}, uint8_t{3}}) {
    std::vector<uint8_t> bytes =
        npyFile("{\"shape\": (2, 3), 'fortran_order': False, 'descr': '<f4'}",
                kSixFloats, major);
    NpyArray array;
    Status status = parseNpy(bytes.data(), bytes.size(), "a.npy", array);
    INFO(status.message());
    REQUIRE(status.isOk());
    CHECK(array.sizes == std::vector<int64_t>{2, 3});
    CHECK(array.data == kSixFloats);
  }
}

// A shape or dtype that does not match the input is refused, naming both.
TEST_CASE("npy shape and dtype mismatches", "[npy]") {
  NpyArray array;
  std::vector<uint8_t> bytes =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              kSixFloats);
  REQUIRE(parseNpy(bytes.data(), bytes.size(), "a.npy", array).isOk());
  std::vector<uint8_t> dst(64);
  std::string notice;
  CHECK(copyNpyInto(array, "a.npy", "input 0 (x)", DType::f32, {3, 2},
                    dst.data(), notice)
            .message() == "a.npy: shape (2, 3) does not match input 0 (x), "
                          "which has shape (3, 2)");
  CHECK(copyNpyInto(array, "a.npy", "input 0 (x)", DType::i32, {2, 3},
                    dst.data(), notice)
            .message() == "a.npy: dtype float32 does not match input 0 (x), "
                          "which is int32; save the array as int32");
  REQUIRE(copyNpyInto(array, "a.npy", "input 0 (x)", DType::f32, {2, 3},
                      dst.data(), notice)
              .isOk());
  CHECK(notice.empty());
  CHECK(std::vector<uint8_t>(dst.begin(), dst.begin() + 24) == kSixFloats);
}

// float32 values given for a bfloat16 or float16 input are rounded to
// nearest even, with a notice: 1 and -2.5 are exact in both; 3.14159 is
// 0x4049 in bfloat16 and 0x4248 in float16.
TEST_CASE("npy float32 into bfloat16 and float16", "[npy]") {
  NpyArray array;
  std::vector<uint8_t> bytes =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
              bytesOf(std::vector<float>{1.0f, 3.14159f, -2.5f}));
  REQUIRE(parseNpy(bytes.data(), bytes.size(), "a.npy", array).isOk());
  std::vector<uint16_t> dst(3);
  std::string notice;
  REQUIRE(copyNpyInto(array, "a.npy", "input 1 (t)", DType::bf16, {3},
                      dst.data(), notice)
              .isOk());
  CHECK(dst == std::vector<uint16_t>{0x3f80, 0x4049, 0xc020});
  CHECK(notice == "a.npy: float32 values rounded to bfloat16 for input 1 (t)");
  REQUIRE(copyNpyInto(array, "a.npy", "input 1 (t)", DType::f16, {3},
                      dst.data(), notice)
              .isOk());
  CHECK(dst == std::vector<uint16_t>{0x3c00, 0x4248, 0xc100});
  CHECK(notice == "a.npy: float32 values rounded to float16 for input 1 (t)");

  // float64 is not silently narrowed.
  NpyArray doubles;
  std::vector<uint8_t> f8 =
      npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
              bytesOf(std::vector<double>{1, 2, 3}));
  REQUIRE(parseNpy(f8.data(), f8.size(), "b.npy", doubles).isOk());
  CHECK(copyNpyInto(doubles, "b.npy", "input 1 (t)", DType::bf16, {3},
                    dst.data(), notice)
            .message() == "b.npy: dtype float64 does not match input 1 (t), "
                          "which is bfloat16; save the array as float32 "
                          "(NumPy has no bfloat16)");
}

// A bfloat16 output is written as float32, with a notice.
TEST_CASE("npy bfloat16 output written as float32", "[npy]") {
  std::vector<uint16_t> values = {0x3f80, 0xc020}; // 1.0, -2.5
  TensorView view;
  view.dtype = DType::bf16;
  view.sizes = {2};
  view.data = values.data();
  TempFile file("bf16.npy");
  std::string notice;
  REQUIRE(writeNpy(file.path(), view, notice).isOk());
  CHECK(notice == file.path() +
                      ": bfloat16 values written as float32 (NumPy has no "
                      "bfloat16)");
  NpyArray array;
  REQUIRE(readNpy(file.path(), array).isOk());
  CHECK(array.dtype == DType::f32);
  CHECK(array.data == bytesOf(std::vector<float>{1.0f, -2.5f}));
}

// A body shorter than the shape needs, or a header cut short.
TEST_CASE("npy truncated files", "[npy]") {
  std::vector<uint8_t> good =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              kSixFloats);
  std::vector<uint8_t> body(good.begin(), good.end() - 5);
  CHECK(parseError(body) == "a.npy: shape (2, 3) of <f4 needs 24 bytes but "
                            "the file holds 19; the file is truncated");
  std::vector<uint8_t> header(good.begin(), good.begin() + 40);
  CHECK(parseError(header) == "a.npy: the .npy header declares 118 bytes but "
                              "only 30 follow; the file is truncated");
  for (size_t length = 0; length < good.size(); ++length) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + length);
    NpyArray array;
    CHECK_FALSE(parseNpy(cut.data(), cut.size(), "a.npy", array).isOk());
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  CHECK(parseError(longer) == "a.npy: 1 bytes follow the array of shape (2, "
                              "3); the file holds more than one array or is "
                              "corrupt");
}

// Headers NumPy would not write, or that describe what we cannot read.
TEST_CASE("npy bad headers", "[npy]") {
  auto withDict = [](const std::string &dict) {
    return parseError(npyFile(dict, kSixFloats));
  };
  CHECK(parseError({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}) ==
        "a.npy: not a .npy file (it does not start with the NumPy magic "
        "\\x93NUMPY)");
  std::vector<uint8_t> version4 =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              kSixFloats, 4);
  CHECK(parseError(version4) ==
        "a.npy: .npy format version 4.0 is not supported (1.0, 2.0 and 3.0 "
        "are)");
  CHECK(withDict("{'descr': '<f4', 'shape': (2, 3), }") ==
        "a.npy: the .npy header lacks 'fortran_order'");
  CHECK(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "
                 "'extra': True}") ==
        "a.npy: the .npy header has an unknown key 'extra'");
  CHECK(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}") ==
        "a.npy: malformed .npy header at byte 54 of the header: expected a "
        "non-negative integer in the shape");
  CHECK(withDict("{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}")
            .rfind("a.npy: malformed .npy header", 0) == 0);
  CHECK(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x")
            .rfind("a.npy: malformed .npy header", 0) == 0);
  CHECK(withDict("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }")
            .rfind("a.npy: dtype '>f4' is big-endian", 0) == 0);
  CHECK(
      withDict("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }") ==
      "a.npy: dtype '<c8' is not supported (supported: <f4 <f2 <f8 <i8 <i4 "
      "<i2 |i1 |u1 |b1)");
  CHECK(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999"
                 "999999999999, 3), }") ==
        "a.npy: malformed .npy header at byte 69 of the header: a dimension "
        "does not fit in 64 bits");
}

// A file that is not there is named with the system's reason.
TEST_CASE("npy missing file", "[npy]") {
  NpyArray array;
  CHECK(readNpy("/nonexistent/a.npy", array).message() ==
        "/nonexistent/a.npy: cannot open: No such file or directory");
}

namespace {

NpyArray readFixture(const std::string &name) {
  NpyArray array;
  Status status =
      readNpy(std::string(DUET_CORE_TEST_INPUTS) + "/" + name, array);
  INFO(status.message());
  REQUIRE(status.isOk());
  return array;
}

template <typename T> std::vector<T> valuesOf(const NpyArray &array) {
  std::vector<T> values(array.data.size() / sizeof(T));
  if (!values.empty())
    std::memcpy(values.data(), array.data.data(), array.data.size());
  return values;
}

} // namespace

// Files written by NumPy 2.5 itself (np.save, and np.lib.format.write_array
// for versions 2.0 and 3.0; see Inputs/), read with the values NumPy was
// given.
TEST_CASE("npy files written by NumPy", "[npy]") {
  NpyArray f32 = readFixture("np_f32_2x3.npy"); // arange(6) * 1.5
  CHECK(f32.dtype == DType::f32);
  CHECK(f32.sizes == std::vector<int64_t>{2, 3});
  CHECK(valuesOf<float>(f32) == std::vector<float>{0, 1.5f, 3, 4.5f, 6, 7.5f});
  for (const char *name : {"np_v2_f32_2x3.npy", "np_v3_f32_2x3.npy"}) {
    NpyArray v = readFixture(name); // arange(6)
    CHECK(v.sizes == std::vector<int64_t>{2, 3});
    CHECK(valuesOf<float>(v) == std::vector<float>{0, 1, 2, 3, 4, 5});
  }
  NpyArray f16 = readFixture("np_f16_4.npy"); // 1, -2, 0.5, 65504
  CHECK(f16.dtype == DType::f16);
  CHECK(valuesOf<uint16_t>(f16) ==
        std::vector<uint16_t>{0x3c00, 0xc000, 0x3800, 0x7bff});
  NpyArray f64 = readFixture("np_f64_0x3.npy");
  CHECK(f64.dtype == DType::f64);
  CHECK(f64.sizes == std::vector<int64_t>{0, 3});
  CHECK(f64.data.empty());
  NpyArray i64 = readFixture("np_i64_scalar.npy");
  CHECK(i64.dtype == DType::i64);
  CHECK(i64.sizes.empty());
  CHECK(valuesOf<int64_t>(i64) == std::vector<int64_t>{-7});
  CHECK(valuesOf<int32_t>(readFixture("np_i32_3.npy")) ==
        std::vector<int32_t>{1, -2, 2147483647});
  CHECK(valuesOf<int16_t>(readFixture("np_i16_3.npy")) ==
        std::vector<int16_t>{1, -2, 300});
  NpyArray i8 = readFixture("np_i8_3.npy");
  CHECK(i8.dtype == DType::i8);
  CHECK(valuesOf<int8_t>(i8) == std::vector<int8_t>{1, -2, 127});
  NpyArray u8 = readFixture("np_u8_3.npy");
  CHECK(u8.dtype == DType::u8);
  CHECK(u8.data == std::vector<uint8_t>{1, 2, 255});
  NpyArray b = readFixture("np_bool_2x2.npy");
  CHECK(b.dtype == DType::boolean);
  CHECK(b.sizes == std::vector<int64_t>{2, 2});
  CHECK(b.data == std::vector<uint8_t>{1, 0, 0, 1});

  // np.asfortranarray(arange(6).reshape(2, 3)) stores 0 3 1 4 2 5; it is
  // read in C order, as NumPy's np.load gives it.
  NpyArray fortran = readFixture("np_fortran_2x3.npy");
  CHECK(fortran.sizes == std::vector<int64_t>{2, 3});
  CHECK(valuesOf<float>(fortran) == std::vector<float>{0, 1, 2, 3, 4, 5});

  NpyArray refused;
  std::string inputs = DUET_CORE_TEST_INPUTS;
  CHECK(readNpy(inputs + "/np_big_endian_3.npy", refused).message() ==
        inputs + "/np_big_endian_3.npy: dtype '>f4' is big-endian; save the "
                 "array little-endian (a.astype(a.dtype.newbyteorder('<')))");
}

// fuzz-npy finding: a bool byte other than 0 or 1 cannot be read as bool, so
// the reader refuses it and names the element.
TEST_CASE("npy bool bytes other than 0 and 1 are refused", "[npy]") {
  std::vector<uint8_t> body = {1, 0, 2};
  CHECK(parseError(npyFile(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
            body)) == "a.npy: bool element 2 holds the byte 2, not 0 or 1; "
                      "the file is corrupt");
}

// fuzz-npy finding (regressions/fuzz-npy/empty-array.npy): an empty array has
// no buffer, and copying it must not hand memcpy a null pointer (UBSan in the
// sanitizer suite).
TEST_CASE("npy an empty array copies into an empty input", "[npy]") {
  NpyArray array;
  std::vector<uint8_t> bytes = npyFile(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", {});
  REQUIRE(parseNpy(bytes.data(), bytes.size(), "a.npy", array).isOk());
  REQUIRE(array.data.empty());
  uint8_t dst = 0;
  std::string notice;
  CHECK(copyNpyInto(array, "a.npy", "input 0", DType::f32, {0, 3}, &dst,
                    notice)
            .isOk());
}
