"""Everything between IR text and machine code.

* :mod:`codegen.llvm.binding` - the one module that imports llvmlite: target machine,
  optimisation, JIT, the compiled-module cache.
* :mod:`codegen.llvm.sources` - the hand-written IR kernels (``*.ll`` files beside it).
* :mod:`codegen.llvm.buffers` - ownership of the arrays compiled code reads and writes.

Importing this package (or ``sources`` / ``buffers``) does not import llvmlite.
"""
