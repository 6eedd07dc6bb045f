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
; doubles). A few ulp: far inside the 1e-12 contract.
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
  ret <8 x double> %res
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
  %tile.6.i = phi i64 [ 0, %entry ], [ %tile.6.next, %l2.blk.363.exit ]
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
  %ri201 = mul i64 %tile.6.i, %ncols
  %ci202 = add i64 %ri201, %k40
  %p203 = getelementptr inbounds double, ptr %cols, i64 %ci202
  %col204 = load double, ptr %p203, align 8
  %code205 = fptosi double %col204 to i64
  %co206 = mul i64 %code205, 8
  %trow207 = getelementptr inbounds double, ptr %blk44, i64 %co206
  %ri208 = mul i64 %row7, %ncols
  %ci209 = add i64 %ri208, %k40
  %p210 = getelementptr inbounds double, ptr %cols, i64 %ci209
  %col211 = load double, ptr %p210, align 8
  %code212 = fptosi double %col211 to i64
  %co213 = mul i64 %code212, 8
  %trow214 = getelementptr inbounds double, ptr %blk44, i64 %co213
  %ri215 = mul i64 %row8, %ncols
  %ci216 = add i64 %ri215, %k40
  %p217 = getelementptr inbounds double, ptr %cols, i64 %ci216
  %col218 = load double, ptr %p217, align 8
  %code219 = fptosi double %col218 to i64
  %co220 = mul i64 %code219, 8
  %trow221 = getelementptr inbounds double, ptr %blk44, i64 %co220
  %ri222 = mul i64 %row9, %ncols
  %ci223 = add i64 %ri222, %k40
  %p224 = getelementptr inbounds double, ptr %cols, i64 %ci223
  %col225 = load double, ptr %p224, align 8
  %code226 = fptosi double %col225 to i64
  %co227 = mul i64 %code226, 8
  %trow228 = getelementptr inbounds double, ptr %blk44, i64 %co227
  %ri229 = mul i64 %row10, %ncols
  %ci230 = add i64 %ri229, %k40
  %p231 = getelementptr inbounds double, ptr %cols, i64 %ci230
  %col232 = load double, ptr %p231, align 8
  %code233 = fptosi double %col232 to i64
  %co234 = mul i64 %code233, 8
  %trow235 = getelementptr inbounds double, ptr %blk44, i64 %co234
  %ri236 = mul i64 %row11, %ncols
  %ci237 = add i64 %ri236, %k40
  %p238 = getelementptr inbounds double, ptr %cols, i64 %ci237
  %col239 = load double, ptr %p238, align 8
  %code240 = fptosi double %col239 to i64
  %co241 = mul i64 %code240, 8
  %trow242 = getelementptr inbounds double, ptr %blk44, i64 %co241
  %ri243 = mul i64 %row12, %ncols
  %ci244 = add i64 %ri243, %k40
  %p245 = getelementptr inbounds double, ptr %cols, i64 %ci244
  %col246 = load double, ptr %p245, align 8
  %code247 = fptosi double %col246 to i64
  %co248 = mul i64 %code247, 8
  %trow249 = getelementptr inbounds double, ptr %blk44, i64 %co248
  %ri250 = mul i64 %row13, %ncols
  %ci251 = add i64 %ri250, %k40
  %p252 = getelementptr inbounds double, ptr %cols, i64 %ci251
  %col253 = load double, ptr %p252, align 8
  %code254 = fptosi double %col253 to i64
  %co255 = mul i64 %code254, 8
  %trow256 = getelementptr inbounds double, ptr %blk44, i64 %co255
  br label %tab.257.head
tab.257.head:
  %tab.257.i = phi i64 [ 0, %table.47 ], [ %tab.257.next, %tab.257.body ]
  %tab.257.cond = icmp slt i64 %tab.257.i, 8
  br i1 %tab.257.cond, label %tab.257.body, label %tab.257.exit
tab.257.body:
  %o258 = add i64 %tab.257.i, 0
  %p259 = getelementptr inbounds double, ptr %buf1, i64 %o258
  %v260 = load <8 x double>, ptr %p259, align 8
  %p261 = getelementptr inbounds double, ptr %trow207, i64 %tab.257.i
  %v262 = load <8 x double>, ptr %p261, align 8
  %zt263 = fadd <8 x double> %v260, %v262
  %p264 = getelementptr inbounds double, ptr %buf1, i64 %o258
  store <8 x double> %zt263, ptr %p264, align 8
  %o265 = add i64 %tab.257.i, 8
  %p266 = getelementptr inbounds double, ptr %buf1, i64 %o265
  %v267 = load <8 x double>, ptr %p266, align 8
  %p268 = getelementptr inbounds double, ptr %trow214, i64 %tab.257.i
  %v269 = load <8 x double>, ptr %p268, align 8
  %zt270 = fadd <8 x double> %v267, %v269
  %p271 = getelementptr inbounds double, ptr %buf1, i64 %o265
  store <8 x double> %zt270, ptr %p271, align 8
  %o272 = add i64 %tab.257.i, 16
  %p273 = getelementptr inbounds double, ptr %buf1, i64 %o272
  %v274 = load <8 x double>, ptr %p273, align 8
  %p275 = getelementptr inbounds double, ptr %trow221, i64 %tab.257.i
  %v276 = load <8 x double>, ptr %p275, align 8
  %zt277 = fadd <8 x double> %v274, %v276
  %p278 = getelementptr inbounds double, ptr %buf1, i64 %o272
  store <8 x double> %zt277, ptr %p278, align 8
  %o279 = add i64 %tab.257.i, 24
  %p280 = getelementptr inbounds double, ptr %buf1, i64 %o279
  %v281 = load <8 x double>, ptr %p280, align 8
  %p282 = getelementptr inbounds double, ptr %trow228, i64 %tab.257.i
  %v283 = load <8 x double>, ptr %p282, align 8
  %zt284 = fadd <8 x double> %v281, %v283
  %p285 = getelementptr inbounds double, ptr %buf1, i64 %o279
  store <8 x double> %zt284, ptr %p285, align 8
  %o286 = add i64 %tab.257.i, 32
  %p287 = getelementptr inbounds double, ptr %buf1, i64 %o286
  %v288 = load <8 x double>, ptr %p287, align 8
  %p289 = getelementptr inbounds double, ptr %trow235, i64 %tab.257.i
  %v290 = load <8 x double>, ptr %p289, align 8
  %zt291 = fadd <8 x double> %v288, %v290
  %p292 = getelementptr inbounds double, ptr %buf1, i64 %o286
  store <8 x double> %zt291, ptr %p292, align 8
  %o293 = add i64 %tab.257.i, 40
  %p294 = getelementptr inbounds double, ptr %buf1, i64 %o293
  %v295 = load <8 x double>, ptr %p294, align 8
  %p296 = getelementptr inbounds double, ptr %trow242, i64 %tab.257.i
  %v297 = load <8 x double>, ptr %p296, align 8
  %zt298 = fadd <8 x double> %v295, %v297
  %p299 = getelementptr inbounds double, ptr %buf1, i64 %o293
  store <8 x double> %zt298, ptr %p299, align 8
  %o300 = add i64 %tab.257.i, 48
  %p301 = getelementptr inbounds double, ptr %buf1, i64 %o300
  %v302 = load <8 x double>, ptr %p301, align 8
  %p303 = getelementptr inbounds double, ptr %trow249, i64 %tab.257.i
  %v304 = load <8 x double>, ptr %p303, align 8
  %zt305 = fadd <8 x double> %v302, %v304
  %p306 = getelementptr inbounds double, ptr %buf1, i64 %o300
  store <8 x double> %zt305, ptr %p306, align 8
  %o307 = add i64 %tab.257.i, 56
  %p308 = getelementptr inbounds double, ptr %buf1, i64 %o307
  %v309 = load <8 x double>, ptr %p308, align 8
  %p310 = getelementptr inbounds double, ptr %trow256, i64 %tab.257.i
  %v311 = load <8 x double>, ptr %p310, align 8
  %zt312 = fadd <8 x double> %v309, %v311
  %p313 = getelementptr inbounds double, ptr %buf1, i64 %o307
  store <8 x double> %zt312, ptr %p313, align 8
  %tab.257.next = add nuw nsw i64 %tab.257.i, 8
  br label %tab.257.head
