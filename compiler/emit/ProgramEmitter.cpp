//===- ProgramEmitter.cpp - aten IR to a .duet program -------------------===//

#include "compiler/emit/ProgramEmitter.h"

#include "compiler/emit/ArenaPlanner.h"
#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"
#include "partitioners/common/DelegateEmitter.h"
#include "runtime/core/Kernel.h"
#include "runtime/core/Limits.h"
#include "runtime/core/OpWork.h"
#include "runtime/core/ProgramBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <variant>

using namespace mlir;

namespace duet {
namespace {

FailureOr<rt::DType> toDType(Operation *at, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return at->emitError() << "program values must be static-shape tensors, got "
                           << type;
  Type e = tensor.getElementType();
  if (e.isF32())
    return rt::DType::f32;
  if (e.isF16())
    return rt::DType::f16;
  if (e.isBF16())
    return rt::DType::bf16;
  if (e.isF64())
    return rt::DType::f64;
  if (e.isInteger(1))
    return rt::DType::boolean;
  if (e.isUnsignedInteger(8))
    return rt::DType::u8;
  if (e.isInteger(8))
    return rt::DType::i8;
  if (e.isInteger(16))
    return rt::DType::i16;
  if (e.isInteger(32))
    return rt::DType::i32;
  if (e.isInteger(64))
    return rt::DType::i64;
  return at->emitError() << "element type " << e
                         << " has no program dtype";
}

/// A constant's bytes in row-major order: borrowed from a resource blob (the
/// memory-mapped archive, so that weights reach the file without a copy) or
/// owned when they had to be expanded or converted.
struct ConstantData {
  const void *borrowed = nullptr;
  std::vector<uint8_t> owned;
};

/// The bytes of a constant in row-major order, one element per dtypeSize.
FailureOr<ConstantData> constantBytes(Operation *at, ElementsAttr value,
                                      size_t elementBytes) {
  auto type = cast<ShapedType>(value.getType());
  size_t count = type.getNumElements();
  size_t size = count * elementBytes;
  ConstantData result;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return at->emitError() << "weight '" << resource.getRawHandle().getKey()
                             << "' has no data (was the model imported with "
                                "its weights?)";
    ArrayRef<char> data = blob->getData();
    if (data.size() != size)
      return at->emitError() << "weight '" << resource.getRawHandle().getKey()
                             << "' holds " << data.size() << " bytes, its type "
                             << type << " needs " << size;
    result.borrowed = data.data();
    return result;
  }
  std::vector<uint8_t> &bytes = result.owned;
  bytes.resize(size);
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return at->emitError() << "unsupported constant attribute " << value;
  if (type.getElementType().isInteger(1)) {
    // i1 is bit-packed in MLIR's storage; the program holds one byte each.
    size_t i = 0;
    for (bool b : dense.getValues<bool>())
      bytes[i++] = b ? 1 : 0;
    return result;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    for (size_t i = 0; i < count; ++i)
      std::memcpy(bytes.data() + i * elementBytes, raw.data(), elementBytes);
    return result;
  }
  // Reported at the op's location only: printing the op would print the
  // attribute, whose elements the printer reads past its data.
  if (raw.size() != bytes.size())
    return emitError(at->getLoc())
           << "constant of type " << type << " has " << raw.size()
           << " bytes of data, expected " << bytes.size();
  if (!bytes.empty()) // an empty tensor has no data pointer to copy from
    std::memcpy(bytes.data(), raw.data(), bytes.size());
  return result;
}

/// One attribute in program form, or failure for an attribute kind the
/// program format cannot hold.
FailureOr<rt::AttrValue> toAttrValue(Operation *op, StringRef name,
                                     Attribute attr) {
  if (auto b = dyn_cast<BoolAttr>(attr))
    return rt::AttrValue(b.getValue());
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return rt::AttrValue(static_cast<int64_t>(i.getInt()));
  if (auto f = dyn_cast<FloatAttr>(attr))
    return rt::AttrValue(f.getValueAsDouble());
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
    return rt::AttrValue(std::vector<int64_t>(a.asArrayRef().begin(),
                                              a.asArrayRef().end()));
  if (auto g = dyn_cast<aten::GeluApproximateAttr>(attr))
    return rt::AttrValue(aten::stringifyGeluApproximate(g.getValue()).str());
  if (auto d = dyn_cast<aten::DivRoundingAttr>(attr))
    return rt::AttrValue(aten::stringifyDivRounding(d.getValue()).str());
  if (auto r = dyn_cast<aten::ScatterReduceAttr>(attr))
    return rt::AttrValue(aten::stringifyScatterReduce(r.getValue()).str());
  return op->emitError() << "attribute '" << name << "' (" << attr
                         << ") has no program encoding";
}

/// The operands in ODS order with a null Value for each absent optional.
SmallVector<Value> operandSlots(Operation *op) {
  SmallVector<Value> slots;
  if (auto sizes = dyn_cast_or_null<DenseI32ArrayAttr>(
          op->getInherentAttr("operandSegmentSizes").value_or(Attribute()))) {
    unsigned next = 0;
    for (int32_t size : sizes.asArrayRef()) {
      if (size == 0)
        slots.push_back(Value());
      for (int32_t i = 0; i < size; ++i)
        slots.push_back(op->getOperand(next++));
    }
    return slots;
  }
  llvm::append_range(slots, op->getOperands());
  // Ops with one trailing optional operand record no segment sizes.
  unsigned expected =
      llvm::TypeSwitch<Operation *, unsigned>(op)
          .Case<aten::ConvolutionOp>([](auto) { return 3; })
          .Case<aten::LinearOp>([](auto) { return 3; })
          .Case<aten::ScaledDotProductAttentionOp>([](auto) { return 4; })
          .Default([&](Operation *) { return op->getNumOperands(); });
  while (slots.size() < expected)
    slots.push_back(Value());
  return slots;
}

/// The value whose program tensor `value` shares: itself, or what the ops
/// that produce it hold another way inside `backend`'s blob
/// (DelegateEmitter::heldValue). In aten form they are one value.
Value programValue(const DelegateEmitter &backend, Value value) {
  while (Operation *producer = value.getDefiningOp()) {
    Value held = backend.heldValue(producer);
    if (!held)
      break;
    value = held;
  }
  return value;
}

void addInstruction(rt::ProgramBuilder &builder, rt::KernelCall call) {
  builder.addKernelCall(std::move(call));
}
void addInstruction(rt::ProgramBuilder &builder, rt::DelegateCall call) {
  builder.addDelegateCall(std::move(call));
}

/// Collects the program in two phases: first tensors and instructions in
/// function order (ids given in creation order), then the memory plan, then
/// everything handed to the ProgramBuilder in id order so ids match.
class Emitter {
public:
  explicit Emitter(const EmitOptions &options) : options_(options) {}
  LogicalResult run(func::FuncOp func, std::vector<uint8_t> &bytes,
                    EmitStats &stats);

private:
  /// A new tensor of `type`, bound to `value` unless that is null.
  FailureOr<int32_t> addTensor(Type type, Value value, Operation *at,
                               rt::TensorKind kind, std::string name);
  LogicalResult emitConstant(arith::ConstantOp op);
  /// Records `op` as a kernel call; with `internal`, its results are
  /// delegate-internal tensors except those in `bound`.
  FailureOr<rt::KernelCall> recordOp(Operation *op, bool internal);
  /// Fails at `op` when its portable kernel would refuse `call` at load.
  LogicalResult checkWithKernel(Operation *op,
                                const rt::KernelCall &call) const;
  /// Records a `duet.layout_convert` in its aten form, `aten.clone`.
  FailureOr<rt::KernelCall> recordLayoutConvert(LayoutConvertOp op);
  LogicalResult emitKernelCall(Operation *op);
  LogicalResult emitDelegate(DelegateOp op);
  LogicalResult emitReturn(func::ReturnOp op);
  /// The id of an operand, extending its lifetime to the current step.
  FailureOr<int32_t> use(Value value, Operation *user);

