; Delta = (p): block columns in this order
; folded into the layer-1 bias (x's values): q
; folded bias = [2.125, 0.5, 0.5]
; column 0: p: u = v -> u * W1[input 0]
; generic kernel: one per model; x and Delta arrive as data
; network 2 -> 3 -> 1, hidden activation relu, output logistic, desired column 1; vectors of 8 doubles, tiles of 8 rows

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

define void @mlp_score(i64 %n, ptr noalias readonly %cols, i64 %ncols, ptr noalias readonly %terms, i64 %nterms, ptr noalias readonly %bias, ptr noalias readonly %first, ptr noalias readonly %dense, ptr noalias %out) nounwind {
entry:
  %W2 = getelementptr inbounds double, ptr %dense, i64 0
  %b2 = getelementptr inbounds double, ptr %dense, i64 24
  ; two activation buffers of 8 rows x 8 padded units (ping-pong)
  %buf1 = alloca [64 x double], align 64
  %buf2 = alloca [64 x double], align 64
  %rem3 = urem i64 %n, 8
  %nfull4 = sub i64 %n, %rem3
  %nm15 = sub i64 %n, 1
  ; whole tiles of 8 rows
  br label %tile.6.head
tile.6.head:
  %tile.6.i = phi i64 [ 0, %entry ], [ %tile.6.next, %l2.blk.429.exit ]
  %tile.6.cond = icmp slt i64 %tile.6.i, %nfull4
  br i1 %tile.6.cond, label %tile.6.body, label %tile.6.exit
tile.6.body:
  %row7 = add i64 %tile.6.i, 1
  %row8 = add i64 %tile.6.i, 2
  %row9 = add i64 %tile.6.i, 3
  %row10 = add i64 %tile.6.i, 4
  %row11 = add i64 %tile.6.i, 5
  %row12 = add i64 %tile.6.i, 6
  %row13 = add i64 %tile.6.i, 7
  ; layer 1 (2 -> 3): z = folded bias + the terms of the features in Delta
  br label %zinit.14.head
zinit.14.head:
  %zinit.14.i = phi i64 [ 0, %tile.6.body ], [ %zinit.14.next, %zinit.14.body ]
  %zinit.14.cond = icmp slt i64 %zinit.14.i, 8
  br i1 %zinit.14.cond, label %zinit.14.body, label %zinit.14.exit
zinit.14.body:
  %p15 = getelementptr inbounds double, ptr %bias, i64 %zinit.14.i
  %v16 = load <8 x double>, ptr %p15, align 8
  %o17 = add i64 %zinit.14.i, 0
  %p18 = getelementptr inbounds double, ptr %buf1, i64 %o17
  store <8 x double> %v16, ptr %p18, align 8
  %o19 = add i64 %zinit.14.i, 8
  %p20 = getelementptr inbounds double, ptr %buf1, i64 %o19
  store <8 x double> %v16, ptr %p20, align 8
  %o21 = add i64 %zinit.14.i, 16
  %p22 = getelementptr inbounds double, ptr %buf1, i64 %o21
  store <8 x double> %v16, ptr %p22, align 8
  %o23 = add i64 %zinit.14.i, 24
  %p24 = getelementptr inbounds double, ptr %buf1, i64 %o23
  store <8 x double> %v16, ptr %p24, align 8
  %o25 = add i64 %zinit.14.i, 32
  %p26 = getelementptr inbounds double, ptr %buf1, i64 %o25
  store <8 x double> %v16, ptr %p26, align 8
  %o27 = add i64 %zinit.14.i, 40
  %p28 = getelementptr inbounds double, ptr %buf1, i64 %o27
  store <8 x double> %v16, ptr %p28, align 8
  %o29 = add i64 %zinit.14.i, 48
  %p30 = getelementptr inbounds double, ptr %buf1, i64 %o29
  store <8 x double> %v16, ptr %p30, align 8
  %o31 = add i64 %zinit.14.i, 56
  %p32 = getelementptr inbounds double, ptr %buf1, i64 %o31
  store <8 x double> %v16, ptr %p32, align 8
  %zinit.14.next = add nuw nsw i64 %zinit.14.i, 8
  br label %zinit.14.head
zinit.14.exit:
  ; terms[q] = (kind: 0 affine | 1 table, column in the block, offset into first)
  br label %term.33.head
term.33.head:
  %term.33.i = phi i64 [ 0, %zinit.14.exit ], [ %term.33.next, %join.48 ]
  %term.33.cond = icmp slt i64 %term.33.i, %nterms
  br i1 %term.33.cond, label %term.33.body, label %term.33.exit
term.33.body:
  %q334 = mul nuw nsw i64 %term.33.i, 3
  %q35 = add i64 %q334, 0
  %tp36 = getelementptr inbounds i64, ptr %terms, i64 %q35
  %kind37 = load i64, ptr %tp36, align 8
  %q38 = add i64 %q334, 1
  %tp39 = getelementptr inbounds i64, ptr %terms, i64 %q38
  %k40 = load i64, ptr %tp39, align 8
  %q41 = add i64 %q334, 2
  %tp42 = getelementptr inbounds i64, ptr %terms, i64 %q41
  %off43 = load i64, ptr %tp42, align 8
  %blk44 = getelementptr inbounds double, ptr %first, i64 %off43
  %isaff45 = icmp eq i64 %kind37, 0
  br i1 %isaff45, label %affine.46, label %table.47
affine.46:
  %p49 = getelementptr inbounds double, ptr %blk44, i64 0
  %sub50 = load double, ptr %p49, align 8
  %p51 = getelementptr inbounds double, ptr %blk44, i64 1
  %div52 = load double, ptr %p51, align 8
  %p53 = getelementptr inbounds double, ptr %blk44, i64 2
  %mul54 = load double, ptr %p53, align 8
  %p55 = getelementptr inbounds double, ptr %blk44, i64 3
  %add56 = load double, ptr %p55, align 8
  %p57 = getelementptr inbounds double, ptr %blk44, i64 4
  %lo58 = load double, ptr %p57, align 8
  %p59 = getelementptr inbounds double, ptr %blk44, i64 5
  %hi60 = load double, ptr %p59, align 8
  %wrow61 = getelementptr inbounds double, ptr %blk44, i64 8
  %ri62 = mul i64 %tile.6.i, %ncols
  %ci63 = add i64 %ri62, %k40
  %p64 = getelementptr inbounds double, ptr %cols, i64 %ci63
  %col65 = load double, ptr %p64, align 8
  %u66 = fsub double %col65, %sub50
  %u67 = fdiv double %u66, %div52
  %u68 = fmul double %u67, %mul54
  %u69 = fadd double %u68, %add56
  %u70 = call double @llvm.maxnum.f64(double %u69, double %lo58)
  %u71 = call double @llvm.minnum.f64(double %u70, double %hi60)
  %s72 = insertelement <8 x double> poison, double %u71, i64 0
  %sv73 = shufflevector <8 x double> %s72, <8 x double> poison, <8 x i32> zeroinitializer
  %ri74 = mul i64 %row7, %ncols
  %ci75 = add i64 %ri74, %k40
  %p76 = getelementptr inbounds double, ptr %cols, i64 %ci75
  %col77 = load double, ptr %p76, align 8
  %u78 = fsub double %col77, %sub50
  %u79 = fdiv double %u78, %div52
  %u80 = fmul double %u79, %mul54
  %u81 = fadd double %u80, %add56
  %u82 = call double @llvm.maxnum.f64(double %u81, double %lo58)
  %u83 = call double @llvm.minnum.f64(double %u82, double %hi60)
  %s84 = insertelement <8 x double> poison, double %u83, i64 0
  %sv85 = shufflevector <8 x double> %s84, <8 x double> poison, <8 x i32> zeroinitializer
  %ri86 = mul i64 %row8, %ncols
  %ci87 = add i64 %ri86, %k40
  %p88 = getelementptr inbounds double, ptr %cols, i64 %ci87
  %col89 = load double, ptr %p88, align 8
  %u90 = fsub double %col89, %sub50
  %u91 = fdiv double %u90, %div52
  %u92 = fmul double %u91, %mul54
  %u93 = fadd double %u92, %add56
  %u94 = call double @llvm.maxnum.f64(double %u93, double %lo58)
  %u95 = call double @llvm.minnum.f64(double %u94, double %hi60)
  %s96 = insertelement <8 x double> poison, double %u95, i64 0
  %sv97 = shufflevector <8 x double> %s96, <8 x double> poison, <8 x i32> zeroinitializer
  %ri98 = mul i64 %row9, %ncols
  %ci99 = add i64 %ri98, %k40
  %p100 = getelementptr inbounds double, ptr %cols, i64 %ci99
  %col101 = load double, ptr %p100, align 8
  %u102 = fsub double %col101, %sub50
  %u103 = fdiv double %u102, %div52
  %u104 = fmul double %u103, %mul54
  %u105 = fadd double %u104, %add56
  %u106 = call double @llvm.maxnum.f64(double %u105, double %lo58)
  %u107 = call double @llvm.minnum.f64(double %u106, double %hi60)
  %s108 = insertelement <8 x double> poison, double %u107, i64 0
  %sv109 = shufflevector <8 x double> %s108, <8 x double> poison, <8 x i32> zeroinitializer
  %ri110 = mul i64 %row10, %ncols
  %ci111 = add i64 %ri110, %k40
  %p112 = getelementptr inbounds double, ptr %cols, i64 %ci111
  %col113 = load double, ptr %p112, align 8
  %u114 = fsub double %col113, %sub50
  %u115 = fdiv double %u114, %div52
  %u116 = fmul double %u115, %mul54
  %u117 = fadd double %u116, %add56
  %u118 = call double @llvm.maxnum.f64(double %u117, double %lo58)
  %u119 = call double @llvm.minnum.f64(double %u118, double %hi60)
  %s120 = insertelement <8 x double> poison, double %u119, i64 0
  %sv121 = shufflevector <8 x double> %s120, <8 x double> poison, <8 x i32> zeroinitializer
  %ri122 = mul i64 %row11, %ncols
  %ci123 = add i64 %ri122, %k40
  %p124 = getelementptr inbounds double, ptr %cols, i64 %ci123
  %col125 = load double, ptr %p124, align 8
  %u126 = fsub double %col125, %sub50
  %u127 = fdiv double %u126, %div52
  %u128 = fmul double %u127, %mul54
  %u129 = fadd double %u128, %add56
  %u130 = call double @llvm.maxnum.f64(double %u129, double %lo58)
  %u131 = call double @llvm.minnum.f64(double %u130, double %hi60)
  %s132 = insertelement <8 x double> poison, double %u131, i64 0
  %sv133 = shufflevector <8 x double> %s132, <8 x double> poison, <8 x i32> zeroinitializer
  %ri134 = mul i64 %row12, %ncols
  %ci135 = add i64 %ri134, %k40
  %p136 = getelementptr inbounds double, ptr %cols, i64 %ci135
  %col137 = load double, ptr %p136, align 8
  %u138 = fsub double %col137, %sub50
  %u139 = fdiv double %u138, %div52
  %u140 = fmul double %u139, %mul54
  %u141 = fadd double %u140, %add56
  %u142 = call double @llvm.maxnum.f64(double %u141, double %lo58)
  %u143 = call double @llvm.minnum.f64(double %u142, double %hi60)
  %s144 = insertelement <8 x double> poison, double %u143, i64 0
  %sv145 = shufflevector <8 x double> %s144, <8 x double> poison, <8 x i32> zeroinitializer
  %ri146 = mul i64 %row13, %ncols
  %ci147 = add i64 %ri146, %k40
  %p148 = getelementptr inbounds double, ptr %cols, i64 %ci147
  %col149 = load double, ptr %p148, align 8
  %u150 = fsub double %col149, %sub50
  %u151 = fdiv double %u150, %div52
  %u152 = fmul double %u151, %mul54
  %u153 = fadd double %u152, %add56
  %u154 = call double @llvm.maxnum.f64(double %u153, double %lo58)
  %u155 = call double @llvm.minnum.f64(double %u154, double %hi60)
  %s156 = insertelement <8 x double> poison, double %u155, i64 0
  %sv157 = shufflevector <8 x double> %s156, <8 x double> poison, <8 x i32> zeroinitializer
  br label %aff.158.head
aff.158.head:
  %aff.158.i = phi i64 [ 0, %affine.46 ], [ %aff.158.next, %aff.158.body ]
  %aff.158.cond = icmp slt i64 %aff.158.i, 8
  br i1 %aff.158.cond, label %aff.158.body, label %aff.158.exit
aff.158.body:
  %p159 = getelementptr inbounds double, ptr %wrow61, i64 %aff.158.i
  %v160 = load <8 x double>, ptr %p159, align 8
  %o161 = add i64 %aff.158.i, 0
  %p162 = getelementptr inbounds double, ptr %buf1, i64 %o161
  %v163 = load <8 x double>, ptr %p162, align 8
  %acc164 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv73, <8 x double> %v160, <8 x double> %v163)
  %p165 = getelementptr inbounds double, ptr %buf1, i64 %o161
  store <8 x double> %acc164, ptr %p165, align 8
  %o166 = add i64 %aff.158.i, 8
  %p167 = getelementptr inbounds double, ptr %buf1, i64 %o166
  %v168 = load <8 x double>, ptr %p167, align 8
  %acc169 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv85, <8 x double> %v160, <8 x double> %v168)
  %p170 = getelementptr inbounds double, ptr %buf1, i64 %o166
  store <8 x double> %acc169, ptr %p170, align 8
  %o171 = add i64 %aff.158.i, 16
  %p172 = getelementptr inbounds double, ptr %buf1, i64 %o171
  %v173 = load <8 x double>, ptr %p172, align 8
  %acc174 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv97, <8 x double> %v160, <8 x double> %v173)
  %p175 = getelementptr inbounds double, ptr %buf1, i64 %o171
  store <8 x double> %acc174, ptr %p175, align 8
  %o176 = add i64 %aff.158.i, 24
  %p177 = getelementptr inbounds double, ptr %buf1, i64 %o176
  %v178 = load <8 x double>, ptr %p177, align 8
  %acc179 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv109, <8 x double> %v160, <8 x double> %v178)
  %p180 = getelementptr inbounds double, ptr %buf1, i64 %o176
  store <8 x double> %acc179, ptr %p180, align 8
  %o181 = add i64 %aff.158.i, 32
  %p182 = getelementptr inbounds double, ptr %buf1, i64 %o181
  %v183 = load <8 x double>, ptr %p182, align 8
  %acc184 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv121, <8 x double> %v160, <8 x double> %v183)
  %p185 = getelementptr inbounds double, ptr %buf1, i64 %o181
  store <8 x double> %acc184, ptr %p185, align 8
  %o186 = add i64 %aff.158.i, 40
  %p187 = getelementptr inbounds double, ptr %buf1, i64 %o186
  %v188 = load <8 x double>, ptr %p187, align 8
  %acc189 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv133, <8 x double> %v160, <8 x double> %v188)
  %p190 = getelementptr inbounds double, ptr %buf1, i64 %o186
  store <8 x double> %acc189, ptr %p190, align 8
  %o191 = add i64 %aff.158.i, 48
  %p192 = getelementptr inbounds double, ptr %buf1, i64 %o191
  %v193 = load <8 x double>, ptr %p192, align 8
  %acc194 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv145, <8 x double> %v160, <8 x double> %v193)
  %p195 = getelementptr inbounds double, ptr %buf1, i64 %o191
  store <8 x double> %acc194, ptr %p195, align 8
  %o196 = add i64 %aff.158.i, 56
  %p197 = getelementptr inbounds double, ptr %buf1, i64 %o196
  %v198 = load <8 x double>, ptr %p197, align 8
  %acc199 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv157, <8 x double> %v160, <8 x double> %v198)
  %p200 = getelementptr inbounds double, ptr %buf1, i64 %o196
  store <8 x double> %acc199, ptr %p200, align 8
  %aff.158.next = add nuw nsw i64 %aff.158.i, 8
  br label %aff.158.head