tab.257.exit:
  br label %join.48
join.48:
  %term.33.next = add nuw nsw i64 %term.33.i, 1
  br label %term.33.head
term.33.exit:
  ; hidden activation (relu) of layer 1
  br label %act1.314.head
act1.314.head:
  %act1.314.i = phi i64 [ 0, %term.33.exit ], [ %act1.314.next, %act1.314.body ]
  %act1.314.cond = icmp slt i64 %act1.314.i, 8
  br i1 %act1.314.cond, label %act1.314.body, label %act1.314.exit
act1.314.body:
  %o315 = add i64 %act1.314.i, 0
  %p316 = getelementptr inbounds double, ptr %buf1, i64 %o315
  %v317 = load <8 x double>, ptr %p316, align 8
  %gt318 = fcmp ogt <8 x double> %v317, zeroinitializer
  %relu319 = select <8 x i1> %gt318, <8 x double> %v317, <8 x double> zeroinitializer
  %p320 = getelementptr inbounds double, ptr %buf2, i64 %o315
  store <8 x double> %relu319, ptr %p320, align 8
  %o321 = add i64 %act1.314.i, 8
  %p322 = getelementptr inbounds double, ptr %buf1, i64 %o321
  %v323 = load <8 x double>, ptr %p322, align 8
  %gt324 = fcmp ogt <8 x double> %v323, zeroinitializer
  %relu325 = select <8 x i1> %gt324, <8 x double> %v323, <8 x double> zeroinitializer
  %p326 = getelementptr inbounds double, ptr %buf2, i64 %o321
  store <8 x double> %relu325, ptr %p326, align 8
  %o327 = add i64 %act1.314.i, 16
  %p328 = getelementptr inbounds double, ptr %buf1, i64 %o327
  %v329 = load <8 x double>, ptr %p328, align 8
  %gt330 = fcmp ogt <8 x double> %v329, zeroinitializer
  %relu331 = select <8 x i1> %gt330, <8 x double> %v329, <8 x double> zeroinitializer
  %p332 = getelementptr inbounds double, ptr %buf2, i64 %o327
  store <8 x double> %relu331, ptr %p332, align 8
  %o333 = add i64 %act1.314.i, 24
  %p334 = getelementptr inbounds double, ptr %buf1, i64 %o333
  %v335 = load <8 x double>, ptr %p334, align 8
  %gt336 = fcmp ogt <8 x double> %v335, zeroinitializer
  %relu337 = select <8 x i1> %gt336, <8 x double> %v335, <8 x double> zeroinitializer
  %p338 = getelementptr inbounds double, ptr %buf2, i64 %o333
  store <8 x double> %relu337, ptr %p338, align 8
  %o339 = add i64 %act1.314.i, 32
  %p340 = getelementptr inbounds double, ptr %buf1, i64 %o339
  %v341 = load <8 x double>, ptr %p340, align 8
  %gt342 = fcmp ogt <8 x double> %v341, zeroinitializer
  %relu343 = select <8 x i1> %gt342, <8 x double> %v341, <8 x double> zeroinitializer
  %p344 = getelementptr inbounds double, ptr %buf2, i64 %o339
  store <8 x double> %relu343, ptr %p344, align 8
  %o345 = add i64 %act1.314.i, 40
  %p346 = getelementptr inbounds double, ptr %buf1, i64 %o345
  %v347 = load <8 x double>, ptr %p346, align 8
  %gt348 = fcmp ogt <8 x double> %v347, zeroinitializer
  %relu349 = select <8 x i1> %gt348, <8 x double> %v347, <8 x double> zeroinitializer
  %p350 = getelementptr inbounds double, ptr %buf2, i64 %o345
  store <8 x double> %relu349, ptr %p350, align 8
  %o351 = add i64 %act1.314.i, 48
  %p352 = getelementptr inbounds double, ptr %buf1, i64 %o351
  %v353 = load <8 x double>, ptr %p352, align 8
  %gt354 = fcmp ogt <8 x double> %v353, zeroinitializer
  %relu355 = select <8 x i1> %gt354, <8 x double> %v353, <8 x double> zeroinitializer
  %p356 = getelementptr inbounds double, ptr %buf2, i64 %o351
  store <8 x double> %relu355, ptr %p356, align 8
  %o357 = add i64 %act1.314.i, 56
  %p358 = getelementptr inbounds double, ptr %buf1, i64 %o357
  %v359 = load <8 x double>, ptr %p358, align 8
  %gt360 = fcmp ogt <8 x double> %v359, zeroinitializer
  %relu361 = select <8 x i1> %gt360, <8 x double> %v359, <8 x double> zeroinitializer
  %p362 = getelementptr inbounds double, ptr %buf2, i64 %o357
  store <8 x double> %relu361, ptr %p362, align 8
  %act1.314.next = add nuw nsw i64 %act1.314.i, 8
  br label %act1.314.head