  llvm::DenseMap<Value, int32_t> ids_;
  std::vector<rt::TensorInfo> infos_;
  /// Constant bytes by tensor id.
  std::map<int32_t, ConstantData> constants_;
  /// Lifetimes of arena tensors by tensor id.
  std::map<int32_t, PlanRequest> lifetimes_;
  std::vector<rt::Instruction> instructions_;
  std::vector<rt::DelegateSpec> delegates_;
  std::vector<int32_t> inputs_, outputs_;
  EmitOptions options_;

  friend class EmitContext;
};

/// What a backend's emitter sees of the program being written.
class EmitContext : public DelegateEmitContext {
public:
  explicit EmitContext(Emitter &emitter) : emitter_(emitter) {}
  int32_t tensorId(Value value) const override {
    auto it = emitter_.ids_.find(value);
    return it == emitter_.ids_.end() ? -1 : it->second;
  }
  int32_t addConstant(std::string name, rt::DType dtype,
                      std::vector<int64_t> sizes,
                      std::vector<uint8_t> bytes) override {
    rt::TensorInfo info;
    info.name = std::move(name);
    info.dtype = dtype;
    info.sizes = std::move(sizes);
    info.kind = rt::TensorKind::constant;
    auto id = static_cast<int32_t>(emitter_.infos_.size());
    emitter_.infos_.push_back(std::move(info));
    emitter_.constants_[id].owned = std::move(bytes);
    return id;
  }
  void setPlacement(int32_t id, rt::Placement placement) override {
    rt::TensorInfo &info = emitter_.infos_.at(id);
    if (!info.placement)
      info.placement = std::move(placement);
  }
  const partition::BackendOptions &options() const override {
    return emitter_.options_.backendOptions;
  }

private:
  Emitter &emitter_;
};

/// A readable tensor name: the op's name location (the .pt2 node name) when
/// it has one, else the op name; `#i` for the i-th result of a multi-result op.
std::string nameOf(Operation *op, unsigned result) {
  std::string base;
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    base = loc.getName().str();
  else
    base = op->getName().stripDialect().str();
  if (op->getNumResults() > 1)
    base += "#" + std::to_string(result);
  return base;
}

/// The .pt2 node an op computes (KernelCall.node): its name location, or in
/// a fused location the last name, since the passes that fuse ops
/// (duet-fold-batchnorm) list the op whose result the fused op produces
/// last. Ops a decomposition made keep the decomposed op's location, hence
/// its name. Empty when the location names no node.
std::string nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : llvm::reverse(fused.getLocations()))
      if (std::string name = nodeName(inner); !name.empty())
        return name;
  return {};
}