aff.158.exit:
  br label %join.48
table.47:
  %ncodes201 = load double, ptr %blk44, align 8
  %table202 = getelementptr inbounds double, ptr %blk44, i64 8
  %ri203 = mul i64 %tile.6.i, %ncols
  %ci204 = add i64 %ri203, %k40
  %p205 = getelementptr inbounds double, ptr %cols, i64 %ci204
  %col206 = load double, ptr %p205, align 8
  %lo207 = fcmp oge double %col206, 0.0
  %hi208 = fcmp olt double %col206, %ncodes201
  %in209 = and i1 %lo207, %hi208
  %safe210 = select i1 %in209, double %col206, double %ncodes201
  %code211 = fptosi double %safe210 to i64
  %back212 = sitofp i64 %code211 to double
  %whole213 = fcmp oeq double %back212, %col206
  %nc214 = fptosi double %ncodes201 to i64
  %trow215 = select i1 %whole213, i64 %code211, i64 %nc214
  %co216 = mul i64 %trow215, 8
  %trow217 = getelementptr inbounds double, ptr %table202, i64 %co216
  %ri218 = mul i64 %row7, %ncols
  %ci219 = add i64 %ri218, %k40
  %p220 = getelementptr inbounds double, ptr %cols, i64 %ci219
  %col221 = load double, ptr %p220, align 8
  %lo222 = fcmp oge double %col221, 0.0
  %hi223 = fcmp olt double %col221, %ncodes201
  %in224 = and i1 %lo222, %hi223
  %safe225 = select i1 %in224, double %col221, double %ncodes201
  %code226 = fptosi double %safe225 to i64
  %back227 = sitofp i64 %code226 to double
  %whole228 = fcmp oeq double %back227, %col221
  %nc229 = fptosi double %ncodes201 to i64
  %trow230 = select i1 %whole228, i64 %code226, i64 %nc229
  %co231 = mul i64 %trow230, 8
  %trow232 = getelementptr inbounds double, ptr %table202, i64 %co231
  %ri233 = mul i64 %row8, %ncols
  %ci234 = add i64 %ri233, %k40
  %p235 = getelementptr inbounds double, ptr %cols, i64 %ci234
  %col236 = load double, ptr %p235, align 8
  %lo237 = fcmp oge double %col236, 0.0
  %hi238 = fcmp olt double %col236, %ncodes201
  %in239 = and i1 %lo237, %hi238
  %safe240 = select i1 %in239, double %col236, double %ncodes201
  %code241 = fptosi double %safe240 to i64
  %back242 = sitofp i64 %code241 to double
  %whole243 = fcmp oeq double %back242, %col236
  %nc244 = fptosi double %ncodes201 to i64
  %trow245 = select i1 %whole243, i64 %code241, i64 %nc244
  %co246 = mul i64 %trow245, 8
  %trow247 = getelementptr inbounds double, ptr %table202, i64 %co246
  %ri248 = mul i64 %row9, %ncols
  %ci249 = add i64 %ri248, %k40
  %p250 = getelementptr inbounds double, ptr %cols, i64 %ci249
  %col251 = load double, ptr %p250, align 8
  %lo252 = fcmp oge double %col251, 0.0
  %hi253 = fcmp olt double %col251, %ncodes201
  %in254 = and i1 %lo252, %hi253
  %safe255 = select i1 %in254, double %col251, double %ncodes201
  %code256 = fptosi double %safe255 to i64
  %back257 = sitofp i64 %code256 to double
  %whole258 = fcmp oeq double %back257, %col251
  %nc259 = fptosi double %ncodes201 to i64
  %trow260 = select i1 %whole258, i64 %code256, i64 %nc259
  %co261 = mul i64 %trow260, 8
  %trow262 = getelementptr inbounds double, ptr %table202, i64 %co261
  %ri263 = mul i64 %row10, %ncols
  %ci264 = add i64 %ri263, %k40
  %p265 = getelementptr inbounds double, ptr %cols, i64 %ci264
  %col266 = load double, ptr %p265, align 8
  %lo267 = fcmp oge double %col266, 0.0
  %hi268 = fcmp olt double %col266, %ncodes201
  %in269 = and i1 %lo267, %hi268
  %safe270 = select i1 %in269, double %col266, double %ncodes201
  %code271 = fptosi double %safe270 to i64
  %back272 = sitofp i64 %code271 to double
  %whole273 = fcmp oeq double %back272, %col266
  %nc274 = fptosi double %ncodes201 to i64
  %trow275 = select i1 %whole273, i64 %code271, i64 %nc274
  %co276 = mul i64 %trow275, 8
  %trow277 = getelementptr inbounds double, ptr %table202, i64 %co276
  %ri278 = mul i64 %row11, %ncols
  %ci279 = add i64 %ri278, %k40
  %p280 = getelementptr inbounds double, ptr %cols, i64 %ci279
  %col281 = load double, ptr %p280, align 8
  %lo282 = fcmp oge double %col281, 0.0
  %hi283 = fcmp olt double %col281, %ncodes201
  %in284 = and i1 %lo282, %hi283
  %safe285 = select i1 %in284, double %col281, double %ncodes201
  %code286 = fptosi double %safe285 to i64
  %back287 = sitofp i64 %code286 to double
  %whole288 = fcmp oeq double %back287, %col281
  %nc289 = fptosi double %ncodes201 to i64
  %trow290 = select i1 %whole288, i64 %code286, i64 %nc289
  %co291 = mul i64 %trow290, 8
  %trow292 = getelementptr inbounds double, ptr %table202, i64 %co291
  %ri293 = mul i64 %row12, %ncols
  %ci294 = add i64 %ri293, %k40
  %p295 = getelementptr inbounds double, ptr %cols, i64 %ci294
  %col296 = load double, ptr %p295, align 8
  %lo297 = fcmp oge double %col296, 0.0
  %hi298 = fcmp olt double %col296, %ncodes201
  %in299 = and i1 %lo297, %hi298
  %safe300 = select i1 %in299, double %col296, double %ncodes201
  %code301 = fptosi double %safe300 to i64
  %back302 = sitofp i64 %code301 to double
  %whole303 = fcmp oeq double %back302, %col296
  %nc304 = fptosi double %ncodes201 to i64
  %trow305 = select i1 %whole303, i64 %code301, i64 %nc304
  %co306 = mul i64 %trow305, 8
  %trow307 = getelementptr inbounds double, ptr %table202, i64 %co306
  %ri308 = mul i64 %row13, %ncols
  %ci309 = add i64 %ri308, %k40
  %p310 = getelementptr inbounds double, ptr %cols, i64 %ci309
  %col311 = load double, ptr %p310, align 8
  %lo312 = fcmp oge double %col311, 0.0
  %hi313 = fcmp olt double %col311, %ncodes201
  %in314 = and i1 %lo312, %hi313
  %safe315 = select i1 %in314, double %col311, double %ncodes201
  %code316 = fptosi double %safe315 to i64
  %back317 = sitofp i64 %code316 to double
  %whole318 = fcmp oeq double %back317, %col311
  %nc319 = fptosi double %ncodes201 to i64
  %trow320 = select i1 %whole318, i64 %code316, i64 %nc319
  %co321 = mul i64 %trow320, 8
  %trow322 = getelementptr inbounds double, ptr %table202, i64 %co321
  br label %tab.323.head