act1.314.exit:
  ; layer 2 (3 -> 1, output): 8 units x 8 rows per block, one weight vector feeds 8 rows
  br label %l2.blk.363.head
l2.blk.363.head:
  %l2.blk.363.i = phi i64 [ 0, %act1.314.exit ], [ %l2.blk.363.next, %l2.in.366.exit ]
  %l2.blk.363.cond = icmp slt i64 %l2.blk.363.i, 8
  br i1 %l2.blk.363.cond, label %l2.blk.363.body, label %l2.blk.363.exit
l2.blk.363.body:
  %p364 = getelementptr inbounds double, ptr %b2, i64 %l2.blk.363.i
  %v365 = load <8 x double>, ptr %p364, align 8
  br label %l2.in.366.head
l2.in.366.head:
  %l2.in.366.i = phi i64 [ 0, %l2.blk.363.body ], [ %l2.in.366.next, %l2.in.366.body ]
  %l2.in.366.c0 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c0.next, %l2.in.366.body ]
  %l2.in.366.c1 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c1.next, %l2.in.366.body ]
  %l2.in.366.c2 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c2.next, %l2.in.366.body ]
  %l2.in.366.c3 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c3.next, %l2.in.366.body ]
  %l2.in.366.c4 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c4.next, %l2.in.366.body ]
  %l2.in.366.c5 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c5.next, %l2.in.366.body ]
  %l2.in.366.c6 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c6.next, %l2.in.366.body ]
  %l2.in.366.c7 = phi <8 x double> [ %v365, %l2.blk.363.body ], [ %l2.in.366.c7.next, %l2.in.366.body ]
  %l2.in.366.cond = icmp slt i64 %l2.in.366.i, 3
  br i1 %l2.in.366.cond, label %l2.in.366.body, label %l2.in.366.exit
l2.in.366.body:
  %wr367 = mul nuw nsw i64 %l2.in.366.i, 8
  %wo368 = add i64 %wr367, %l2.blk.363.i
  %p369 = getelementptr inbounds double, ptr %W2, i64 %wo368
  %v370 = load <8 x double>, ptr %p369, align 8
  %ai371 = add i64 %l2.in.366.i, 0
  %p372 = getelementptr inbounds double, ptr %buf2, i64 %ai371
  %a373 = load double, ptr %p372, align 8
  %s374 = insertelement <8 x double> poison, double %a373, i64 0
  %sv375 = shufflevector <8 x double> %s374, <8 x double> poison, <8 x i32> zeroinitializer
  %acc376 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv375, <8 x double> %v370, <8 x double> %l2.in.366.c0)
  %ai377 = add i64 %l2.in.366.i, 8
  %p378 = getelementptr inbounds double, ptr %buf2, i64 %ai377
  %a379 = load double, ptr %p378, align 8
  %s380 = insertelement <8 x double> poison, double %a379, i64 0
  %sv381 = shufflevector <8 x double> %s380, <8 x double> poison, <8 x i32> zeroinitializer
  %acc382 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv381, <8 x double> %v370, <8 x double> %l2.in.366.c1)
  %ai383 = add i64 %l2.in.366.i, 16
  %p384 = getelementptr inbounds double, ptr %buf2, i64 %ai383
  %a385 = load double, ptr %p384, align 8
  %s386 = insertelement <8 x double> poison, double %a385, i64 0
  %sv387 = shufflevector <8 x double> %s386, <8 x double> poison, <8 x i32> zeroinitializer
  %acc388 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv387, <8 x double> %v370, <8 x double> %l2.in.366.c2)
  %ai389 = add i64 %l2.in.366.i, 24
  %p390 = getelementptr inbounds double, ptr %buf2, i64 %ai389
  %a391 = load double, ptr %p390, align 8
  %s392 = insertelement <8 x double> poison, double %a391, i64 0
  %sv393 = shufflevector <8 x double> %s392, <8 x double> poison, <8 x i32> zeroinitializer
  %acc394 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv393, <8 x double> %v370, <8 x double> %l2.in.366.c3)
  %ai395 = add i64 %l2.in.366.i, 32
  %p396 = getelementptr inbounds double, ptr %buf2, i64 %ai395
  %a397 = load double, ptr %p396, align 8
  %s398 = insertelement <8 x double> poison, double %a397, i64 0
  %sv399 = shufflevector <8 x double> %s398, <8 x double> poison, <8 x i32> zeroinitializer
  %acc400 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv399, <8 x double> %v370, <8 x double> %l2.in.366.c4)
  %ai401 = add i64 %l2.in.366.i, 40
  %p402 = getelementptr inbounds double, ptr %buf2, i64 %ai401
  %a403 = load double, ptr %p402, align 8
  %s404 = insertelement <8 x double> poison, double %a403, i64 0
  %sv405 = shufflevector <8 x double> %s404, <8 x double> poison, <8 x i32> zeroinitializer
  %acc406 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv405, <8 x double> %v370, <8 x double> %l2.in.366.c5)
  %ai407 = add i64 %l2.in.366.i, 48
  %p408 = getelementptr inbounds double, ptr %buf2, i64 %ai407
  %a409 = load double, ptr %p408, align 8
  %s410 = insertelement <8 x double> poison, double %a409, i64 0
  %sv411 = shufflevector <8 x double> %s410, <8 x double> poison, <8 x i32> zeroinitializer
  %acc412 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv411, <8 x double> %v370, <8 x double> %l2.in.366.c6)
  %ai413 = add i64 %l2.in.366.i, 56
  %p414 = getelementptr inbounds double, ptr %buf2, i64 %ai413
  %a415 = load double, ptr %p414, align 8
  %s416 = insertelement <8 x double> poison, double %a415, i64 0
  %sv417 = shufflevector <8 x double> %s416, <8 x double> poison, <8 x i32> zeroinitializer
  %acc418 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv417, <8 x double> %v370, <8 x double> %l2.in.366.c7)
  %l2.in.366.next = add nuw nsw i64 %l2.in.366.i, 1
  %l2.in.366.c0.next = fadd <8 x double> %acc376, zeroinitializer
  %l2.in.366.c1.next = fadd <8 x double> %acc382, zeroinitializer
  %l2.in.366.c2.next = fadd <8 x double> %acc388, zeroinitializer
  %l2.in.366.c3.next = fadd <8 x double> %acc394, zeroinitializer
  %l2.in.366.c4.next = fadd <8 x double> %acc400, zeroinitializer
  %l2.in.366.c5.next = fadd <8 x double> %acc406, zeroinitializer
  %l2.in.366.c6.next = fadd <8 x double> %acc412, zeroinitializer
  %l2.in.366.c7.next = fadd <8 x double> %acc418, zeroinitializer
  br label %l2.in.366.head
