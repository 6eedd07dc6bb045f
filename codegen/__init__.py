"""codegen: partial evaluation of fitted models, LLVM IR emission, JIT and cache."""