tab.323.head:
  %tab.323.i = phi i64 [ 0, %table.47 ], [ %tab.323.next, %tab.323.body ]
  %tab.323.cond = icmp slt i64 %tab.323.i, 8
  br i1 %tab.323.cond, label %tab.323.body, label %tab.323.exit
tab.323.body:
  %o324 = add i64 %tab.323.i, 0
  %p325 = getelementptr inbounds double, ptr %buf1, i64 %o324
  %v326 = load <8 x double>, ptr %p325, align 8
  %p327 = getelementptr inbounds double, ptr %trow217, i64 %tab.323.i
  %v328 = load <8 x double>, ptr %p327, align 8
  %zt329 = fadd <8 x double> %v326, %v328
  %p330 = getelementptr inbounds double, ptr %buf1, i64 %o324
  store <8 x double> %zt329, ptr %p330, align 8
  %o331 = add i64 %tab.323.i, 8
  %p332 = getelementptr inbounds double, ptr %buf1, i64 %o331
  %v333 = load <8 x double>, ptr %p332, align 8
  %p334 = getelementptr inbounds double, ptr %trow232, i64 %tab.323.i
  %v335 = load <8 x double>, ptr %p334, align 8
  %zt336 = fadd <8 x double> %v333, %v335
  %p337 = getelementptr inbounds double, ptr %buf1, i64 %o331
  store <8 x double> %zt336, ptr %p337, align 8
  %o338 = add i64 %tab.323.i, 16
  %p339 = getelementptr inbounds double, ptr %buf1, i64 %o338
  %v340 = load <8 x double>, ptr %p339, align 8
  %p341 = getelementptr inbounds double, ptr %trow247, i64 %tab.323.i
  %v342 = load <8 x double>, ptr %p341, align 8
  %zt343 = fadd <8 x double> %v340, %v342
  %p344 = getelementptr inbounds double, ptr %buf1, i64 %o338
  store <8 x double> %zt343, ptr %p344, align 8
  %o345 = add i64 %tab.323.i, 24
  %p346 = getelementptr inbounds double, ptr %buf1, i64 %o345
  %v347 = load <8 x double>, ptr %p346, align 8
  %p348 = getelementptr inbounds double, ptr %trow262, i64 %tab.323.i
  %v349 = load <8 x double>, ptr %p348, align 8
  %zt350 = fadd <8 x double> %v347, %v349
  %p351 = getelementptr inbounds double, ptr %buf1, i64 %o345
  store <8 x double> %zt350, ptr %p351, align 8
  %o352 = add i64 %tab.323.i, 32
  %p353 = getelementptr inbounds double, ptr %buf1, i64 %o352
  %v354 = load <8 x double>, ptr %p353, align 8
  %p355 = getelementptr inbounds double, ptr %trow277, i64 %tab.323.i
  %v356 = load <8 x double>, ptr %p355, align 8
  %zt357 = fadd <8 x double> %v354, %v356
  %p358 = getelementptr inbounds double, ptr %buf1, i64 %o352
  store <8 x double> %zt357, ptr %p358, align 8
  %o359 = add i64 %tab.323.i, 40
  %p360 = getelementptr inbounds double, ptr %buf1, i64 %o359
  %v361 = load <8 x double>, ptr %p360, align 8
  %p362 = getelementptr inbounds double, ptr %trow292, i64 %tab.323.i
  %v363 = load <8 x double>, ptr %p362, align 8
  %zt364 = fadd <8 x double> %v361, %v363
  %p365 = getelementptr inbounds double, ptr %buf1, i64 %o359
  store <8 x double> %zt364, ptr %p365, align 8
  %o366 = add i64 %tab.323.i, 48
  %p367 = getelementptr inbounds double, ptr %buf1, i64 %o366
  %v368 = load <8 x double>, ptr %p367, align 8
  %p369 = getelementptr inbounds double, ptr %trow307, i64 %tab.323.i
  %v370 = load <8 x double>, ptr %p369, align 8
  %zt371 = fadd <8 x double> %v368, %v370
  %p372 = getelementptr inbounds double, ptr %buf1, i64 %o366
  store <8 x double> %zt371, ptr %p372, align 8
  %o373 = add i64 %tab.323.i, 56
  %p374 = getelementptr inbounds double, ptr %buf1, i64 %o373
  %v375 = load <8 x double>, ptr %p374, align 8
  %p376 = getelementptr inbounds double, ptr %trow322, i64 %tab.323.i
  %v377 = load <8 x double>, ptr %p376, align 8
  %zt378 = fadd <8 x double> %v375, %v377
  %p379 = getelementptr inbounds double, ptr %buf1, i64 %o373
  store <8 x double> %zt378, ptr %p379, align 8
  %tab.323.next = add nuw nsw i64 %tab.323.i, 8
  br label %tab.323.head