l2.in.366.exit:
  %o419 = add i64 %l2.blk.363.i, 0
  %p420 = getelementptr inbounds double, ptr %buf1, i64 %o419
  store <8 x double> %l2.in.366.c0, ptr %p420, align 8
  %o421 = add i64 %l2.blk.363.i, 8
  %p422 = getelementptr inbounds double, ptr %buf1, i64 %o421
  store <8 x double> %l2.in.366.c1, ptr %p422, align 8
  %o423 = add i64 %l2.blk.363.i, 16
  %p424 = getelementptr inbounds double, ptr %buf1, i64 %o423
  store <8 x double> %l2.in.366.c2, ptr %p424, align 8
  %o425 = add i64 %l2.blk.363.i, 24
  %p426 = getelementptr inbounds double, ptr %buf1, i64 %o425
  store <8 x double> %l2.in.366.c3, ptr %p426, align 8
  %o427 = add i64 %l2.blk.363.i, 32
  %p428 = getelementptr inbounds double, ptr %buf1, i64 %o427
  store <8 x double> %l2.in.366.c4, ptr %p428, align 8
  %o429 = add i64 %l2.blk.363.i, 40
  %p430 = getelementptr inbounds double, ptr %buf1, i64 %o429
  store <8 x double> %l2.in.366.c5, ptr %p430, align 8
  %o431 = add i64 %l2.blk.363.i, 48
  %p432 = getelementptr inbounds double, ptr %buf1, i64 %o431
  store <8 x double> %l2.in.366.c6, ptr %p432, align 8
  %o433 = add i64 %l2.blk.363.i, 56
  %p434 = getelementptr inbounds double, ptr %buf1, i64 %o433
  store <8 x double> %l2.in.366.c7, ptr %p434, align 8
  %l2.blk.363.next = add nuw nsw i64 %l2.blk.363.i, 8
  br label %l2.blk.363.head
l2.blk.363.exit:
  ; logistic output: p1 = 1 / (1 + exp(-z)); desired column 1
  %p435 = getelementptr inbounds double, ptr %buf1, i64 0
  %z436 = load double, ptr %p435, align 8
  %neg437 = fneg double %z436
  %e438 = call double @llvm.exp.f64(double %neg437)
  %d439 = fadd double %e438, 1.0
  %p440 = fdiv double 1.0, %d439
  %p441 = getelementptr inbounds double, ptr %out, i64 %tile.6.i
  store double %p440, ptr %p441, align 8
  %p442 = getelementptr inbounds double, ptr %buf1, i64 8
  %z443 = load double, ptr %p442, align 8
  %neg444 = fneg double %z443
  %e445 = call double @llvm.exp.f64(double %neg444)
  %d446 = fadd double %e445, 1.0
  %p447 = fdiv double 1.0, %d446
  %p448 = getelementptr inbounds double, ptr %out, i64 %row7
  store double %p447, ptr %p448, align 8
  %p449 = getelementptr inbounds double, ptr %buf1, i64 16
  %z450 = load double, ptr %p449, align 8
  %neg451 = fneg double %z450
  %e452 = call double @llvm.exp.f64(double %neg451)
  %d453 = fadd double %e452, 1.0
  %p454 = fdiv double 1.0, %d453
  %p455 = getelementptr inbounds double, ptr %out, i64 %row8
  store double %p454, ptr %p455, align 8
  %p456 = getelementptr inbounds double, ptr %buf1, i64 24
  %z457 = load double, ptr %p456, align 8
  %neg458 = fneg double %z457
  %e459 = call double @llvm.exp.f64(double %neg458)
  %d460 = fadd double %e459, 1.0
  %p461 = fdiv double 1.0, %d460
  %p462 = getelementptr inbounds double, ptr %out, i64 %row9
  store double %p461, ptr %p462, align 8
  %p463 = getelementptr inbounds double, ptr %buf1, i64 32
  %z464 = load double, ptr %p463, align 8
  %neg465 = fneg double %z464
  %e466 = call double @llvm.exp.f64(double %neg465)
  %d467 = fadd double %e466, 1.0
  %p468 = fdiv double 1.0, %d467
  %p469 = getelementptr inbounds double, ptr %out, i64 %row10
  store double %p468, ptr %p469, align 8
  %p470 = getelementptr inbounds double, ptr %buf1, i64 40
  %z471 = load double, ptr %p470, align 8
  %neg472 = fneg double %z471
  %e473 = call double @llvm.exp.f64(double %neg472)
  %d474 = fadd double %e473, 1.0
  %p475 = fdiv double 1.0, %d474
  %p476 = getelementptr inbounds double, ptr %out, i64 %row11
  store double %p475, ptr %p476, align 8
  %p477 = getelementptr inbounds double, ptr %buf1, i64 48
  %z478 = load double, ptr %p477, align 8
  %neg479 = fneg double %z478
  %e480 = call double @llvm.exp.f64(double %neg479)
  %d481 = fadd double %e480, 1.0
  %p482 = fdiv double 1.0, %d481
  %p483 = getelementptr inbounds double, ptr %out, i64 %row12
  store double %p482, ptr %p483, align 8
  %p484 = getelementptr inbounds double, ptr %buf1, i64 56
  %z485 = load double, ptr %p484, align 8
  %neg486 = fneg double %z485
  %e487 = call double @llvm.exp.f64(double %neg486)
  %d488 = fadd double %e487, 1.0
  %p489 = fdiv double 1.0, %d488
  %p490 = getelementptr inbounds double, ptr %out, i64 %row13
  store double %p489, ptr %p490, align 8
  %tile.6.next = add nuw nsw i64 %tile.6.i, 8
  br label %tile.6.head
