; Vector math for the MLP kernels (codegen.mlp.emit), on <8 x double> (LANES = 8):
; the intrinsics the emitted code calls, and @geco_vexp, because LLVM has no vector exp here and a
; scalar libm call per hidden unit costs more than the matrix product.

declare <8 x double> @llvm.fmuladd.v8f64(<8 x double>, <8 x double>, <8 x double>)
declare <8 x double> @llvm.fma.v8f64(<8 x double>, <8 x double>, <8 x double>)
declare <8 x double> @llvm.maxnum.v8f64(<8 x double>, <8 x double>)
declare <8 x double> @llvm.minnum.v8f64(<8 x double>, <8 x double>)
declare <8 x double> @llvm.rint.v8f64(<8 x double>)
declare <8 x double> @llvm.fabs.v8f64(<8 x double>)
declare <8 x double> @llvm.copysign.v8f64(<8 x double>, <8 x double>)
declare double @llvm.exp.f64(double)
declare double @llvm.maxnum.f64(double, double)
declare double @llvm.minnum.f64(double, double)
declare i64 @llvm.umin.i64(i64, i64)

; exp(x) on 8 lanes: x clamped to [-708, 709], k = rint(x/ln2), r = x - k*ln2 (Cody-Waite, two
; parts), e^r by a degree-13 Taylor polynomial (|r| <= ln2/2: truncation < 2e-16), times 2^k built
; in the exponent bits (%h12 .. %h0: Horner steps with coefficients 1/k!, k = 13 .. 0, as exact hex
; doubles). A few ulp: far inside the 1e-12 contract. NaN stays NaN (as libm's exp), although
; the clamp alone would turn it into exp(-708).
define internal <8 x double> @geco_vexp(<8 x double> %x0) alwaysinline {
entry:
  %x1 = call <8 x double> @llvm.maxnum.v8f64(<8 x double> %x0, <8 x double> <double 0xC086200000000000, double 0xC086200000000000, double 0xC086200000000000, double 0xC086200000000000, double 0xC086200000000000, double 0xC086200000000000, double 0xC086200000000000, double 0xC086200000000000>)
  %x = call <8 x double> @llvm.minnum.v8f64(<8 x double> %x1, <8 x double> <double 0x4086280000000000, double 0x4086280000000000, double 0x4086280000000000, double 0x4086280000000000, double 0x4086280000000000, double 0x4086280000000000, double 0x4086280000000000, double 0x4086280000000000>)
  %kx = fmul <8 x double> %x, <double 0x3FF71547652B82FE, double 0x3FF71547652B82FE, double 0x3FF71547652B82FE, double 0x3FF71547652B82FE, double 0x3FF71547652B82FE, double 0x3FF71547652B82FE, double 0x3FF71547652B82FE, double 0x3FF71547652B82FE>
  %k = call <8 x double> @llvm.rint.v8f64(<8 x double> %kx)
  %r1 = call <8 x double> @llvm.fma.v8f64(<8 x double> %k, <8 x double> <double 0xBFE62E42FEE00000, double 0xBFE62E42FEE00000, double 0xBFE62E42FEE00000, double 0xBFE62E42FEE00000, double 0xBFE62E42FEE00000, double 0xBFE62E42FEE00000, double 0xBFE62E42FEE00000, double 0xBFE62E42FEE00000>, <8 x double> %x)
  %r = call <8 x double> @llvm.fma.v8f64(<8 x double> %k, <8 x double> <double 0xBDEA39EF35793C76, double 0xBDEA39EF35793C76, double 0xBDEA39EF35793C76, double 0xBDEA39EF35793C76, double 0xBDEA39EF35793C76, double 0xBDEA39EF35793C76, double 0xBDEA39EF35793C76, double 0xBDEA39EF35793C76>, <8 x double> %r1)
  %h12 = call <8 x double> @llvm.fma.v8f64(<8 x double> <double 0x3DE6124613A86D09, double 0x3DE6124613A86D09, double 0x3DE6124613A86D09, double 0x3DE6124613A86D09, double 0x3DE6124613A86D09, double 0x3DE6124613A86D09, double 0x3DE6124613A86D09, double 0x3DE6124613A86D09>, <8 x double> %r, <8 x double> <double 0x3E21EED8EFF8D898, double 0x3E21EED8EFF8D898, double 0x3E21EED8EFF8D898, double 0x3E21EED8EFF8D898, double 0x3E21EED8EFF8D898, double 0x3E21EED8EFF8D898, double 0x3E21EED8EFF8D898, double 0x3E21EED8EFF8D898>)
  %h11 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h12, <8 x double> %r, <8 x double> <double 0x3E5AE64567F544E4, double 0x3E5AE64567F544E4, double 0x3E5AE64567F544E4, double 0x3E5AE64567F544E4, double 0x3E5AE64567F544E4, double 0x3E5AE64567F544E4, double 0x3E5AE64567F544E4, double 0x3E5AE64567F544E4>)
  %h10 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h11, <8 x double> %r, <8 x double> <double 0x3E927E4FB7789F5C, double 0x3E927E4FB7789F5C, double 0x3E927E4FB7789F5C, double 0x3E927E4FB7789F5C, double 0x3E927E4FB7789F5C, double 0x3E927E4FB7789F5C, double 0x3E927E4FB7789F5C, double 0x3E927E4FB7789F5C>)
  %h9 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h10, <8 x double> %r, <8 x double> <double 0x3EC71DE3A556C734, double 0x3EC71DE3A556C734, double 0x3EC71DE3A556C734, double 0x3EC71DE3A556C734, double 0x3EC71DE3A556C734, double 0x3EC71DE3A556C734, double 0x3EC71DE3A556C734, double 0x3EC71DE3A556C734>)
  %h8 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h9, <8 x double> %r, <8 x double> <double 0x3EFA01A01A01A01A, double 0x3EFA01A01A01A01A, double 0x3EFA01A01A01A01A, double 0x3EFA01A01A01A01A, double 0x3EFA01A01A01A01A, double 0x3EFA01A01A01A01A, double 0x3EFA01A01A01A01A, double 0x3EFA01A01A01A01A>)
  %h7 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h8, <8 x double> %r, <8 x double> <double 0x3F2A01A01A01A01A, double 0x3F2A01A01A01A01A, double 0x3F2A01A01A01A01A, double 0x3F2A01A01A01A01A, double 0x3F2A01A01A01A01A, double 0x3F2A01A01A01A01A, double 0x3F2A01A01A01A01A, double 0x3F2A01A01A01A01A>)
  %h6 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h7, <8 x double> %r, <8 x double> <double 0x3F56C16C16C16C17, double 0x3F56C16C16C16C17, double 0x3F56C16C16C16C17, double 0x3F56C16C16C16C17, double 0x3F56C16C16C16C17, double 0x3F56C16C16C16C17, double 0x3F56C16C16C16C17, double 0x3F56C16C16C16C17>)
  %h5 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h6, <8 x double> %r, <8 x double> <double 0x3F81111111111111, double 0x3F81111111111111, double 0x3F81111111111111, double 0x3F81111111111111, double 0x3F81111111111111, double 0x3F81111111111111, double 0x3F81111111111111, double 0x3F81111111111111>)
  %h4 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h5, <8 x double> %r, <8 x double> <double 0x3FA5555555555555, double 0x3FA5555555555555, double 0x3FA5555555555555, double 0x3FA5555555555555, double 0x3FA5555555555555, double 0x3FA5555555555555, double 0x3FA5555555555555, double 0x3FA5555555555555>)
  %h3 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h4, <8 x double> %r, <8 x double> <double 0x3FC5555555555555, double 0x3FC5555555555555, double 0x3FC5555555555555, double 0x3FC5555555555555, double 0x3FC5555555555555, double 0x3FC5555555555555, double 0x3FC5555555555555, double 0x3FC5555555555555>)
  %h2 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h3, <8 x double> %r, <8 x double> <double 0x3FE0000000000000, double 0x3FE0000000000000, double 0x3FE0000000000000, double 0x3FE0000000000000, double 0x3FE0000000000000, double 0x3FE0000000000000, double 0x3FE0000000000000, double 0x3FE0000000000000>)
  %h1 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h2, <8 x double> %r, <8 x double> <double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000>)
  %h0 = call <8 x double> @llvm.fma.v8f64(<8 x double> %h1, <8 x double> %r, <8 x double> <double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000, double 0x3FF0000000000000>)
  %ki = fptosi <8 x double> %k to <8 x i64>
  %kb = add <8 x i64> %ki, <i64 1023, i64 1023, i64 1023, i64 1023, i64 1023, i64 1023, i64 1023, i64 1023>
  %ks = shl <8 x i64> %kb, <i64 52, i64 52, i64 52, i64 52, i64 52, i64 52, i64 52, i64 52>
  %scale = bitcast <8 x i64> %ks to <8 x double>
  %res = fmul <8 x double> %h0, %scale
  %isnan = fcmp uno <8 x double> %x0, zeroinitializer
  %out = select <8 x i1> %isnan, <8 x double> %x0, <8 x double> %res
  ret <8 x double> %out
}
