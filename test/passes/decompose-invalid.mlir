// RUN: duet-opt --duet-decompose="native=aten.hardswish,aten.bogus" --verify-diagnostics %s
// RUN: not duet-opt --duet-decompose="native=hardswish" %s 2>&1 | FileCheck %s --check-prefix=HINT

// An op name in `native` that no dialect registers is an error naming it,
// instead of a native set that silently lacks the op.
// expected-error @+1 {{duet-decompose: unknown op 'aten.bogus' in the native list; give registered op names, such as aten.hardswish}}
func.func @bad_native_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aten.hardswish %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// A name given without its dialect prefix gets the qualified name as a hint.
// HINT: error: duet-decompose: unknown op 'hardswish' in the native list; did you mean 'aten.hardswish'?