tile.6.exit:
  ; the last n mod 8 rows in tiles of 4; rows past n-1 repeat row n-1 (same value stored twice): a half tile still keeps the FMA pipes busy, one row alone would not
  br label %tile.491.head
tile.491.head:
  %tile.491.i = phi i64 [ %nfull4, %tile.6.exit ], [ %tile.491.next, %l2.blk.692.exit ]
  %tile.491.cond = icmp slt i64 %tile.491.i, %n
  br i1 %tile.491.cond, label %tile.491.body, label %tile.491.exit
tile.491.body:
  %row492 = call i64 @llvm.umin.i64(i64 %tile.491.i, i64 %nm15)
  %row493 = add i64 %tile.491.i, 1
  %row494 = call i64 @llvm.umin.i64(i64 %row493, i64 %nm15)
  %row495 = add i64 %tile.491.i, 2
  %row496 = call i64 @llvm.umin.i64(i64 %row495, i64 %nm15)
  %row497 = add i64 %tile.491.i, 3
  %row498 = call i64 @llvm.umin.i64(i64 %row497, i64 %nm15)
  ; layer 1 (2 -> 3): z = folded bias + the terms of the features in Delta
  br label %zinit.499.head
zinit.499.head:
  %zinit.499.i = phi i64 [ 0, %tile.491.body ], [ %zinit.499.next, %zinit.499.body ]
  %zinit.499.cond = icmp slt i64 %zinit.499.i, 8
  br i1 %zinit.499.cond, label %zinit.499.body, label %zinit.499.exit
zinit.499.body:
  %p500 = getelementptr inbounds double, ptr %bias, i64 %zinit.499.i
  %v501 = load <8 x double>, ptr %p500, align 8
  %o502 = add i64 %zinit.499.i, 0
  %p503 = getelementptr inbounds double, ptr %buf1, i64 %o502
  store <8 x double> %v501, ptr %p503, align 8
  %o504 = add i64 %zinit.499.i, 8
  %p505 = getelementptr inbounds double, ptr %buf1, i64 %o504
  store <8 x double> %v501, ptr %p505, align 8
  %o506 = add i64 %zinit.499.i, 16
  %p507 = getelementptr inbounds double, ptr %buf1, i64 %o506
  store <8 x double> %v501, ptr %p507, align 8
  %o508 = add i64 %zinit.499.i, 24
  %p509 = getelementptr inbounds double, ptr %buf1, i64 %o508
  store <8 x double> %v501, ptr %p509, align 8
  %zinit.499.next = add nuw nsw i64 %zinit.499.i, 8
  br label %zinit.499.head
zinit.499.exit:
  ; terms[q] = (kind: 0 affine | 1 table, column in the block, offset into first)
  br label %term.510.head
term.510.head:
  %term.510.i = phi i64 [ 0, %zinit.499.exit ], [ %term.510.next, %join.525 ]
  %term.510.cond = icmp slt i64 %term.510.i, %nterms
  br i1 %term.510.cond, label %term.510.body, label %term.510.exit
term.510.body:
  %q3511 = mul nuw nsw i64 %term.510.i, 3
  %q512 = add i64 %q3511, 0
  %tp513 = getelementptr inbounds i64, ptr %terms, i64 %q512
  %kind514 = load i64, ptr %tp513, align 8
  %q515 = add i64 %q3511, 1
  %tp516 = getelementptr inbounds i64, ptr %terms, i64 %q515
  %k517 = load i64, ptr %tp516, align 8
  %q518 = add i64 %q3511, 2
  %tp519 = getelementptr inbounds i64, ptr %terms, i64 %q518
  %off520 = load i64, ptr %tp519, align 8
  %blk521 = getelementptr inbounds double, ptr %first, i64 %off520
  %isaff522 = icmp eq i64 %kind514, 0
  br i1 %isaff522, label %affine.523, label %table.524