FailureOr<int32_t> Emitter::addTensor(Type type, Value value, Operation *at,
                                      rt::TensorKind kind, std::string name) {
  auto dtype = toDType(at, type);
  if (failed(dtype))
    return failure();
  rt::TensorInfo info;
  info.name = std::move(name);
  info.dtype = *dtype;
  auto shape = cast<RankedTensorType>(type).getShape();
  info.sizes.assign(shape.begin(), shape.end());
  info.kind = kind;
  uint64_t bytes = rt::dtypeSize(info.dtype);
  for (int64_t size : shape)
    bytes *= static_cast<uint64_t>(size);
  auto id = static_cast<int32_t>(infos_.size());
  infos_.push_back(std::move(info));
  if (value)
    ids_[value] = id;
  if (kind != rt::TensorKind::constant &&
      kind != rt::TensorKind::delegateInternal) {
    int64_t step = static_cast<int64_t>(instructions_.size());
    lifetimes_[id] = {bytes, step, step};
  }
  return id;
}

FailureOr<int32_t> Emitter::use(Value value, Operation *user) {
  auto it = ids_.find(value);
  if (it == ids_.end())
    return user->emitError() << "operand is not a program value (is the "
                                "function in program order?)";
  auto life = lifetimes_.find(it->second);
  if (life != lifetimes_.end())
    life->second.lastStep =
        std::max<int64_t>(life->second.lastStep, instructions_.size());
  return it->second;
}

