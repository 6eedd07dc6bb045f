; geco's hand-written tree kernels, compiled once per process (codegen.trees.kernel).
;
; Node layout (24 bytes, the numpy dtype codegen.trees.kernel.NODE):
;   { threshold or leaf value, column (-1: leaf), aux = 2*(set+1) + nan_goes_left, left, right }
; A split sends a row left iff  isnan(v) ? nan_goes_left : set >= 0 ? sets[set][int(v)] : v <= threshold
; (a code outside the set's width goes right: no read outside the sets)
; which is sklearn's routing after codegen.trees.fold moved every split onto the user's columns.
;
; @forest_eval   walks the packed forest (or a residual forest) over rows, tree-major, exact sums
; @partial_eval  residual forest of (x, delta) in the same node layout (native partial evaluation)
; @bind_x        per instance: the child x takes at every node and x's path in every tree

%Node = type { double, i32, i32, i32, i32 }

; the split test (one definition of sklearn's routing, see the header)
define internal i1 @goes_left(ptr %nodes, i64 %r, double %v, ptr %sets, i64 %setw) alwaysinline {
entry:
  %auxp = getelementptr inbounds %Node, ptr %nodes, i64 %r, i32 2
  %aux = load i32, ptr %auxp
  %isnan = fcmp uno double %v, 0.0
  br i1 %isnan, label %nan_bb, label %notnan
nan_bb:
  %m = and i32 %aux, 1
  %gn = icmp ne i32 %m, 0
  ret i1 %gn
notnan:
  %set1 = ashr i32 %aux, 1
  %iscat = icmp sgt i32 %set1, 0
  br i1 %iscat, label %cat_bb, label %num_bb
cat_bb:                                      ; a code outside [0, setw) is in no set: right
  %setwf = sitofp i64 %setw to double
  %lo_ok = fcmp oge double %v, 0.0
  %hi_ok = fcmp olt double %v, %setwf
  %inset = and i1 %lo_ok, %hi_ok
  br i1 %inset, label %code_bb, label %out_bb
out_bb:
  ret i1 false
code_bb:
  %set = sub i32 %set1, 1
  %set64 = sext i32 %set to i64
  %base = mul i64 %set64, %setw
  %code = fptosi double %v to i64
  %sidx = add i64 %base, %code
  %sp = getelementptr inbounds i8, ptr %sets, i64 %sidx
  %sb = load i8, ptr %sp
  %gc = icmp ne i8 %sb, 0
  ret i1 %gc
num_bb:
  %tp = getelementptr inbounds %Node, ptr %nodes, i64 %r
  %thr = load double, ptr %tp
  %gt = fcmp ole double %v, %thr
  ret i1 %gt
}

; one step of every tree walk: the child a row takes at split node %r, which tests column %c
define internal i32 @child(ptr %nodes, i64 %r, i32 %c, ptr %row, ptr %sets, i64 %setw) alwaysinline {
entry:
  %c64 = sext i32 %c to i64
  %vp = getelementptr inbounds double, ptr %row, i64 %c64
  %v = load double, ptr %vp
  %go = call i1 @goes_left(ptr %nodes, i64 %r, double %v, ptr %sets, i64 %setw)
  %lp = getelementptr inbounds %Node, ptr %nodes, i64 %r, i32 3
  %lv = load i32, ptr %lp
  %rq = getelementptr inbounds %Node, ptr %nodes, i64 %r, i32 4
  %rv = load i32, ptr %rq
  %next = select i1 %go, i32 %lv, i32 %rv
  ret i32 %next
}

; the forest kernel: walks packed nodes tree-major (one tree over every row, as sklearn does, so a
; tree's nodes stay in cache), adding trees in estimator order (exact); a tree with troot < 0 is a
; constant (tconst) added in place; forests (div != 0) end with the mean
define void @forest_eval(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %nodes,
                         ptr noalias %sets, i64 %setw,
                         ptr noalias %troot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                         ptr noalias %init, i64 %K, double %div, ptr noalias %out) {
entry:
  %empty = icmp sle i64 %n, 0
  %nk = mul i64 %n, %K
  br i1 %empty, label %exit, label %init_loop
init_loop:                                   ; out[i*K + k] = init[k]
  %j = phi i64 [0, %entry], [%j1, %init_loop]
  %jk = urem i64 %j, %K
  %ip = getelementptr inbounds double, ptr %init, i64 %jk
  %iv = load double, ptr %ip
  %op = getelementptr inbounds double, ptr %out, i64 %j
  store double %iv, ptr %op
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %nk
  br i1 %jd, label %tree_loop, label %init_loop
tree_loop:
  %t = phi i64 [0, %init_loop], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %troot, i64 %t
  %r0 = load i32, ptr %rp
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %isc = icmp slt i32 %r0, 0
  br i1 %isc, label %const_pre, label %row_loop
const_pre:
  %cp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cp
  br label %const_loop
const_loop:                                  ; a constant tree adds the same value to every row
  %ci = phi i64 [0, %const_pre], [%ci1, %const_loop]
  %cb = mul i64 %ci, %K
  %cix = add i64 %cb, %to64
  %cap = getelementptr inbounds double, ptr %out, i64 %cix
  %ca = load double, ptr %cap
  %ca2 = fadd double %ca, %cv
  store double %ca2, ptr %cap
  %ci1 = add i64 %ci, 1
  %cd = icmp eq i64 %ci1, %n
  br i1 %cd, label %tree_next, label %const_loop
row_loop:
  %i = phi i64 [0, %tree_loop], [%i1, %row_done]
  %roff = mul i64 %i, %width
  %row = getelementptr inbounds double, ptr %rows, i64 %roff
  br label %walk
walk:
  %r = phi i32 [%r0, %row_loop], [%rn, %test]
  %r64 = sext i32 %r to i64
  %nd = getelementptr inbounds %Node, ptr %nodes, i64 %r64
  %nv = load double, ptr %nd
  %colp = getelementptr inbounds %Node, ptr %nodes, i64 %r64, i32 1
  %c = load i32, ptr %colp
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %row_done, label %test
test:
  %rn = call i32 @child(ptr %nodes, i64 %r64, i32 %c, ptr %row, ptr %sets, i64 %setw)
  br label %walk
row_done:
  %ob = mul i64 %i, %K
  %oix = add i64 %ob, %to64
  %ap = getelementptr inbounds double, ptr %out, i64 %oix
  %a = load double, ptr %ap
  %a2 = fadd double %a, %nv
  store double %a2, ptr %ap
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %tree_next, label %row_loop
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %finish, label %tree_loop
finish:
  %isdiv = fcmp one double %div, 0.0
  br i1 %isdiv, label %divide, label %exit
divide:                                      ; forests (K = 1): mean over the trees
  %di = phi i64 [0, %finish], [%di1, %divide]
  %dp = getelementptr inbounds double, ptr %out, i64 %di
  %dv = load double, ptr %dp
  %q = fdiv double %dv, %div
  store double %q, ptr %dp
  %di1 = add i64 %di, 1
  %dd = icmp eq i64 %di1, %n
  br i1 %dd, label %exit, label %divide
exit:
  ret void
}

; native partial evaluation: the residual forest of (x, delta) in the kernel's node layout
; (a node is 6 i32 slots: the stack patches slot 4 = left or 5 = right of a residual parent)
; per instance: xstep[i] = { column of node i (-1: leaf), child x takes at i } (8 bytes) and
;   path[t][j] = { column, node } along x's root-to-leaf path in tree t (row stride %L entries)
; stack entries: { forest node, i32 slot of the residual parent's left/right field (-1: root) }
define i64 @partial_eval(ptr noalias %nodes, ptr noalias %xstep, ptr noalias %path, i64 %L,
                         ptr noalias %local, i64 %T, ptr noalias %out,
                         ptr noalias %troot, ptr noalias %tconst, ptr noalias %stack) {
entry:
  %none = icmp sle i64 %T, 0
  br i1 %none, label %done, label %tree
tree:
  %t = phi i64 [0, %entry], [%t1, %tree_next]
  %cnt = phi i32 [0, %entry], [%cnt_next, %tree_next]
  %prow = mul i64 %t, %L
  br label %scan
scan:                                        ; x's path until a leaf or the first split in delta
  %j = phi i64 [0, %tree], [%j1, %fixed0]
  %pj = add i64 %prow, %j
  %pe = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj
  %gc = load i32, ptr %pe
  %gp = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj, i32 1
  %g = load i32, ptr %gp
  %gleaf = icmp slt i32 %gc, 0
  br i1 %gleaf, label %constant, label %gchk
gchk:
  %gc64 = sext i32 %gc to i64
  %glp = getelementptr inbounds i32, ptr %local, i64 %gc64
  %gl = load i32, ptr %glp
  %gfree = icmp sge i32 %gl, 0
  br i1 %gfree, label %live, label %fixed0
fixed0:
  %j1 = add i64 %j, 1
  br label %scan
constant:                                    ; x alone decides the tree: its leaf value
  %g64 = sext i32 %g to i64
  %gvp = getelementptr inbounds %Node, ptr %nodes, i64 %g64
  %gv = load double, ptr %gvp
  %trp = getelementptr inbounds i32, ptr %troot, i64 %t
  store i32 -1, ptr %trp
  %tcp = getelementptr inbounds double, ptr %tconst, i64 %t
  store double %gv, ptr %tcp
  br label %tree_next
live:
  %trp2 = getelementptr inbounds i32, ptr %troot, i64 %t
  store i32 %cnt, ptr %trp2
  %tcp2 = getelementptr inbounds double, ptr %tconst, i64 %t
  store double 0.0, ptr %tcp2
  store i32 %g, ptr %stack
  %s1p = getelementptr inbounds i32, ptr %stack, i64 1
  store i32 -1, ptr %s1p
  br label %pop
pop:
  %sp = phi i64 [1, %live], [%sp1, %emit_leaf], [%sp3, %emit_split]
  %id = phi i32 [%cnt, %live], [%id1, %emit_leaf], [%id1, %emit_split]
  %empty = icmp eq i64 %sp, 0
  br i1 %empty, label %tree_next, label %popit
popit:
  %sp1 = sub i64 %sp, 1
  %e0 = shl i64 %sp1, 1
  %ep = getelementptr inbounds i32, ptr %stack, i64 %e0
  %h0 = load i32, ptr %ep
  %pp = getelementptr inbounds i32, ptr %ep, i64 1
  %patch = load i32, ptr %pp
  br label %skip
skip:                                        ; follow x through splits outside delta
  %h = phi i32 [%h0, %popit], [%hx, %fixed]
  %h64 = sext i32 %h to i64
  %hcp = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %h64
  %hc = load i32, ptr %hcp
  %hleaf = icmp slt i32 %hc, 0
  br i1 %hleaf, label %emit, label %hchk
hchk:
  %hc64 = sext i32 %hc to i64
  %hlp = getelementptr inbounds i32, ptr %local, i64 %hc64
  %hl = load i32, ptr %hlp
  %hfree = icmp sge i32 %hl, 0
  br i1 %hfree, label %emit, label %fixed
fixed:
  %hxp = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %h64, i32 1
  %hx = load i32, ptr %hxp
  br label %skip
emit:                                        ; residual node %id = forest node %h
  %col = phi i32 [-1, %skip], [%hl, %hchk]
  %id1 = add i32 %id, 1
  %haspar = icmp sge i32 %patch, 0
  br i1 %haspar, label %link, label %copy
link:
  %patch64 = sext i32 %patch to i64
  %slot = getelementptr inbounds i32, ptr %out, i64 %patch64
  store i32 %id, ptr %slot
  br label %copy
copy:
  %id64 = sext i32 %id to i64
  %hvp = getelementptr inbounds %Node, ptr %nodes, i64 %h64
  %hv = load double, ptr %hvp
  %hap = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 2
  %ha = load i32, ptr %hap
  %ov = getelementptr inbounds %Node, ptr %out, i64 %id64
  store double %hv, ptr %ov
  %oc = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 1
  store i32 %col, ptr %oc
  %oa = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 2
  store i32 %ha, ptr %oa
  %ol = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 3
  store i32 -1, ptr %ol
  %or = getelementptr inbounds %Node, ptr %out, i64 %id64, i32 4
  store i32 -1, ptr %or
  %issplit = icmp sge i32 %col, 0
  br i1 %issplit, label %emit_split, label %emit_leaf
emit_leaf:
  br label %pop
emit_split:                                  ; push right, then left (left is copied first)
  %hrp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 4
  %hr = load i32, ptr %hrp
  %hlcp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 3
  %hlc = load i32, ptr %hlcp
  %base = mul i32 %id, 6
  %rslot = add i32 %base, 5
  %lslot = add i32 %base, 4
  store i32 %hr, ptr %ep
  store i32 %rslot, ptr %pp
  %q1p = getelementptr inbounds i32, ptr %ep, i64 2
  store i32 %hlc, ptr %q1p
  %q1s = getelementptr inbounds i32, ptr %ep, i64 3
  store i32 %lslot, ptr %q1s
  %sp3 = add i64 %sp1, 2
  br label %pop
tree_next:
  %cnt_next = phi i32 [%cnt, %constant], [%id, %pop]
  %t1 = add i64 %t, 1
  %tdone = icmp eq i64 %t1, %T
  br i1 %tdone, label %done, label %tree
done:
  %total = phi i32 [0, %entry], [%cnt_next, %tree_next]
  %total64 = sext i32 %total to i64
  ret i64 %total64
}

; per instance: xstep (column and the child x takes at every node) and x's path in every tree
; (padded with its leaf to %L entries); the walk step is the kernel's
define void @bind_x(ptr noalias %nodes, i64 %n, ptr noalias %x, ptr noalias %sets, i64 %setw,
                    ptr noalias %xstep, ptr noalias %roots, i64 %T, ptr noalias %path, i64 %L) {
entry:
  br label %node
node:
  %i = phi i64 [0, %entry], [%i1, %node_next]
  %cp = getelementptr inbounds %Node, ptr %nodes, i64 %i, i32 1
  %c = load i32, ptr %cp
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %node_next, label %test
test:
  %child = call i32 @child(ptr %nodes, i64 %i, i32 %c, ptr %x, ptr %sets, i64 %setw)
  br label %node_next
node_next:
  %next = phi i32 [-1, %node], [%child, %test]
  %xc = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %i
  store i32 %c, ptr %xc
  %xg = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %i, i32 1
  store i32 %next, ptr %xg
  %i1 = add i64 %i, 1
  %nd = icmp eq i64 %i1, %n
  br i1 %nd, label %tree, label %node
tree:
  %t = phi i64 [0, %node_next], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %roots, i64 %t
  %g0 = load i32, ptr %rp
  %prow = mul i64 %t, %L
  br label %walk
walk:
  %j = phi i64 [0, %tree], [%j1, %walk]
  %g = phi i32 [%g0, %tree], [%g1, %walk]
  %g64 = sext i32 %g to i64
  %sc = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %g64
  %gcol = load i32, ptr %sc
  %sg = getelementptr inbounds { i32, i32 }, ptr %xstep, i64 %g64, i32 1
  %gnext = load i32, ptr %sg
  %pj = add i64 %prow, %j
  %pc = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj
  store i32 %gcol, ptr %pc
  %pn = getelementptr inbounds { i32, i32 }, ptr %path, i64 %pj, i32 1
  store i32 %g, ptr %pn
  %atleaf = icmp slt i32 %gcol, 0
  %g1 = select i1 %atleaf, i32 %g, i32 %gnext
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %L
  br i1 %jd, label %tree_next, label %walk
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %exit, label %tree
exit:
  ret void
}