affine.523:
  %p526 = getelementptr inbounds double, ptr %blk521, i64 0
  %sub527 = load double, ptr %p526, align 8
  %p528 = getelementptr inbounds double, ptr %blk521, i64 1
  %div529 = load double, ptr %p528, align 8
  %p530 = getelementptr inbounds double, ptr %blk521, i64 2
  %mul531 = load double, ptr %p530, align 8
  %p532 = getelementptr inbounds double, ptr %blk521, i64 3
  %add533 = load double, ptr %p532, align 8
  %p534 = getelementptr inbounds double, ptr %blk521, i64 4
  %lo535 = load double, ptr %p534, align 8
  %p536 = getelementptr inbounds double, ptr %blk521, i64 5
  %hi537 = load double, ptr %p536, align 8
  %wrow538 = getelementptr inbounds double, ptr %blk521, i64 8
  %ri539 = mul i64 %row492, %ncols
  %ci540 = add i64 %ri539, %k517
  %p541 = getelementptr inbounds double, ptr %cols, i64 %ci540
  %col542 = load double, ptr %p541, align 8
  %u543 = fsub double %col542, %sub527
  %u544 = fdiv double %u543, %div529
  %u545 = fmul double %u544, %mul531
  %u546 = fadd double %u545, %add533
  %u547 = call double @llvm.maxnum.f64(double %u546, double %lo535)
  %u548 = call double @llvm.minnum.f64(double %u547, double %hi537)
  %s549 = insertelement <8 x double> poison, double %u548, i64 0
  %sv550 = shufflevector <8 x double> %s549, <8 x double> poison, <8 x i32> zeroinitializer
  %ri551 = mul i64 %row494, %ncols
  %ci552 = add i64 %ri551, %k517
  %p553 = getelementptr inbounds double, ptr %cols, i64 %ci552
  %col554 = load double, ptr %p553, align 8
  %u555 = fsub double %col554, %sub527
  %u556 = fdiv double %u555, %div529
  %u557 = fmul double %u556, %mul531
  %u558 = fadd double %u557, %add533
  %u559 = call double @llvm.maxnum.f64(double %u558, double %lo535)
  %u560 = call double @llvm.minnum.f64(double %u559, double %hi537)
  %s561 = insertelement <8 x double> poison, double %u560, i64 0
  %sv562 = shufflevector <8 x double> %s561, <8 x double> poison, <8 x i32> zeroinitializer
  %ri563 = mul i64 %row496, %ncols
  %ci564 = add i64 %ri563, %k517
  %p565 = getelementptr inbounds double, ptr %cols, i64 %ci564
  %col566 = load double, ptr %p565, align 8
  %u567 = fsub double %col566, %sub527
  %u568 = fdiv double %u567, %div529
  %u569 = fmul double %u568, %mul531
  %u570 = fadd double %u569, %add533
  %u571 = call double @llvm.maxnum.f64(double %u570, double %lo535)
  %u572 = call double @llvm.minnum.f64(double %u571, double %hi537)
  %s573 = insertelement <8 x double> poison, double %u572, i64 0
  %sv574 = shufflevector <8 x double> %s573, <8 x double> poison, <8 x i32> zeroinitializer
  %ri575 = mul i64 %row498, %ncols
  %ci576 = add i64 %ri575, %k517
  %p577 = getelementptr inbounds double, ptr %cols, i64 %ci576
  %col578 = load double, ptr %p577, align 8
  %u579 = fsub double %col578, %sub527
  %u580 = fdiv double %u579, %div529
  %u581 = fmul double %u580, %mul531
  %u582 = fadd double %u581, %add533
  %u583 = call double @llvm.maxnum.f64(double %u582, double %lo535)
  %u584 = call double @llvm.minnum.f64(double %u583, double %hi537)
  %s585 = insertelement <8 x double> poison, double %u584, i64 0
  %sv586 = shufflevector <8 x double> %s585, <8 x double> poison, <8 x i32> zeroinitializer
  br label %aff.587.head
aff.587.head:
  %aff.587.i = phi i64 [ 0, %affine.523 ], [ %aff.587.next, %aff.587.body ]
  %aff.587.cond = icmp slt i64 %aff.587.i, 8
  br i1 %aff.587.cond, label %aff.587.body, label %aff.587.exit
aff.587.body:
  %p588 = getelementptr inbounds double, ptr %wrow538, i64 %aff.587.i
  %v589 = load <8 x double>, ptr %p588, align 8
  %o590 = add i64 %aff.587.i, 0
  %p591 = getelementptr inbounds double, ptr %buf1, i64 %o590
  %v592 = load <8 x double>, ptr %p591, align 8
  %acc593 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv550, <8 x double> %v589, <8 x double> %v592)
  %p594 = getelementptr inbounds double, ptr %buf1, i64 %o590
  store <8 x double> %acc593, ptr %p594, align 8
  %o595 = add i64 %aff.587.i, 8
  %p596 = getelementptr inbounds double, ptr %buf1, i64 %o595
  %v597 = load <8 x double>, ptr %p596, align 8
  %acc598 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv562, <8 x double> %v589, <8 x double> %v597)
  %p599 = getelementptr inbounds double, ptr %buf1, i64 %o595
  store <8 x double> %acc598, ptr %p599, align 8
  %o600 = add i64 %aff.587.i, 16
  %p601 = getelementptr inbounds double, ptr %buf1, i64 %o600
  %v602 = load <8 x double>, ptr %p601, align 8
  %acc603 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv574, <8 x double> %v589, <8 x double> %v602)
  %p604 = getelementptr inbounds double, ptr %buf1, i64 %o600
  store <8 x double> %acc603, ptr %p604, align 8
  %o605 = add i64 %aff.587.i, 24
  %p606 = getelementptr inbounds double, ptr %buf1, i64 %o605
  %v607 = load <8 x double>, ptr %p606, align 8
  %acc608 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv586, <8 x double> %v589, <8 x double> %v607)
  %p609 = getelementptr inbounds double, ptr %buf1, i64 %o605
  store <8 x double> %acc608, ptr %p609, align 8
  %aff.587.next = add nuw nsw i64 %aff.587.i, 8
  br label %aff.587.head
aff.587.exit:
  br label %join.525
table.524:
  %ri610 = mul i64 %row492, %ncols
  %ci611 = add i64 %ri610, %k517
  %p612 = getelementptr inbounds double, ptr %cols, i64 %ci611
  %col613 = load double, ptr %p612, align 8
  %code614 = fptosi double %col613 to i64
  %co615 = mul i64 %code614, 8
  %trow616 = getelementptr inbounds double, ptr %blk521, i64 %co615
  %ri617 = mul i64 %row494, %ncols
  %ci618 = add i64 %ri617, %k517
  %p619 = getelementptr inbounds double, ptr %cols, i64 %ci618
  %col620 = load double, ptr %p619, align 8
  %code621 = fptosi double %col620 to i64
  %co622 = mul i64 %code621, 8
  %trow623 = getelementptr inbounds double, ptr %blk521, i64 %co622
  %ri624 = mul i64 %row496, %ncols
  %ci625 = add i64 %ri624, %k517
  %p626 = getelementptr inbounds double, ptr %cols, i64 %ci625
  %col627 = load double, ptr %p626, align 8
  %code628 = fptosi double %col627 to i64
  %co629 = mul i64 %code628, 8
  %trow630 = getelementptr inbounds double, ptr %blk521, i64 %co629
  %ri631 = mul i64 %row498, %ncols
  %ci632 = add i64 %ri631, %k517
  %p633 = getelementptr inbounds double, ptr %cols, i64 %ci632
  %col634 = load double, ptr %p633, align 8
  %code635 = fptosi double %col634 to i64
  %co636 = mul i64 %code635, 8
  %trow637 = getelementptr inbounds double, ptr %blk521, i64 %co636
  br label %tab.638.head
tab.638.head:
  %tab.638.i = phi i64 [ 0, %table.524 ], [ %tab.638.next, %tab.638.body ]
  %tab.638.cond = icmp slt i64 %tab.638.i, 8
  br i1 %tab.638.cond, label %tab.638.body, label %tab.638.exit