tab.323.exit:
  br label %join.48
join.48:
  %term.33.next = add nuw nsw i64 %term.33.i, 1
  br label %term.33.head
term.33.exit:
  ; hidden activation (relu) of layer 1
  br label %act1.380.head
act1.380.head:
  %act1.380.i = phi i64 [ 0, %term.33.exit ], [ %act1.380.next, %act1.380.body ]
  %act1.380.cond = icmp slt i64 %act1.380.i, 8
  br i1 %act1.380.cond, label %act1.380.body, label %act1.380.exit
act1.380.body:
  %o381 = add i64 %act1.380.i, 0
  %p382 = getelementptr inbounds double, ptr %buf1, i64 %o381
  %v383 = load <8 x double>, ptr %p382, align 8
  %gt384 = fcmp ugt <8 x double> %v383, zeroinitializer
  %relu385 = select <8 x i1> %gt384, <8 x double> %v383, <8 x double> zeroinitializer
  %p386 = getelementptr inbounds double, ptr %buf2, i64 %o381
  store <8 x double> %relu385, ptr %p386, align 8
  %o387 = add i64 %act1.380.i, 8
  %p388 = getelementptr inbounds double, ptr %buf1, i64 %o387
  %v389 = load <8 x double>, ptr %p388, align 8
  %gt390 = fcmp ugt <8 x double> %v389, zeroinitializer
  %relu391 = select <8 x i1> %gt390, <8 x double> %v389, <8 x double> zeroinitializer
  %p392 = getelementptr inbounds double, ptr %buf2, i64 %o387
  store <8 x double> %relu391, ptr %p392, align 8
  %o393 = add i64 %act1.380.i, 16
  %p394 = getelementptr inbounds double, ptr %buf1, i64 %o393
  %v395 = load <8 x double>, ptr %p394, align 8
  %gt396 = fcmp ugt <8 x double> %v395, zeroinitializer
  %relu397 = select <8 x i1> %gt396, <8 x double> %v395, <8 x double> zeroinitializer
  %p398 = getelementptr inbounds double, ptr %buf2, i64 %o393
  store <8 x double> %relu397, ptr %p398, align 8
  %o399 = add i64 %act1.380.i, 24
  %p400 = getelementptr inbounds double, ptr %buf1, i64 %o399
  %v401 = load <8 x double>, ptr %p400, align 8
  %gt402 = fcmp ugt <8 x double> %v401, zeroinitializer
  %relu403 = select <8 x i1> %gt402, <8 x double> %v401, <8 x double> zeroinitializer
  %p404 = getelementptr inbounds double, ptr %buf2, i64 %o399
  store <8 x double> %relu403, ptr %p404, align 8
  %o405 = add i64 %act1.380.i, 32
  %p406 = getelementptr inbounds double, ptr %buf1, i64 %o405
  %v407 = load <8 x double>, ptr %p406, align 8
  %gt408 = fcmp ugt <8 x double> %v407, zeroinitializer
  %relu409 = select <8 x i1> %gt408, <8 x double> %v407, <8 x double> zeroinitializer
  %p410 = getelementptr inbounds double, ptr %buf2, i64 %o405
  store <8 x double> %relu409, ptr %p410, align 8
  %o411 = add i64 %act1.380.i, 40
  %p412 = getelementptr inbounds double, ptr %buf1, i64 %o411
  %v413 = load <8 x double>, ptr %p412, align 8
  %gt414 = fcmp ugt <8 x double> %v413, zeroinitializer
  %relu415 = select <8 x i1> %gt414, <8 x double> %v413, <8 x double> zeroinitializer
  %p416 = getelementptr inbounds double, ptr %buf2, i64 %o411
  store <8 x double> %relu415, ptr %p416, align 8
  %o417 = add i64 %act1.380.i, 48
  %p418 = getelementptr inbounds double, ptr %buf1, i64 %o417
  %v419 = load <8 x double>, ptr %p418, align 8
  %gt420 = fcmp ugt <8 x double> %v419, zeroinitializer
  %relu421 = select <8 x i1> %gt420, <8 x double> %v419, <8 x double> zeroinitializer
  %p422 = getelementptr inbounds double, ptr %buf2, i64 %o417
  store <8 x double> %relu421, ptr %p422, align 8
  %o423 = add i64 %act1.380.i, 56
  %p424 = getelementptr inbounds double, ptr %buf1, i64 %o423
  %v425 = load <8 x double>, ptr %p424, align 8
  %gt426 = fcmp ugt <8 x double> %v425, zeroinitializer
  %relu427 = select <8 x i1> %gt426, <8 x double> %v425, <8 x double> zeroinitializer
  %p428 = getelementptr inbounds double, ptr %buf2, i64 %o423
  store <8 x double> %relu427, ptr %p428, align 8
  %act1.380.next = add nuw nsw i64 %act1.380.i, 8
  br label %act1.380.head
act1.380.exit:
  ; layer 2 (3 -> 1, output): 8 units x 8 rows per block, one weight vector feeds 8 rows
  br label %l2.blk.429.head
l2.blk.429.head:
  %l2.blk.429.i = phi i64 [ 0, %act1.380.exit ], [ %l2.blk.429.next, %l2.in.432.exit ]
  %l2.blk.429.cond = icmp slt i64 %l2.blk.429.i, 8
  br i1 %l2.blk.429.cond, label %l2.blk.429.body, label %l2.blk.429.exit
l2.blk.429.body:
  %p430 = getelementptr inbounds double, ptr %b2, i64 %l2.blk.429.i
  %v431 = load <8 x double>, ptr %p430, align 8
  br label %l2.in.432.head
l2.in.432.head:
  %l2.in.432.i = phi i64 [ 0, %l2.blk.429.body ], [ %l2.in.432.next, %l2.in.432.body ]
  %l2.in.432.c0 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c0.next, %l2.in.432.body ]
  %l2.in.432.c1 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c1.next, %l2.in.432.body ]
  %l2.in.432.c2 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c2.next, %l2.in.432.body ]
  %l2.in.432.c3 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c3.next, %l2.in.432.body ]
  %l2.in.432.c4 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c4.next, %l2.in.432.body ]
  %l2.in.432.c5 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c5.next, %l2.in.432.body ]
  %l2.in.432.c6 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c6.next, %l2.in.432.body ]
  %l2.in.432.c7 = phi <8 x double> [ %v431, %l2.blk.429.body ], [ %l2.in.432.c7.next, %l2.in.432.body ]
  %l2.in.432.cond = icmp slt i64 %l2.in.432.i, 3
  br i1 %l2.in.432.cond, label %l2.in.432.body, label %l2.in.432.exit
