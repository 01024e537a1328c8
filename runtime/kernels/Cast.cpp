//===- Cast.cpp - element type conversion ---------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"

#include <cstring>

namespace duet::rt::portable {

Status cast(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  if (ctx.checking())
    return Status::ok();
  int64_t n = x.numel();
  if (x.dtype == y.dtype) {
    if (n > 0 && x.data != y.data)
      std::memmove(y.data, x.data, x.bytes());
    return Status::ok();
  }
  visitDType(x.dtype, [&](auto from) {
    using From = typename decltype(from)::type;
    visitDType(y.dtype, [&](auto to) {
      using To = typename decltype(to)::type;
      const From *in = x.as<const From>();
      To *out = y.as<To>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = convertElement<To>(in[i]);
    });
  });
  return Status::ok();
}

} // namespace duet::rt::portable