LogicalResult Emitter::emitConstant(arith::ConstantOp op) {
  auto value = dyn_cast<ElementsAttr>(op.getValue());
  if (!value)
    return op.emitError() << "only tensor constants can be emitted";
  auto id =
      addTensor(op.getType(), op.getResult(), op, rt::TensorKind::constant,
                nameOf(op, 0));
  if (failed(id))
    return failure();
  auto bytes = constantBytes(op, value, rt::dtypeSize(infos_[*id].dtype));
  if (failed(bytes))
    return failure();
  constants_[*id] = std::move(*bytes);
  return success();
}

FailureOr<rt::KernelCall> Emitter::recordOp(Operation *op, bool internal) {
  rt::KernelCall call;
  call.op = op->getName().getStringRef().str();
  call.node = nodeName(op->getLoc());
  for (Value operand : operandSlots(op)) {
    if (!operand) {
      call.inputs.push_back(-1);
      continue;
    }
    auto id = use(operand, op);
    if (failed(id))
      return failure();
    call.inputs.push_back(*id);
  }
  // Every attribute is written, defaults included, so that kernels never
  // depend on defaults of their own.
  NamedAttrList attrs(op->getAttrDictionary());
  op->getName().populateDefaultAttrs(attrs);
  for (NamedAttribute attr : attrs) {
    // Dialect attributes (`duet.`, `xnn.`, `fusion.`: layouts, fusions)
    // record how a backend lowers the op, not what it computes.
    StringRef name = attr.getName().strref();
    if (name == "operandSegmentSizes" || name.contains('.'))
      continue;
    auto value = toAttrValue(op, name, attr.getValue());
    if (failed(value))
      return failure();
    call.attributes.push_back({name.str(), std::move(*value)});
  }
  for (OpResult result : op->getResults()) {
    // A delegate's yielded values already have the delegate result's tensor.
    auto bound = ids_.find(result);
    if (bound != ids_.end()) {
      call.outputs.push_back(bound->second);
      continue;
    }
    auto id = addTensor(result.getType(), result, op,
                        internal ? rt::TensorKind::delegateInternal
                                 : rt::TensorKind::activation,
                        nameOf(op, result.getResultNumber()));
    if (failed(id))
      return failure();
    call.outputs.push_back(*id);
  }
  if (failed(checkWithKernel(op, call)))
    return failure();
  return call;
}

LogicalResult Emitter::checkWithKernel(Operation *op,
                                       const rt::KernelCall &call) const {
  // The loader checks every recorded op against its portable kernel (they
  // are the fallback and the reference of delegated ops): a call the kernel
  // refuses is refused here, at the op's node, instead of at load.
  rt::Status status = rt::checkKernelCall(call, infos_);
  if (status.isOk())
    return success();
  return op->emitError() << "the portable kernel of " << call.op
                         << ", which runs this op (or is its reference when "
                            "a delegate runs it), cannot: "
                         << status.message();
}

FailureOr<rt::KernelCall> Emitter::recordLayoutConvert(LayoutConvertOp op) {
  rt::KernelCall call;
  call.op = aten::CloneOp::getOperationName().str();
  auto input = use(op.getInput(), op);
  if (failed(input))
    return failure();
  call.inputs.push_back(*input);
  auto bound = ids_.find(op.getResult());
  if (bound != ids_.end()) {
    call.outputs.push_back(bound->second);
    return call;
  }
  auto output = addTensor(op.getType(), op.getResult(), op,
                          rt::TensorKind::delegateInternal,
                          nameOf(op.getInput().getDefiningOp()
                                     ? op.getInput().getDefiningOp()
                                     : op.getOperation(),
                                 0) +
                              ".converted");
  if (failed(output))
    return failure();
  call.outputs.push_back(*output);
  return call;
}

LogicalResult Emitter::emitKernelCall(Operation *op) {
  if (!isa<aten::AtenDialect>(op->getDialect()))
    return op->emitError() << "op '" << op->getName()
                           << "' cannot be emitted into a program";
  auto call = recordOp(op, /*internal=*/false);
  if (failed(call))
    return failure();
  instructions_.push_back(std::move(*call));
  return success();
}