l2.in.432.body:
  %wr433 = mul nuw nsw i64 %l2.in.432.i, 8
  %wo434 = add i64 %wr433, %l2.blk.429.i
  %p435 = getelementptr inbounds double, ptr %W2, i64 %wo434
  %v436 = load <8 x double>, ptr %p435, align 8
  %ai437 = add i64 %l2.in.432.i, 0
  %p438 = getelementptr inbounds double, ptr %buf2, i64 %ai437
  %a439 = load double, ptr %p438, align 8
  %s440 = insertelement <8 x double> poison, double %a439, i64 0
  %sv441 = shufflevector <8 x double> %s440, <8 x double> poison, <8 x i32> zeroinitializer
  %acc442 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv441, <8 x double> %v436, <8 x double> %l2.in.432.c0)
  %ai443 = add i64 %l2.in.432.i, 8
  %p444 = getelementptr inbounds double, ptr %buf2, i64 %ai443
  %a445 = load double, ptr %p444, align 8
  %s446 = insertelement <8 x double> poison, double %a445, i64 0
  %sv447 = shufflevector <8 x double> %s446, <8 x double> poison, <8 x i32> zeroinitializer
  %acc448 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv447, <8 x double> %v436, <8 x double> %l2.in.432.c1)
  %ai449 = add i64 %l2.in.432.i, 16
  %p450 = getelementptr inbounds double, ptr %buf2, i64 %ai449
  %a451 = load double, ptr %p450, align 8
  %s452 = insertelement <8 x double> poison, double %a451, i64 0
  %sv453 = shufflevector <8 x double> %s452, <8 x double> poison, <8 x i32> zeroinitializer
  %acc454 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv453, <8 x double> %v436, <8 x double> %l2.in.432.c2)
  %ai455 = add i64 %l2.in.432.i, 24
  %p456 = getelementptr inbounds double, ptr %buf2, i64 %ai455
  %a457 = load double, ptr %p456, align 8
  %s458 = insertelement <8 x double> poison, double %a457, i64 0
  %sv459 = shufflevector <8 x double> %s458, <8 x double> poison, <8 x i32> zeroinitializer
  %acc460 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv459, <8 x double> %v436, <8 x double> %l2.in.432.c3)
  %ai461 = add i64 %l2.in.432.i, 32
  %p462 = getelementptr inbounds double, ptr %buf2, i64 %ai461
  %a463 = load double, ptr %p462, align 8
  %s464 = insertelement <8 x double> poison, double %a463, i64 0
  %sv465 = shufflevector <8 x double> %s464, <8 x double> poison, <8 x i32> zeroinitializer
  %acc466 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv465, <8 x double> %v436, <8 x double> %l2.in.432.c4)
  %ai467 = add i64 %l2.in.432.i, 40
  %p468 = getelementptr inbounds double, ptr %buf2, i64 %ai467
  %a469 = load double, ptr %p468, align 8
  %s470 = insertelement <8 x double> poison, double %a469, i64 0
  %sv471 = shufflevector <8 x double> %s470, <8 x double> poison, <8 x i32> zeroinitializer
  %acc472 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv471, <8 x double> %v436, <8 x double> %l2.in.432.c5)
  %ai473 = add i64 %l2.in.432.i, 48
  %p474 = getelementptr inbounds double, ptr %buf2, i64 %ai473
  %a475 = load double, ptr %p474, align 8
  %s476 = insertelement <8 x double> poison, double %a475, i64 0
  %sv477 = shufflevector <8 x double> %s476, <8 x double> poison, <8 x i32> zeroinitializer
  %acc478 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv477, <8 x double> %v436, <8 x double> %l2.in.432.c6)
  %ai479 = add i64 %l2.in.432.i, 56
  %p480 = getelementptr inbounds double, ptr %buf2, i64 %ai479
  %a481 = load double, ptr %p480, align 8
  %s482 = insertelement <8 x double> poison, double %a481, i64 0
  %sv483 = shufflevector <8 x double> %s482, <8 x double> poison, <8 x i32> zeroinitializer
  %acc484 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv483, <8 x double> %v436, <8 x double> %l2.in.432.c7)
  %l2.in.432.next = add nuw nsw i64 %l2.in.432.i, 1
  %l2.in.432.c0.next = fadd <8 x double> %acc442, zeroinitializer
  %l2.in.432.c1.next = fadd <8 x double> %acc448, zeroinitializer
  %l2.in.432.c2.next = fadd <8 x double> %acc454, zeroinitializer
  %l2.in.432.c3.next = fadd <8 x double> %acc460, zeroinitializer
  %l2.in.432.c4.next = fadd <8 x double> %acc466, zeroinitializer
  %l2.in.432.c5.next = fadd <8 x double> %acc472, zeroinitializer
  %l2.in.432.c6.next = fadd <8 x double> %acc478, zeroinitializer
  %l2.in.432.c7.next = fadd <8 x double> %acc484, zeroinitializer
  br label %l2.in.432.head
l2.in.432.exit:
  %o485 = add i64 %l2.blk.429.i, 0
  %p486 = getelementptr inbounds double, ptr %buf1, i64 %o485
  store <8 x double> %l2.in.432.c0, ptr %p486, align 8
  %o487 = add i64 %l2.blk.429.i, 8
  %p488 = getelementptr inbounds double, ptr %buf1, i64 %o487
  store <8 x double> %l2.in.432.c1, ptr %p488, align 8
  %o489 = add i64 %l2.blk.429.i, 16
  %p490 = getelementptr inbounds double, ptr %buf1, i64 %o489
  store <8 x double> %l2.in.432.c2, ptr %p490, align 8
  %o491 = add i64 %l2.blk.429.i, 24
  %p492 = getelementptr inbounds double, ptr %buf1, i64 %o491
  store <8 x double> %l2.in.432.c3, ptr %p492, align 8
  %o493 = add i64 %l2.blk.429.i, 32
  %p494 = getelementptr inbounds double, ptr %buf1, i64 %o493
  store <8 x double> %l2.in.432.c4, ptr %p494, align 8
  %o495 = add i64 %l2.blk.429.i, 40
  %p496 = getelementptr inbounds double, ptr %buf1, i64 %o495
  store <8 x double> %l2.in.432.c5, ptr %p496, align 8
  %o497 = add i64 %l2.blk.429.i, 48
  %p498 = getelementptr inbounds double, ptr %buf1, i64 %o497
  store <8 x double> %l2.in.432.c6, ptr %p498, align 8
  %o499 = add i64 %l2.blk.429.i, 56
  %p500 = getelementptr inbounds double, ptr %buf1, i64 %o499
  store <8 x double> %l2.in.432.c7, ptr %p500, align 8
  %l2.blk.429.next = add nuw nsw i64 %l2.blk.429.i, 8
  br label %l2.blk.429.head
l2.blk.429.exit:
  ; logistic output: p1 = 1 / (1 + exp(-z)); desired column 1
  %p501 = getelementptr inbounds double, ptr %buf1, i64 0
  %z502 = load double, ptr %p501, align 8
  %neg503 = fneg double %z502
  %e504 = call double @llvm.exp.f64(double %neg503)
  %d505 = fadd double %e504, 1.0
  %p506 = fdiv double 1.0, %d505
  %p507 = getelementptr inbounds double, ptr %out, i64 %tile.6.i
  store double %p506, ptr %p507, align 8
  %p508 = getelementptr inbounds double, ptr %buf1, i64 8
  %z509 = load double, ptr %p508, align 8
  %neg510 = fneg double %z509
  %e511 = call double @llvm.exp.f64(double %neg510)
  %d512 = fadd double %e511, 1.0
  %p513 = fdiv double 1.0, %d512
  %p514 = getelementptr inbounds double, ptr %out, i64 %row7
  store double %p513, ptr %p514, align 8
  %p515 = getelementptr inbounds double, ptr %buf1, i64 16
  %z516 = load double, ptr %p515, align 8
  %neg517 = fneg double %z516
  %e518 = call double @llvm.exp.f64(double %neg517)
  %d519 = fadd double %e518, 1.0
  %p520 = fdiv double 1.0, %d519
  %p521 = getelementptr inbounds double, ptr %out, i64 %row8
  store double %p520, ptr %p521, align 8
  %p522 = getelementptr inbounds double, ptr %buf1, i64 24
  %z523 = load double, ptr %p522, align 8
  %neg524 = fneg double %z523
  %e525 = call double @llvm.exp.f64(double %neg524)
  %d526 = fadd double %e525, 1.0
  %p527 = fdiv double 1.0, %d526
  %p528 = getelementptr inbounds double, ptr %out, i64 %row9
  store double %p527, ptr %p528, align 8
  %p529 = getelementptr inbounds double, ptr %buf1, i64 32
  %z530 = load double, ptr %p529, align 8
  %neg531 = fneg double %z530
  %e532 = call double @llvm.exp.f64(double %neg531)
  %d533 = fadd double %e532, 1.0
  %p534 = fdiv double 1.0, %d533
  %p535 = getelementptr inbounds double, ptr %out, i64 %row10
  store double %p534, ptr %p535, align 8
  %p536 = getelementptr inbounds double, ptr %buf1, i64 40
  %z537 = load double, ptr %p536, align 8
  %neg538 = fneg double %z537
  %e539 = call double @llvm.exp.f64(double %neg538)
  %d540 = fadd double %e539, 1.0
  %p541 = fdiv double 1.0, %d540
  %p542 = getelementptr inbounds double, ptr %out, i64 %row11
  store double %p541, ptr %p542, align 8
  %p543 = getelementptr inbounds double, ptr %buf1, i64 48
  %z544 = load double, ptr %p543, align 8
  %neg545 = fneg double %z544
  %e546 = call double @llvm.exp.f64(double %neg545)
  %d547 = fadd double %e546, 1.0
  %p548 = fdiv double 1.0, %d547
  %p549 = getelementptr inbounds double, ptr %out, i64 %row12
  store double %p548, ptr %p549, align 8
  %p550 = getelementptr inbounds double, ptr %buf1, i64 56
  %z551 = load double, ptr %p550, align 8
  %neg552 = fneg double %z551
  %e553 = call double @llvm.exp.f64(double %neg552)
  %d554 = fadd double %e553, 1.0
  %p555 = fdiv double 1.0, %d554
  %p556 = getelementptr inbounds double, ptr %out, i64 %row13
  store double %p555, ptr %p556, align 8
  %tile.6.next = add nuw nsw i64 %tile.6.i, 8
  br label %tile.6.head
