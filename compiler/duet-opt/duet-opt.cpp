//===- duet-opt.cpp - mlir-opt with the duet dialects and passes ---------===//

#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"
#include "partitioners/Partitioner.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<duet::aten::AtenDialect, duet::DuetDialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect>();
  duet::registerPartitionerDialects(registry);
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  duet::registerDuetPasses();
  duet::registerPartitionerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "duet optimizer driver\n", registry));
}