LogicalResult Emitter::emitDelegate(DelegateOp op) {
  DelegateEmitter *backend =
      partition::backendLowering(op.getBackend()).emitter();
  if (!backend)
    return op.emitError() << "no program emitter is built for the '"
                          << stringifyDelegateKind(op.getBackend())
                          << "' delegate; compile with --backends portable "
                             "or a backend this build has";
  rt::DelegateCall call;
  call.delegate = static_cast<uint32_t>(delegates_.size());
  Block &body = op.getBody().front();
  for (auto [arg, input] : llvm::zip(body.getArguments(), op.getInputs())) {
    auto id = use(input, op);
    if (failed(id))
      return failure();
    ids_[arg] = *id;
    call.inputs.push_back(*id);
  }
  // The delegate's results are ordinary activations; the region values it
  // yields are bound to them, so its recorded ops write them directly.
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [result, yieldedValue] :
       llvm::zip(op.getResults(), yield.getValues())) {
    Value yielded = programValue(*backend, yieldedValue);
    Operation *producer = yielded.getDefiningOp();
    if (!producer || isa<arith::ConstantOp>(producer) || ids_.count(yielded))
      return op.emitError() << "a delegate must compute each result it "
                               "yields (result "
                            << result.getResultNumber()
                            << " is an input, a constant or yielded twice)";
    auto id = addTensor(result.getType(), result, op,
                        rt::TensorKind::activation,
                        nameOf(producer, cast<OpResult>(yielded)
                                             .getResultNumber()));
    if (failed(id))
      return failure();
    ids_[yielded] = *id;
    ids_[yieldedValue] = *id;
    call.outputs.push_back(*id);
  }
  rt::DelegateSpec spec;
  spec.backend = stringifyDelegateKind(op.getBackend()).str();
  for (Operation &inner : body.without_terminator()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(inner)) {
      if (failed(emitConstant(constant)))
        return failure();
      continue;
    }
    if (Value held = backend->heldValue(&inner)) {
      auto id = ids_.find(programValue(*backend, held));
      if (id == ids_.end())
        return inner.emitError() << "operand is not a program value (is the "
                                    "function in program order?)";
      ids_[inner.getResult(0)] = id->second;
      continue;
    }
    if (auto convert = dyn_cast<LayoutConvertOp>(inner)) {
      // A change of layout keeps every value: in aten form it is a copy.
      auto recorded = recordLayoutConvert(convert);
      if (failed(recorded))
        return failure();
      spec.ops.push_back(std::move(*recorded));
      continue;
    }
    if (!isa<aten::AtenDialect>(inner.getDialect()))
      return inner.emitError() << "op '" << inner.getName()
                               << "' has no aten form to record in the "
                                  "program";
    auto recorded = recordOp(&inner, /*internal=*/true);
    if (failed(recorded))
      return failure();
    spec.ops.push_back(std::move(*recorded));
  }
  EmitContext context(*this);
  if (failed(backend->emit(op, context, spec.blob)))
    return failure();
  delegates_.push_back(std::move(spec));
  instructions_.push_back(std::move(call));
  return success();
}

LogicalResult Emitter::emitReturn(func::ReturnOp op) {
  llvm::DenseSet<int32_t> seen;
  for (auto [index, value] : llvm::enumerate(op.getOperands())) {
    auto id = use(value, op);
    if (failed(id))
      return failure();
    rt::TensorInfo &info = infos_[*id];
    // An output must be a buffer of its own that the last instruction wrote:
    // an input, a constant or a value returned twice is copied into one.
    if (info.kind != rt::TensorKind::activation || !seen.insert(*id).second) {
      rt::KernelCall copy;
      copy.op = aten::CloneOp::getOperationName().str();
      copy.inputs.push_back(*id);
      auto out = addTensor(value.getType(), Value(), op,
                           rt::TensorKind::output,
                           "output" + std::to_string(index));
      if (failed(out))
        return failure();
      copy.outputs.push_back(*out);
      instructions_.push_back(std::move(copy));
      id = *out;
    }
    infos_[*id].kind = rt::TensorKind::output;
    if (infos_[*id].name.empty())
      infos_[*id].name = "output" + std::to_string(index);
    outputs_.push_back(*id);
    seen.insert(*id);
  }
  return success();
}