tile.6.exit:
  ; the last n mod 8 rows in tiles of 4; rows past n-1 repeat row n-1 (same value stored twice): a half tile still keeps the FMA pipes busy, one row alone would not
  br label %tile.557.head
tile.557.head:
  %tile.557.i = phi i64 [ %nfull4, %tile.6.exit ], [ %tile.557.next, %l2.blk.792.exit ]
  %tile.557.cond = icmp slt i64 %tile.557.i, %n
  br i1 %tile.557.cond, label %tile.557.body, label %tile.557.exit
tile.557.body:
  %row558 = call i64 @llvm.umin.i64(i64 %tile.557.i, i64 %nm15)
  %row559 = add i64 %tile.557.i, 1
  %row560 = call i64 @llvm.umin.i64(i64 %row559, i64 %nm15)
  %row561 = add i64 %tile.557.i, 2
  %row562 = call i64 @llvm.umin.i64(i64 %row561, i64 %nm15)
  %row563 = add i64 %tile.557.i, 3
  %row564 = call i64 @llvm.umin.i64(i64 %row563, i64 %nm15)
  ; layer 1 (2 -> 3): z = folded bias + the terms of the features in Delta
  br label %zinit.565.head
zinit.565.head:
  %zinit.565.i = phi i64 [ 0, %tile.557.body ], [ %zinit.565.next, %zinit.565.body ]
  %zinit.565.cond = icmp slt i64 %zinit.565.i, 8
  br i1 %zinit.565.cond, label %zinit.565.body, label %zinit.565.exit
zinit.565.body:
  %p566 = getelementptr inbounds double, ptr %bias, i64 %zinit.565.i
  %v567 = load <8 x double>, ptr %p566, align 8
  %o568 = add i64 %zinit.565.i, 0
  %p569 = getelementptr inbounds double, ptr %buf1, i64 %o568
  store <8 x double> %v567, ptr %p569, align 8
  %o570 = add i64 %zinit.565.i, 8
  %p571 = getelementptr inbounds double, ptr %buf1, i64 %o570
  store <8 x double> %v567, ptr %p571, align 8
  %o572 = add i64 %zinit.565.i, 16
  %p573 = getelementptr inbounds double, ptr %buf1, i64 %o572
  store <8 x double> %v567, ptr %p573, align 8
  %o574 = add i64 %zinit.565.i, 24
  %p575 = getelementptr inbounds double, ptr %buf1, i64 %o574
  store <8 x double> %v567, ptr %p575, align 8
  %zinit.565.next = add nuw nsw i64 %zinit.565.i, 8
  br label %zinit.565.head
zinit.565.exit:
  ; terms[q] = (kind: 0 affine | 1 table, column in the block, offset into first)
  br label %term.576.head
term.576.head:
  %term.576.i = phi i64 [ 0, %zinit.565.exit ], [ %term.576.next, %join.591 ]
  %term.576.cond = icmp slt i64 %term.576.i, %nterms
  br i1 %term.576.cond, label %term.576.body, label %term.576.exit
term.576.body:
  %q3577 = mul nuw nsw i64 %term.576.i, 3
  %q578 = add i64 %q3577, 0
  %tp579 = getelementptr inbounds i64, ptr %terms, i64 %q578
  %kind580 = load i64, ptr %tp579, align 8
  %q581 = add i64 %q3577, 1
  %tp582 = getelementptr inbounds i64, ptr %terms, i64 %q581
  %k583 = load i64, ptr %tp582, align 8
  %q584 = add i64 %q3577, 2
  %tp585 = getelementptr inbounds i64, ptr %terms, i64 %q584
  %off586 = load i64, ptr %tp585, align 8
  %blk587 = getelementptr inbounds double, ptr %first, i64 %off586
  %isaff588 = icmp eq i64 %kind580, 0
  br i1 %isaff588, label %affine.589, label %table.590
affine.589:
  %p592 = getelementptr inbounds double, ptr %blk587, i64 0
  %sub593 = load double, ptr %p592, align 8
  %p594 = getelementptr inbounds double, ptr %blk587, i64 1
  %div595 = load double, ptr %p594, align 8
  %p596 = getelementptr inbounds double, ptr %blk587, i64 2
  %mul597 = load double, ptr %p596, align 8
  %p598 = getelementptr inbounds double, ptr %blk587, i64 3
  %add599 = load double, ptr %p598, align 8
  %p600 = getelementptr inbounds double, ptr %blk587, i64 4
  %lo601 = load double, ptr %p600, align 8
  %p602 = getelementptr inbounds double, ptr %blk587, i64 5
  %hi603 = load double, ptr %p602, align 8
  %wrow604 = getelementptr inbounds double, ptr %blk587, i64 8
  %ri605 = mul i64 %row558, %ncols
  %ci606 = add i64 %ri605, %k583
  %p607 = getelementptr inbounds double, ptr %cols, i64 %ci606
  %col608 = load double, ptr %p607, align 8
  %u609 = fsub double %col608, %sub593
  %u610 = fdiv double %u609, %div595
  %u611 = fmul double %u610, %mul597
  %u612 = fadd double %u611, %add599
  %u613 = call double @llvm.maxnum.f64(double %u612, double %lo601)
  %u614 = call double @llvm.minnum.f64(double %u613, double %hi603)
  %s615 = insertelement <8 x double> poison, double %u614, i64 0
  %sv616 = shufflevector <8 x double> %s615, <8 x double> poison, <8 x i32> zeroinitializer
  %ri617 = mul i64 %row560, %ncols
  %ci618 = add i64 %ri617, %k583
  %p619 = getelementptr inbounds double, ptr %cols, i64 %ci618
  %col620 = load double, ptr %p619, align 8
  %u621 = fsub double %col620, %sub593
  %u622 = fdiv double %u621, %div595
  %u623 = fmul double %u622, %mul597
  %u624 = fadd double %u623, %add599
  %u625 = call double @llvm.maxnum.f64(double %u624, double %lo601)
  %u626 = call double @llvm.minnum.f64(double %u625, double %hi603)
  %s627 = insertelement <8 x double> poison, double %u626, i64 0
  %sv628 = shufflevector <8 x double> %s627, <8 x double> poison, <8 x i32> zeroinitializer
  %ri629 = mul i64 %row562, %ncols
  %ci630 = add i64 %ri629, %k583
  %p631 = getelementptr inbounds double, ptr %cols, i64 %ci630
  %col632 = load double, ptr %p631, align 8
  %u633 = fsub double %col632, %sub593
  %u634 = fdiv double %u633, %div595
  %u635 = fmul double %u634, %mul597
  %u636 = fadd double %u635, %add599
  %u637 = call double @llvm.maxnum.f64(double %u636, double %lo601)
  %u638 = call double @llvm.minnum.f64(double %u637, double %hi603)
  %s639 = insertelement <8 x double> poison, double %u638, i64 0
  %sv640 = shufflevector <8 x double> %s639, <8 x double> poison, <8 x i32> zeroinitializer
  %ri641 = mul i64 %row564, %ncols
  %ci642 = add i64 %ri641, %k583
  %p643 = getelementptr inbounds double, ptr %cols, i64 %ci642
  %col644 = load double, ptr %p643, align 8
  %u645 = fsub double %col644, %sub593
  %u646 = fdiv double %u645, %div595
  %u647 = fmul double %u646, %mul597
  %u648 = fadd double %u647, %add599
  %u649 = call double @llvm.maxnum.f64(double %u648, double %lo601)
  %u650 = call double @llvm.minnum.f64(double %u649, double %hi603)
  %s651 = insertelement <8 x double> poison, double %u650, i64 0
  %sv652 = shufflevector <8 x double> %s651, <8 x double> poison, <8 x i32> zeroinitializer
  br label %aff.653.head
aff.653.head:
  %aff.653.i = phi i64 [ 0, %affine.589 ], [ %aff.653.next, %aff.653.body ]
  %aff.653.cond = icmp slt i64 %aff.653.i, 8
  br i1 %aff.653.cond, label %aff.653.body, label %aff.653.exit
