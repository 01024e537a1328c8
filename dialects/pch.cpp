// Anchor for the precompiled MLIR headers shared by the compiler targets.