tab.638.body:
  %o639 = add i64 %tab.638.i, 0
  %p640 = getelementptr inbounds double, ptr %buf1, i64 %o639
  %v641 = load <8 x double>, ptr %p640, align 8
  %p642 = getelementptr inbounds double, ptr %trow616, i64 %tab.638.i
  %v643 = load <8 x double>, ptr %p642, align 8
  %zt644 = fadd <8 x double> %v641, %v643
  %p645 = getelementptr inbounds double, ptr %buf1, i64 %o639
  store <8 x double> %zt644, ptr %p645, align 8
  %o646 = add i64 %tab.638.i, 8
  %p647 = getelementptr inbounds double, ptr %buf1, i64 %o646
  %v648 = load <8 x double>, ptr %p647, align 8
  %p649 = getelementptr inbounds double, ptr %trow623, i64 %tab.638.i
  %v650 = load <8 x double>, ptr %p649, align 8
  %zt651 = fadd <8 x double> %v648, %v650
  %p652 = getelementptr inbounds double, ptr %buf1, i64 %o646
  store <8 x double> %zt651, ptr %p652, align 8
  %o653 = add i64 %tab.638.i, 16
  %p654 = getelementptr inbounds double, ptr %buf1, i64 %o653
  %v655 = load <8 x double>, ptr %p654, align 8
  %p656 = getelementptr inbounds double, ptr %trow630, i64 %tab.638.i
  %v657 = load <8 x double>, ptr %p656, align 8
  %zt658 = fadd <8 x double> %v655, %v657
  %p659 = getelementptr inbounds double, ptr %buf1, i64 %o653
  store <8 x double> %zt658, ptr %p659, align 8
  %o660 = add i64 %tab.638.i, 24
  %p661 = getelementptr inbounds double, ptr %buf1, i64 %o660
  %v662 = load <8 x double>, ptr %p661, align 8
  %p663 = getelementptr inbounds double, ptr %trow637, i64 %tab.638.i
  %v664 = load <8 x double>, ptr %p663, align 8
  %zt665 = fadd <8 x double> %v662, %v664
  %p666 = getelementptr inbounds double, ptr %buf1, i64 %o660
  store <8 x double> %zt665, ptr %p666, align 8
  %tab.638.next = add nuw nsw i64 %tab.638.i, 8
  br label %tab.638.head
tab.638.exit:
  br label %join.525
join.525:
  %term.510.next = add nuw nsw i64 %term.510.i, 1
  br label %term.510.head
term.510.exit:
  ; hidden activation (relu) of layer 1
  br label %act1.667.head
act1.667.head:
  %act1.667.i = phi i64 [ 0, %term.510.exit ], [ %act1.667.next, %act1.667.body ]
  %act1.667.cond = icmp slt i64 %act1.667.i, 8
  br i1 %act1.667.cond, label %act1.667.body, label %act1.667.exit
act1.667.body:
  %o668 = add i64 %act1.667.i, 0
  %p669 = getelementptr inbounds double, ptr %buf1, i64 %o668
  %v670 = load <8 x double>, ptr %p669, align 8
  %gt671 = fcmp ogt <8 x double> %v670, zeroinitializer
  %relu672 = select <8 x i1> %gt671, <8 x double> %v670, <8 x double> zeroinitializer
  %p673 = getelementptr inbounds double, ptr %buf2, i64 %o668
  store <8 x double> %relu672, ptr %p673, align 8
  %o674 = add i64 %act1.667.i, 8
  %p675 = getelementptr inbounds double, ptr %buf1, i64 %o674
  %v676 = load <8 x double>, ptr %p675, align 8
  %gt677 = fcmp ogt <8 x double> %v676, zeroinitializer
  %relu678 = select <8 x i1> %gt677, <8 x double> %v676, <8 x double> zeroinitializer
  %p679 = getelementptr inbounds double, ptr %buf2, i64 %o674
  store <8 x double> %relu678, ptr %p679, align 8
  %o680 = add i64 %act1.667.i, 16
  %p681 = getelementptr inbounds double, ptr %buf1, i64 %o680
  %v682 = load <8 x double>, ptr %p681, align 8
  %gt683 = fcmp ogt <8 x double> %v682, zeroinitializer
  %relu684 = select <8 x i1> %gt683, <8 x double> %v682, <8 x double> zeroinitializer
  %p685 = getelementptr inbounds double, ptr %buf2, i64 %o680
  store <8 x double> %relu684, ptr %p685, align 8
  %o686 = add i64 %act1.667.i, 24
  %p687 = getelementptr inbounds double, ptr %buf1, i64 %o686
  %v688 = load <8 x double>, ptr %p687, align 8
  %gt689 = fcmp ogt <8 x double> %v688, zeroinitializer
  %relu690 = select <8 x i1> %gt689, <8 x double> %v688, <8 x double> zeroinitializer
  %p691 = getelementptr inbounds double, ptr %buf2, i64 %o686
  store <8 x double> %relu690, ptr %p691, align 8
  %act1.667.next = add nuw nsw i64 %act1.667.i, 8
  br label %act1.667.head
act1.667.exit:
  ; layer 2 (3 -> 1, output): 8 units x 4 rows per block, one weight vector feeds 4 rows
  br label %l2.blk.692.head
l2.blk.692.head:
  %l2.blk.692.i = phi i64 [ 0, %act1.667.exit ], [ %l2.blk.692.next, %l2.in.695.exit ]
  %l2.blk.692.cond = icmp slt i64 %l2.blk.692.i, 8
  br i1 %l2.blk.692.cond, label %l2.blk.692.body, label %l2.blk.692.exit
l2.blk.692.body:
  %p693 = getelementptr inbounds double, ptr %b2, i64 %l2.blk.692.i
  %v694 = load <8 x double>, ptr %p693, align 8
  br label %l2.in.695.head
l2.in.695.head:
  %l2.in.695.i = phi i64 [ 0, %l2.blk.692.body ], [ %l2.in.695.next, %l2.in.695.body ]
  %l2.in.695.c0 = phi <8 x double> [ %v694, %l2.blk.692.body ], [ %l2.in.695.c0.next, %l2.in.695.body ]
  %l2.in.695.c1 = phi <8 x double> [ %v694, %l2.blk.692.body ], [ %l2.in.695.c1.next, %l2.in.695.body ]
  %l2.in.695.c2 = phi <8 x double> [ %v694, %l2.blk.692.body ], [ %l2.in.695.c2.next, %l2.in.695.body ]
  %l2.in.695.c3 = phi <8 x double> [ %v694, %l2.blk.692.body ], [ %l2.in.695.c3.next, %l2.in.695.body ]
  %l2.in.695.cond = icmp slt i64 %l2.in.695.i, 3
  br i1 %l2.in.695.cond, label %l2.in.695.body, label %l2.in.695.exit