aff.653.body:
  %p654 = getelementptr inbounds double, ptr %wrow604, i64 %aff.653.i
  %v655 = load <8 x double>, ptr %p654, align 8
  %o656 = add i64 %aff.653.i, 0
  %p657 = getelementptr inbounds double, ptr %buf1, i64 %o656
  %v658 = load <8 x double>, ptr %p657, align 8
  %acc659 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv616, <8 x double> %v655, <8 x double> %v658)
  %p660 = getelementptr inbounds double, ptr %buf1, i64 %o656
  store <8 x double> %acc659, ptr %p660, align 8
  %o661 = add i64 %aff.653.i, 8
  %p662 = getelementptr inbounds double, ptr %buf1, i64 %o661
  %v663 = load <8 x double>, ptr %p662, align 8
  %acc664 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv628, <8 x double> %v655, <8 x double> %v663)
  %p665 = getelementptr inbounds double, ptr %buf1, i64 %o661
  store <8 x double> %acc664, ptr %p665, align 8
  %o666 = add i64 %aff.653.i, 16
  %p667 = getelementptr inbounds double, ptr %buf1, i64 %o666
  %v668 = load <8 x double>, ptr %p667, align 8
  %acc669 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv640, <8 x double> %v655, <8 x double> %v668)
  %p670 = getelementptr inbounds double, ptr %buf1, i64 %o666
  store <8 x double> %acc669, ptr %p670, align 8
  %o671 = add i64 %aff.653.i, 24
  %p672 = getelementptr inbounds double, ptr %buf1, i64 %o671
  %v673 = load <8 x double>, ptr %p672, align 8
  %acc674 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv652, <8 x double> %v655, <8 x double> %v673)
  %p675 = getelementptr inbounds double, ptr %buf1, i64 %o671
  store <8 x double> %acc674, ptr %p675, align 8
  %aff.653.next = add nuw nsw i64 %aff.653.i, 8
  br label %aff.653.head
aff.653.exit:
  br label %join.591
table.590:
  %ncodes676 = load double, ptr %blk587, align 8
  %table677 = getelementptr inbounds double, ptr %blk587, i64 8
  %ri678 = mul i64 %row558, %ncols
  %ci679 = add i64 %ri678, %k583
  %p680 = getelementptr inbounds double, ptr %cols, i64 %ci679
  %col681 = load double, ptr %p680, align 8
  %lo682 = fcmp oge double %col681, 0.0
  %hi683 = fcmp olt double %col681, %ncodes676
  %in684 = and i1 %lo682, %hi683
  %safe685 = select i1 %in684, double %col681, double %ncodes676
  %code686 = fptosi double %safe685 to i64
  %back687 = sitofp i64 %code686 to double
  %whole688 = fcmp oeq double %back687, %col681
  %nc689 = fptosi double %ncodes676 to i64
  %trow690 = select i1 %whole688, i64 %code686, i64 %nc689
  %co691 = mul i64 %trow690, 8
  %trow692 = getelementptr inbounds double, ptr %table677, i64 %co691
  %ri693 = mul i64 %row560, %ncols
  %ci694 = add i64 %ri693, %k583
  %p695 = getelementptr inbounds double, ptr %cols, i64 %ci694
  %col696 = load double, ptr %p695, align 8
  %lo697 = fcmp oge double %col696, 0.0
  %hi698 = fcmp olt double %col696, %ncodes676
  %in699 = and i1 %lo697, %hi698
  %safe700 = select i1 %in699, double %col696, double %ncodes676
  %code701 = fptosi double %safe700 to i64
  %back702 = sitofp i64 %code701 to double
  %whole703 = fcmp oeq double %back702, %col696
  %nc704 = fptosi double %ncodes676 to i64
  %trow705 = select i1 %whole703, i64 %code701, i64 %nc704
  %co706 = mul i64 %trow705, 8
  %trow707 = getelementptr inbounds double, ptr %table677, i64 %co706
  %ri708 = mul i64 %row562, %ncols
  %ci709 = add i64 %ri708, %k583
  %p710 = getelementptr inbounds double, ptr %cols, i64 %ci709
  %col711 = load double, ptr %p710, align 8
  %lo712 = fcmp oge double %col711, 0.0
  %hi713 = fcmp olt double %col711, %ncodes676
  %in714 = and i1 %lo712, %hi713
  %safe715 = select i1 %in714, double %col711, double %ncodes676
  %code716 = fptosi double %safe715 to i64
  %back717 = sitofp i64 %code716 to double
  %whole718 = fcmp oeq double %back717, %col711
  %nc719 = fptosi double %ncodes676 to i64
  %trow720 = select i1 %whole718, i64 %code716, i64 %nc719
  %co721 = mul i64 %trow720, 8
  %trow722 = getelementptr inbounds double, ptr %table677, i64 %co721
  %ri723 = mul i64 %row564, %ncols
  %ci724 = add i64 %ri723, %k583
  %p725 = getelementptr inbounds double, ptr %cols, i64 %ci724
  %col726 = load double, ptr %p725, align 8
  %lo727 = fcmp oge double %col726, 0.0
  %hi728 = fcmp olt double %col726, %ncodes676
  %in729 = and i1 %lo727, %hi728
  %safe730 = select i1 %in729, double %col726, double %ncodes676
  %code731 = fptosi double %safe730 to i64
  %back732 = sitofp i64 %code731 to double
  %whole733 = fcmp oeq double %back732, %col726
  %nc734 = fptosi double %ncodes676 to i64
  %trow735 = select i1 %whole733, i64 %code731, i64 %nc734
  %co736 = mul i64 %trow735, 8
  %trow737 = getelementptr inbounds double, ptr %table677, i64 %co736
  br label %tab.738.head
tab.738.head:
  %tab.738.i = phi i64 [ 0, %table.590 ], [ %tab.738.next, %tab.738.body ]
  %tab.738.cond = icmp slt i64 %tab.738.i, 8
  br i1 %tab.738.cond, label %tab.738.body, label %tab.738.exit
tab.738.body:
  %o739 = add i64 %tab.738.i, 0
  %p740 = getelementptr inbounds double, ptr %buf1, i64 %o739
  %v741 = load <8 x double>, ptr %p740, align 8
  %p742 = getelementptr inbounds double, ptr %trow692, i64 %tab.738.i
  %v743 = load <8 x double>, ptr %p742, align 8
  %zt744 = fadd <8 x double> %v741, %v743
  %p745 = getelementptr inbounds double, ptr %buf1, i64 %o739
  store <8 x double> %zt744, ptr %p745, align 8
  %o746 = add i64 %tab.738.i, 8
  %p747 = getelementptr inbounds double, ptr %buf1, i64 %o746
  %v748 = load <8 x double>, ptr %p747, align 8
  %p749 = getelementptr inbounds double, ptr %trow707, i64 %tab.738.i
  %v750 = load <8 x double>, ptr %p749, align 8
  %zt751 = fadd <8 x double> %v748, %v750
  %p752 = getelementptr inbounds double, ptr %buf1, i64 %o746
  store <8 x double> %zt751, ptr %p752, align 8
  %o753 = add i64 %tab.738.i, 16
  %p754 = getelementptr inbounds double, ptr %buf1, i64 %o753
  %v755 = load <8 x double>, ptr %p754, align 8
  %p756 = getelementptr inbounds double, ptr %trow722, i64 %tab.738.i
  %v757 = load <8 x double>, ptr %p756, align 8
  %zt758 = fadd <8 x double> %v755, %v757
  %p759 = getelementptr inbounds double, ptr %buf1, i64 %o753
  store <8 x double> %zt758, ptr %p759, align 8
  %o760 = add i64 %tab.738.i, 24
  %p761 = getelementptr inbounds double, ptr %buf1, i64 %o760
  %v762 = load <8 x double>, ptr %p761, align 8
  %p763 = getelementptr inbounds double, ptr %trow737, i64 %tab.738.i
  %v764 = load <8 x double>, ptr %p763, align 8
  %zt765 = fadd <8 x double> %v762, %v764
  %p766 = getelementptr inbounds double, ptr %buf1, i64 %o760
  store <8 x double> %zt765, ptr %p766, align 8
  %tab.738.next = add nuw nsw i64 %tab.738.i, 8
  br label %tab.738.head
tab.738.exit:
  br label %join.591
join.591:
  %term.576.next = add nuw nsw i64 %term.576.i, 1
  br label %term.576.head
term.576.exit:
  ; hidden activation (relu) of layer 1
  br label %act1.767.head
act1.767.head:
  %act1.767.i = phi i64 [ 0, %term.576.exit ], [ %act1.767.next, %act1.767.body ]
  %act1.767.cond = icmp slt i64 %act1.767.i, 8
  br i1 %act1.767.cond, label %act1.767.body, label %act1.767.exit