LogicalResult Emitter::run(func::FuncOp func, std::vector<uint8_t> &bytes,
                           EmitStats &stats) {
  for (BlockArgument arg : func.getArguments()) {
    std::string name = "input" + std::to_string(arg.getArgNumber());
    if (auto attr = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      "duet.name"))
      name = attr.str();
    auto id = addTensor(arg.getType(), arg, func, rt::TensorKind::input, name);
    if (failed(id))
      return failure();
    inputs_.push_back(*id);
  }
  for (Operation &op : func.getBody().front()) {
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case<arith::ConstantOp>([&](auto c) { return emitConstant(c); })
            .Case<func::ReturnOp>([&](auto r) { return emitReturn(r); })
            .Case<DelegateOp>([&](auto d) { return emitDelegate(d); })
            .Default([&](Operation *o) { return emitKernelCall(o); });
    if (failed(result))
      return failure();
  }
  // Inputs are written before the first step and outputs read after the last.
  // Inputs also stay untouched to the end, so that a program can be run again
  // on the inputs it was given without setting them anew.
  int64_t end = static_cast<int64_t>(instructions_.size());
  for (int32_t id : inputs_)
    lifetimes_[id] = {lifetimes_[id].bytes, -1, end};
  for (int32_t id : outputs_)
    lifetimes_[id].lastStep = end;

  std::vector<PlanRequest> requests;
  std::vector<int32_t> planned;
  for (auto &[id, life] : lifetimes_) {
    requests.push_back(life);
    requests.back().name = infos_[id].name;
    planned.push_back(id);
  }
  ArenaAssignment plan;
  if (std::optional<std::string> error =
          planMemoryWithinLimits(requests, rt::kArenaAlignment, plan))
    return func.emitError() << *error;
  for (auto [index, id] : llvm::enumerate(planned))
    infos_[id].arenaOffset = static_cast<int64_t>(plan.offsets[index]);

  // The loader bounds a run's work (rt::checkWork); a program it would
  // refuse is not written.
  rt::Status work = rt::checkWork(
      rt::programWork(infos_, instructions_, delegates_), options_.maxWork);
  if (!work.isOk())
    return func.emitError() << work.message();
  rt::ProgramBuilder builder;
  for (auto [id, info] : llvm::enumerate(infos_)) {
    auto constant = constants_.find(id);
    if (constant != constants_.end() && constant->second.borrowed)
      builder.addConstant(info, constant->second.borrowed);
    else if (constant != constants_.end())
      builder.addConstant(info, std::move(constant->second.owned));
    else
      builder.addTensor(info);
  }
  builder.setInputs(inputs_);
  builder.setOutputs(outputs_);
  for (rt::DelegateSpec &delegate : delegates_)
    builder.addDelegate(std::move(delegate));
  for (rt::Instruction &instruction : instructions_)
    std::visit([&](auto &call) { addInstruction(builder, std::move(call)); },
               instruction);
  builder.setMemoryPlan({plan.arenaBytes, plan.lowerBoundBytes});
  builder.setTargetCosts(options_.targetCosts);
  rt::Status status = builder.serialize(bytes);
  if (!status.isOk())
    return func.emitError() << "writing the program: " << status.message();

  stats.arenaBytes = plan.arenaBytes;
  stats.arenaLowerBoundBytes = plan.lowerBoundBytes;
  stats.constantBytes = builder.constantSegmentBytes();
  for (const rt::Instruction &instruction : instructions_)
    ++(std::holds_alternative<rt::KernelCall>(instruction)
           ? stats.kernelCalls
           : stats.delegateCalls);
  return success();
}

} // namespace

LogicalResult emitProgram(func::FuncOp func, std::vector<uint8_t> &bytes,
                          EmitStats &stats, const EmitOptions &options) {
  return Emitter(options).run(func, bytes, stats);
}

} // namespace duet