l2.in.695.body:
  %wr696 = mul nuw nsw i64 %l2.in.695.i, 8
  %wo697 = add i64 %wr696, %l2.blk.692.i
  %p698 = getelementptr inbounds double, ptr %W2, i64 %wo697
  %v699 = load <8 x double>, ptr %p698, align 8
  %ai700 = add i64 %l2.in.695.i, 0
  %p701 = getelementptr inbounds double, ptr %buf2, i64 %ai700
  %a702 = load double, ptr %p701, align 8
  %s703 = insertelement <8 x double> poison, double %a702, i64 0
  %sv704 = shufflevector <8 x double> %s703, <8 x double> poison, <8 x i32> zeroinitializer
  %acc705 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv704, <8 x double> %v699, <8 x double> %l2.in.695.c0)
  %ai706 = add i64 %l2.in.695.i, 8
  %p707 = getelementptr inbounds double, ptr %buf2, i64 %ai706
  %a708 = load double, ptr %p707, align 8
  %s709 = insertelement <8 x double> poison, double %a708, i64 0
  %sv710 = shufflevector <8 x double> %s709, <8 x double> poison, <8 x i32> zeroinitializer
  %acc711 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv710, <8 x double> %v699, <8 x double> %l2.in.695.c1)
  %ai712 = add i64 %l2.in.695.i, 16
  %p713 = getelementptr inbounds double, ptr %buf2, i64 %ai712
  %a714 = load double, ptr %p713, align 8
  %s715 = insertelement <8 x double> poison, double %a714, i64 0
  %sv716 = shufflevector <8 x double> %s715, <8 x double> poison, <8 x i32> zeroinitializer
  %acc717 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv716, <8 x double> %v699, <8 x double> %l2.in.695.c2)
  %ai718 = add i64 %l2.in.695.i, 24
  %p719 = getelementptr inbounds double, ptr %buf2, i64 %ai718
  %a720 = load double, ptr %p719, align 8
  %s721 = insertelement <8 x double> poison, double %a720, i64 0
  %sv722 = shufflevector <8 x double> %s721, <8 x double> poison, <8 x i32> zeroinitializer
  %acc723 = call <8 x double> @llvm.fmuladd.v8f64(<8 x double> %sv722, <8 x double> %v699, <8 x double> %l2.in.695.c3)
  %l2.in.695.next = add nuw nsw i64 %l2.in.695.i, 1
  %l2.in.695.c0.next = fadd <8 x double> %acc705, zeroinitializer
  %l2.in.695.c1.next = fadd <8 x double> %acc711, zeroinitializer
  %l2.in.695.c2.next = fadd <8 x double> %acc717, zeroinitializer
  %l2.in.695.c3.next = fadd <8 x double> %acc723, zeroinitializer
  br label %l2.in.695.head
l2.in.695.exit:
  %o724 = add i64 %l2.blk.692.i, 0
  %p725 = getelementptr inbounds double, ptr %buf1, i64 %o724
  store <8 x double> %l2.in.695.c0, ptr %p725, align 8
  %o726 = add i64 %l2.blk.692.i, 8
  %p727 = getelementptr inbounds double, ptr %buf1, i64 %o726
  store <8 x double> %l2.in.695.c1, ptr %p727, align 8
  %o728 = add i64 %l2.blk.692.i, 16
  %p729 = getelementptr inbounds double, ptr %buf1, i64 %o728
  store <8 x double> %l2.in.695.c2, ptr %p729, align 8
  %o730 = add i64 %l2.blk.692.i, 24
  %p731 = getelementptr inbounds double, ptr %buf1, i64 %o730
  store <8 x double> %l2.in.695.c3, ptr %p731, align 8
  %l2.blk.692.next = add nuw nsw i64 %l2.blk.692.i, 8
  br label %l2.blk.692.head
l2.blk.692.exit:
  ; logistic output: p1 = 1 / (1 + exp(-z)); desired column 1
  %p732 = getelementptr inbounds double, ptr %buf1, i64 0
  %z733 = load double, ptr %p732, align 8
  %neg734 = fneg double %z733
  %e735 = call double @llvm.exp.f64(double %neg734)
  %d736 = fadd double %e735, 1.0
  %p737 = fdiv double 1.0, %d736
  %p738 = getelementptr inbounds double, ptr %out, i64 %row492
  store double %p737, ptr %p738, align 8
  %p739 = getelementptr inbounds double, ptr %buf1, i64 8
  %z740 = load double, ptr %p739, align 8
  %neg741 = fneg double %z740
  %e742 = call double @llvm.exp.f64(double %neg741)
  %d743 = fadd double %e742, 1.0
  %p744 = fdiv double 1.0, %d743
  %p745 = getelementptr inbounds double, ptr %out, i64 %row494
  store double %p744, ptr %p745, align 8
  %p746 = getelementptr inbounds double, ptr %buf1, i64 16
  %z747 = load double, ptr %p746, align 8
  %neg748 = fneg double %z747
  %e749 = call double @llvm.exp.f64(double %neg748)
  %d750 = fadd double %e749, 1.0
  %p751 = fdiv double 1.0, %d750
  %p752 = getelementptr inbounds double, ptr %out, i64 %row496
  store double %p751, ptr %p752, align 8
  %p753 = getelementptr inbounds double, ptr %buf1, i64 24
  %z754 = load double, ptr %p753, align 8
  %neg755 = fneg double %z754
  %e756 = call double @llvm.exp.f64(double %neg755)
  %d757 = fadd double %e756, 1.0
  %p758 = fdiv double 1.0, %d757
  %p759 = getelementptr inbounds double, ptr %out, i64 %row498
  store double %p758, ptr %p759, align 8
  %tile.491.next = add nuw nsw i64 %tile.491.i, 4
  br label %tile.491.head
tile.491.exit:
  ret void
}