act1.767.body:
  %o768 = add i64 %act1.767.i, 0
  %p769 = getelementptr inbounds double, ptr %buf1, i64 %o768
  %v770 = load <8 x double>, ptr %p769, align 8
  %gt771 = fcmp ugt <8 x double> %v770, zeroinitializer
  %relu772 = select <8 x i1> %gt771, <8 x double> %v770, <8 x double> zeroinitializer
  %p773 = getelementptr inbounds double, ptr %buf2, i64 %o768
  store <8 x double> %relu772, ptr %p773, align 8
  %o774 = add i64 %act1.767.i, 8
  %p775 = getelementptr inbounds double, ptr %buf1, i64 %o774
  %v776 = load <8 x double>, ptr %p775, align 8
  %gt777 = fcmp ugt <8 x double> %v776, zeroinitializer
  %relu778 = select <8 x i1> %gt777, <8 x double> %v776, <8 x double> zeroinitializer
  %p779 = getelementptr inbounds double, ptr %buf2, i64 %o774
  store <8 x double> %relu778, ptr %p779, align 8
  %o780 = add i64 %act1.767.i, 16
  %p781 = getelementptr inbounds double, ptr %buf1, i64 %o780
  %v782 = load <8 x double>, ptr %p781, align 8
  %gt783 = fcmp ugt <8 x double> %v782, zeroinitializer
  %relu784 = select <8 x i1> %gt783, <8 x double> %v782, <8 x double> zeroinitializer
  %p785 = getelementptr inbounds double, ptr %buf2, i64 %o780
  store <8 x double> %relu784, ptr %p785, align 8
  %o786 = add i64 %act1.767.i, 24
  %p787 = getelementptr inbounds double, ptr %buf1, i64 %o786
  %v788 = load <8 x double>, ptr %p787, align 8
  %gt789 = fcmp ugt <8 x double> %v788, zeroinitializer
  %relu790 = select <8 x i1> %gt789, <8 x double> %v788, <8 x double> zeroinitializer
  %p791 = getelementptr inbounds double, ptr %buf2, i64 %o786
  store <8 x double> %relu790, ptr %p791, align 8
  %act1.767.next = add nuw nsw i64 %act1.767.i, 8
  br label %act1.767.head
act1.767.exit:
  ; layer 2 (3 -> 1, output): 8 units x 4 rows per block, one weight vector feeds 4 rows
  br label %l2.blk.792.head
l2.blk.792.head:
  %l2.blk.792.i = phi i64 [ 0, %act1.767.exit ], [ %l2.blk.792.next, %l2.in.795.exit ]
  %l2.blk.792.cond = icmp slt i64 %l2.blk.792.i, 8
  br i1 %l2.blk.792.cond, label %l2.blk.792.body, label %l2.blk.792.exit
l2.blk.792.body:
  %p793 = getelementptr inbounds double, ptr %b2, i64 %l2.blk.792.i
  %v794 = load <8 x double>, ptr %p793, align 8
  br label %l2.in.795.head
l2.in.795.head:
  %l2.in.795.i = phi i64 [ 0, %l2.blk.792.body ], [ %l2.in.795.next, %l2.in.795.body ]
  %l2.in.795.c0 = phi <8 x double> [ %v794, %l2.blk.792.body ], [ %l2.in.795.c0.next, %l2.in.795.body ]
  %l2.in.795.c1 = phi <8 x double> [ %v794, %l2.blk.792.body ], [ %l2.in.795.c1.next, %l2.in.795.body ]
  %l2.in.795.c2 = phi <8 x double> [ %v794, %l2.blk.792.body ], [ %l2.in.795.c2.next, %l2.in.795.body ]
  %l2.in.795.c3 = phi <8 x double> [ %v794, %l2.blk.792.body ], [ %l2.in.795.c3.next, %l2.in.795.body ]
  %l2.in.795.cond = icmp slt i64 %l2.in.795.i, 3
  br i1 %l2.in.795.cond, label %l2.in.795.body, label %l2.in.795.exit
l2.in.795.body:
  %wr796 = mul nuw nsw i64 %l2.in.795.i, 8
  %wo797 = add i64 %wr796, %l2.blk.792.i
  %p798 = getelementptr inbounds double, ptr %W2, i64 %wo797
  %v799 = load <8 x double>, ptr %p798, align 8
  %ai800 = add i64 %l2.in.795.i, 0
  %p801 = getelementptr inbounds double, ptr %buf2, i64 %ai800
  %a802 = load double, ptr %p801, align 8
  %s803 = insertelement <8 x double> poison, double %a802, i64 0
  %sv804 = shufflevector <8 x double> %s803, <8 x double> poison, <8 x i32> zeroinitializer
  %acc805 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv804, <8 x double> %v799, <8 x double> %l2.in.795.c0)
  %ai806 = add i64 %l2.in.795.i, 8
  %p807 = getelementptr inbounds double, ptr %buf2, i64 %ai806
  %a808 = load double, ptr %p807, align 8
  %s809 = insertelement <8 x double> poison, double %a808, i64 0
  %sv810 = shufflevector <8 x double> %s809, <8 x double> poison, <8 x i32> zeroinitializer
  %acc811 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv810, <8 x double> %v799, <8 x double> %l2.in.795.c1)
  %ai812 = add i64 %l2.in.795.i, 16
  %p813 = getelementptr inbounds double, ptr %buf2, i64 %ai812
  %a814 = load double, ptr %p813, align 8
  %s815 = insertelement <8 x double> poison, double %a814, i64 0
  %sv816 = shufflevector <8 x double> %s815, <8 x double> poison, <8 x i32> zeroinitializer
  %acc817 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv816, <8 x double> %v799, <8 x double> %l2.in.795.c2)
  %ai818 = add i64 %l2.in.795.i, 24
  %p819 = getelementptr inbounds double, ptr %buf2, i64 %ai818
  %a820 = load double, ptr %p819, align 8
  %s821 = insertelement <8 x double> poison, double %a820, i64 0
  %sv822 = shufflevector <8 x double> %s821, <8 x double> poison, <8 x i32> zeroinitializer
  %acc823 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv822, <8 x double> %v799, <8 x double> %l2.in.795.c3)
  %l2.in.795.next = add nuw nsw i64 %l2.in.795.i, 1
  %l2.in.795.c0.next = fadd <8 x double> %acc805, zeroinitializer
  %l2.in.795.c1.next = fadd <8 x double> %acc811, zeroinitializer
  %l2.in.795.c2.next = fadd <8 x double> %acc817, zeroinitializer
  %l2.in.795.c3.next = fadd <8 x double> %acc823, zeroinitializer
  br label %l2.in.795.head
l2.in.795.exit:
  %o824 = add i64 %l2.blk.792.i, 0
  %p825 = getelementptr inbounds double, ptr %buf1, i64 %o824
  store <8 x double> %l2.in.795.c0, ptr %p825, align 8
  %o826 = add i64 %l2.blk.792.i, 8
  %p827 = getelementptr inbounds double, ptr %buf1, i64 %o826
  store <8 x double> %l2.in.795.c1, ptr %p827, align 8
  %o828 = add i64 %l2.blk.792.i, 16
  %p829 = getelementptr inbounds double, ptr %buf1, i64 %o828
  store <8 x double> %l2.in.795.c2, ptr %p829, align 8
  %o830 = add i64 %l2.blk.792.i, 24
  %p831 = getelementptr inbounds double, ptr %buf1, i64 %o830
  store <8 x double> %l2.in.795.c3, ptr %p831, align 8
  %l2.blk.792.next = add nuw nsw i64 %l2.blk.792.i, 8
  br label %l2.blk.792.head
l2.blk.792.exit:
  ; logistic output: p1 = 1 / (1 + exp(-z)); desired column 1
  %p832 = getelementptr inbounds double, ptr %buf1, i64 0
  %z833 = load double, ptr %p832, align 8
  %neg834 = fneg double %z833
  %e835 = call double @llvm.exp.f64(double %neg834)
  %d836 = fadd double %e835, 1.0
  %p837 = fdiv double 1.0, %d836
  %p838 = getelementptr inbounds double, ptr %out, i64 %row558
  store double %p837, ptr %p838, align 8
  %p839 = getelementptr inbounds double, ptr %buf1, i64 8
  %z840 = load double, ptr %p839, align 8
  %neg841 = fneg double %z840
  %e842 = call double @llvm.exp.f64(double %neg841)
  %d843 = fadd double %e842, 1.0
  %p844 = fdiv double 1.0, %d843
  %p845 = getelementptr inbounds double, ptr %out, i64 %row560
  store double %p844, ptr %p845, align 8
  %p846 = getelementptr inbounds double, ptr %buf1, i64 16
  %z847 = load double, ptr %p846, align 8
  %neg848 = fneg double %z847
  %e849 = call double @llvm.exp.f64(double %neg848)
  %d850 = fadd double %e849, 1.0
  %p851 = fdiv double 1.0, %d850
  %p852 = getelementptr inbounds double, ptr %out, i64 %row562
  store double %p851, ptr %p852, align 8
  %p853 = getelementptr inbounds double, ptr %buf1, i64 24
  %z854 = load double, ptr %p853, align 8
  %neg855 = fneg double %z854
  %e856 = call double @llvm.exp.f64(double %neg855)
  %d857 = fadd double %e856, 1.0
  %p858 = fdiv double 1.0, %d857
  %p859 = getelementptr inbounds double, ptr %out, i64 %row564
  store double %p858, ptr %p859, align 8
  %tile.557.next = add nuw nsw i64 %tile.557.i, 4
  br label %tile.557.head
tile.557.exit:
  ret void
}
