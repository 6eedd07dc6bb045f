; The links of XGBoost and LightGBM classifiers (accumulated raw scores -> P(one class)), compiled
; once per process (codegen.trees.gbm_native_links). They repeat the libraries' C++ operation by
; operation - same types, same order, and the C library's own expf / exp, called (never inlined or
; approximated: numpy's SIMD exp differs in the last bit) - so they equal predict_proba bit for bit,
; like the numpy versions in codegen.trees.gbm_links, at one native call per block.
;
; Every function reads %n rows of %K raw scores (doubles, row-major; XGBoost's hold float32 values)
; and writes one double per row: the probability of class column %col.

declare float @expf(float)
declare double @exp(double)

; XGBoost binary:logistic (common::Sigmoid): p = 1 / ((expf(min(-x, 88.7f)) + 1) + 1e-16f) in
; float; column 0 is 1 - p (XGBClassifier.predict_proba), column 1 is p
define void @xgboost_sigmoid(ptr noalias %raw, i64 %n, i64 %col, ptr noalias %out) {
entry:
  %empty = icmp sle i64 %n, 0
  %first = icmp eq i64 %col, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %xp = getelementptr inbounds double, ptr %raw, i64 %i
  %xd = load double, ptr %xp
  %x = fptrunc double %xd to float
  %nx = fneg float %x
  %lt = fcmp olt float 0x40562CCCC0000000, %nx          ; std::min(-x, 88.7f)
  %m = select i1 %lt, float 0x40562CCCC0000000, float %nx
  %e = call float @expf(float %m)
  %d1 = fadd float %e, 1.0
  %d2 = fadd float %d1, 0x3C9CD2B2A0000000              ; 1e-16f
  %p = fdiv float 1.0, %d2
  %q = fsub float 1.0, %p
  %r = select i1 %first, float %q, float %p
  %rd = fpext float %r to double
  %op = getelementptr inbounds double, ptr %out, i64 %i
  store double %rd, ptr %op
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; XGBoost multi:softprob (common::Softmax): float max, e_k = expf(x_k - max), the sum in double in
; class order, then a float division e_col / float(sum)
define void @xgboost_softmax(ptr noalias %raw, i64 %n, i64 %K, i64 %col, ptr noalias %out) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %row
row:
  %i = phi i64 [0, %entry], [%i1, %row_done]
  %base = mul i64 %i, %K
  %x0p = getelementptr inbounds double, ptr %raw, i64 %base
  %x0d = load double, ptr %x0p
  %x0 = fptrunc double %x0d to float
  br label %max_loop
max_loop:                                       ; the largest margin
  %k = phi i64 [1, %row], [%k1, %max_body]
  %mx = phi float [%x0, %row], [%mx1, %max_body]
  %more = icmp slt i64 %k, %K
  br i1 %more, label %max_body, label %sum_loop
max_body:
  %ik = add i64 %base, %k
  %xkp = getelementptr inbounds double, ptr %raw, i64 %ik
  %xkd = load double, ptr %xkp
  %xk = fptrunc double %xkd to float
  %lt = fcmp olt float %mx, %xk                   ; std::max_element: the first largest
  %mx1 = select i1 %lt, float %xk, float %mx
  %k1 = add i64 %k, 1
  br label %max_loop
sum_loop:                                       ; wsum = 0.0 + e_0 + e_1 + ... in double
  %j = phi i64 [0, %max_loop], [%j1, %sum_loop]
  %ws = phi double [0.0, %max_loop], [%ws1, %sum_loop]
  %ec = phi float [0.0, %max_loop], [%ec1, %sum_loop]
  %ij = add i64 %base, %j
  %xjp = getelementptr inbounds double, ptr %raw, i64 %ij
  %xjd = load double, ptr %xjp
  %xj = fptrunc double %xjd to float
  %dj = fsub float %xj, %mx
  %ej = call float @expf(float %dj)
  %ejd = fpext float %ej to double
  %ws1 = fadd double %ws, %ejd
  %isc = icmp eq i64 %j, %col
  %ec1 = select i1 %isc, float %ej, float %ec
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %K
  br i1 %jd, label %row_done, label %sum_loop
row_done:
  %wf = fptrunc double %ws1 to float
  %p = fdiv float %ec1, %wf
  %pd = fpext float %p to double
  %op = getelementptr inbounds double, ptr %out, i64 %i
  store double %pd, ptr %op
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %row
exit:
  ret void
}

; LightGBM binary and multiclassova: x = raw[%k] (/ %div for rf when %div != 0), then
; p = 1.0 / (1.0 + exp(-sigmoid * x)) in double; %complement: write 1.0 - p (binary column 0)
define void @lightgbm_sigmoid(ptr noalias %raw, i64 %n, i64 %K, i64 %k, double %sigmoid, double %div,
                              i64 %complement, ptr noalias %out) {
entry:
  %empty = icmp sle i64 %n, 0
  %isdiv = fcmp one double %div, 0.0
  %comp = icmp ne i64 %complement, 0
  %ns = fneg double %sigmoid
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %b = mul i64 %i, %K
  %ix = add i64 %b, %k
  %xp = getelementptr inbounds double, ptr %raw, i64 %ix
  %x0 = load double, ptr %xp
  %xq = fdiv double %x0, %div
  %x = select i1 %isdiv, double %xq, double %x0
  %a = fmul double %ns, %x
  %e = call double @exp(double %a)
  %d = fadd double 1.0, %e
  %p = fdiv double 1.0, %d
  %q = fsub double 1.0, %p
  %r = select i1 %comp, double %q, double %p
  %op = getelementptr inbounds double, ptr %out, i64 %i
  store double %r, ptr %op
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; LightGBM multiclass (Common::Softmax): x_k (/ %div for rf), max, e_k = exp(x_k - max), the sum in
; class order from 0.0, then e_col / sum, all in double
define void @lightgbm_softmax(ptr noalias %raw, i64 %n, i64 %K, i64 %col, double %div, ptr noalias %out) {
entry:
  %empty = icmp sle i64 %n, 0
  %isdiv = fcmp one double %div, 0.0
  br i1 %empty, label %exit, label %row
row:
  %i = phi i64 [0, %entry], [%i1, %row_done]
  %base = mul i64 %i, %K
  %x0p = getelementptr inbounds double, ptr %raw, i64 %base
  %x0r = load double, ptr %x0p
  %x0q = fdiv double %x0r, %div
  %x0 = select i1 %isdiv, double %x0q, double %x0r
  br label %max_loop
max_loop:
  %k = phi i64 [1, %row], [%k1, %max_body]
  %mx = phi double [%x0, %row], [%mx1, %max_body]
  %more = icmp slt i64 %k, %K
  br i1 %more, label %max_body, label %sum_loop
max_body:
  %ik = add i64 %base, %k
  %xkp = getelementptr inbounds double, ptr %raw, i64 %ik
  %xkr = load double, ptr %xkp
  %xkq = fdiv double %xkr, %div
  %xk = select i1 %isdiv, double %xkq, double %xkr
  %lt = fcmp olt double %mx, %xk
  %mx1 = select i1 %lt, double %xk, double %mx
  %k1 = add i64 %k, 1
  br label %max_loop
sum_loop:
  %j = phi i64 [0, %max_loop], [%j1, %sum_loop]
  %ws = phi double [0.0, %max_loop], [%ws1, %sum_loop]
  %ec = phi double [0.0, %max_loop], [%ec1, %sum_loop]
  %ij = add i64 %base, %j
  %xjp = getelementptr inbounds double, ptr %raw, i64 %ij
  %xjr = load double, ptr %xjp
  %xjq = fdiv double %xjr, %div
  %xj = select i1 %isdiv, double %xjq, double %xjr
  %dj = fsub double %xj, %mx
  %ej = call double @exp(double %dj)
  %ws1 = fadd double %ws, %ej
  %isc = icmp eq i64 %j, %col
  %ec1 = select i1 %isc, double %ej, double %ec
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %K
  br i1 %jd, label %row_done, label %sum_loop
row_done:
  %p = fdiv double %ec1, %ws1
  %op = getelementptr inbounds double, ptr %out, i64 %i
  store double %p, ptr %op
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %row
exit:
  ret void
}
