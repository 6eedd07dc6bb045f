; geco's hand-written tree kernels, compiled once per process (codegen.trees.kernel).
;
; Node layout (24 bytes, the numpy dtype codegen.trees.kernel.NODE):
;   { threshold or leaf value, column (-1: leaf), aux = 2*(set+1) + nan_goes_left, left, right }
; A split sends a row left iff  isnan(v) ? nan_goes_left : set >= 0 ? sets[set][int(v)] : v <= threshold
; (a code outside the set's width goes right: no read outside the sets)
; which is sklearn's routing after codegen.trees.fold moved every split onto the user's columns.
;
; @forest_eval     walks the packed forest (or a residual forest) over rows, tree-major, exact sums
;                  (in float64, or in float32 for XGBoost when %f32 != 0)
; @bind_x          per instance: the child x takes at every node, x's leaf and the columns below
;                  (filled on first use by the kernels that read it: @xready)
; @xwalk_rows      full rows that differ from x in a few columns each (a mask per row): every
;                  step x alone decides is taken from x's binding, the rest as @forest_eval does
; @plan_deltas     per (x, delta): partial evaluation, each residual tree a constant, a
;                  QuickScorer tree or a walk (native partial evaluation), several deltas at once
; @score_jobs      Delta blocks by plans or x-walks, every block of a generation in one call
; @xmask_of_x      per instance (forests of QuickScorer trees): x's masks on the records by column
; @xmask_rows      rows made from x, 8 at a time: the trees start from x's masks on the columns no
;                  row of the 8 changes, only the other columns' records are read

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

; an accumulator after an addition: XGBoost sums margins in float32. The double sum of two float32
; values rounded to float32 is exactly their float32 sum (53 >= 2*24 + 2 bits: no double rounding)
define internal double @round_sum(double %s, i1 %f32) alwaysinline {
entry:
  %r = fptrunc double %s to float
  %e = fpext float %r to double
  %o = select i1 %f32, double %e, double %s
  ret double %o
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

; the leaf a row reaches from node %r by its own values (the branchy walk)
define internal i32 @leaf_of(ptr %nodes, i32 %r, ptr %row, ptr %sets, i64 %setw) alwaysinline {
entry:
  br label %walk
walk:
  %h = phi i32 [%r, %entry], [%hn, %test]
  %h64 = sext i32 %h to i64
  %cp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 1
  %c = load i32, ptr %cp
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %done, label %test
test:
  %hn = call i32 @child(ptr %nodes, i64 %h64, i32 %c, ptr %row, ptr %sets, i64 %setw)
  br label %walk
done:
  ret i32 %h
}

; the forest kernel: walks packed nodes tree-major (one tree over every row, as sklearn does, so a
; tree's nodes stay in cache), adding trees in estimator order (exact); a tree with troot < 0 is a
; constant (tconst) added in place; forests (div != 0) end with the mean; %f32 != 0: every sum is
; rounded to float32 (XGBoost)
; shared by @forest_eval and @xwalk_rows (n >= 1, K >= 1)
define internal void @init_out(ptr noalias %out, ptr noalias %init, i64 %n, i64 %K) alwaysinline {
entry:                                       ; out[i*K + k] = init[k]
  %nk = mul i64 %n, %K
  br label %loop
loop:
  %j = phi i64 [0, %entry], [%j1, %loop]
  %jk = urem i64 %j, %K
  %ip = getelementptr inbounds double, ptr %init, i64 %jk
  %iv = load double, ptr %ip
  %op = getelementptr inbounds double, ptr %out, i64 %j
  store double %iv, ptr %op
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %nk
  br i1 %jd, label %done, label %loop
done:
  ret void
}

; out[i*K + to] += v for row i (rounded to float32 when %f32)
define internal void @add_leaf(ptr noalias %out, i64 %i, i64 %K, i64 %to, double %v, i1 %f32) alwaysinline {
entry:
  %ob = mul i64 %i, %K
  %oix = add i64 %ob, %to
  %ap = getelementptr inbounds double, ptr %out, i64 %oix
  %a = load double, ptr %ap
  %a1 = fadd double %a, %v
  %a2 = call double @round_sum(double %a1, i1 %f32)
  store double %a2, ptr %ap
  ret void
}

; a constant tree adds the same value to every row
define internal void @add_const_tree(ptr noalias %out, i64 %n, i64 %K, i64 %to, double %v, i1 %f32) alwaysinline {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  call void @add_leaf(ptr %out, i64 %i, i64 %K, i64 %to, double %v, i1 %f32)
  %i1 = add i64 %i, 1
  %d = icmp eq i64 %i1, %n
  br i1 %d, label %done, label %loop
done:
  ret void
}

; forests (K = 1, %div != 0): the mean over the trees
define internal void @divide_out(ptr noalias %out, i64 %n, double %div) alwaysinline {
entry:
  %isdiv = fcmp one double %div, 0.0
  br i1 %isdiv, label %loop, label %done
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %p = getelementptr inbounds double, ptr %out, i64 %i
  %v = load double, ptr %p
  %q = fdiv double %v, %div
  store double %q, ptr %p
  %i1 = add i64 %i, 1
  %d = icmp eq i64 %i1, %n
  br i1 %d, label %done, label %loop
done:
  ret void
}

define void @forest_eval(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %nodes,
                         ptr noalias %sets, i64 %setw,
                         ptr noalias %troot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                         ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %out) {
entry:
  %r32 = icmp ne i64 %f32, 0
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %start
start:
  call void @init_out(ptr %out, ptr %init, i64 %n, i64 %K)
  br label %tree_loop
tree_loop:
  %t = phi i64 [0, %start], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %troot, i64 %t
  %r0 = load i32, ptr %rp
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %isc = icmp slt i32 %r0, 0
  br i1 %isc, label %const_tree, label %row_loop
const_tree:
  %cp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cp
  call void @add_const_tree(ptr %out, i64 %n, i64 %K, i64 %to64, double %cv, i1 %r32)
  br label %tree_next
row_loop:
  %i = phi i64 [0, %tree_loop], [%i1, %row_loop]
  %roff = mul i64 %i, %width
  %row = getelementptr inbounds double, ptr %rows, i64 %roff
  %lf = call i32 @leaf_of(ptr %nodes, i32 %r0, ptr %row, ptr %sets, i64 %setw)
  %lf64 = sext i32 %lf to i64
  %nd = getelementptr inbounds %Node, ptr %nodes, i64 %lf64
  %nv = load double, ptr %nd
  call void @add_leaf(ptr %out, i64 %i, i64 %K, i64 %to64, double %nv, i1 %r32)
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %tree_next, label %row_loop
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %finish, label %tree_loop
finish:
  call void @divide_out(ptr %out, i64 %n, double %div)
  br label %exit
exit:
  ret void
}

; ---------------------------------------------------------------------------------------------
; Per instance x, one entry per forest node (%XStep, 16 bytes):
;   { column (-1: leaf) in the low 16 bits and the binding's epoch in the high 16, child x takes
;     (-1 at a leaf), the leaf x reaches from here, mask of the columns tested on x's path from
;     here down (bit = column mod 32) }
; The mask lets partial evaluation skip in O(1) what x alone decides: a subtree whose x-path tests
; no delta column (mask & dmask == 0) is x's leaf. Bits alias above 32 columns, which only costs a
; skip (the walk then checks each column exactly).
;
; A split's entry is filled on first use (@xready): binding x writes only the XHEAD record just
; before entry 0 (the forest's nodes, x, the code sets, their width and a new epoch), and an entry
; holds x's step only while its epoch is the binding's. Filling walks x's path down from the node
; to a leaf or a current entry and fills every entry on the way, bottom up (@xfill): a search
; reads a few percent of a deep forest's nodes, and binding all of them (@bind_x) cost 1.3-1.7 ms
; an instance on RF-500. A leaf's entry never changes { 0xFFFF, -1, itself, 0 }. The entries
; below a current one on x's path are current (filled before it): a walk checks an entry where
; it starts and where a row, not x, chose the child, and nowhere else. The epoch word is
; stored last (release) and read first (acquire): a second thread building plans for the same x
; fills an entry with the same numbers or reads it whole.

%XStep = type { i32, i32, i32, i32 }

; slot %slot of the XHEAD record (codegen.llvm.trees_abi.XHEAD) that precedes entry 0
define internal i64 @xhead(ptr %xstep, i64 %slot) alwaysinline {
entry:
  %off = sub i64 %slot, {XHEAD.width}
  %p = getelementptr inbounds i64, ptr %xstep, i64 %off
  %v = load i64, ptr %p
  ret i64 %v
}

; the binding's epoch (read once per call: it does not change while kernels run)
define internal i32 @xepoch(ptr %xstep) alwaysinline {
entry:
  %ep64 = call i64 @xhead(ptr %xstep, i64 {XHEAD.epoch})
  %ep = trunc i64 %ep64 to i32
  ret i32 %ep
}

; the column an entry's word holds (its low 16 bits, signed: -1 at a leaf)
define internal i32 @xcol(i32 %w) alwaysinline {
entry:
  %lo = trunc i32 %w to i16
  %c = sext i16 %lo to i32
  ret i32 %c
}

; the column node %h tests, from its entry's word %w; the entry filled first unless it is
; current (its epoch is %ep, @xepoch's) or a leaf's
define internal i32 @xready_word(ptr %xstep, i64 %h, i32 %ep, i32 %w) alwaysinline {
entry:
  %c = call i32 @xcol(i32 %w)
  %leaf = icmp slt i32 %c, 0
  %hi = lshr i32 %w, 16
  %cur = icmp eq i32 %hi, %ep
  %ok = or i1 %cur, %leaf                    ; one well-predicted branch: leaves need no fill
  br i1 %ok, label %done, label %fill, !prof !0
fill:
  call void @xfill(ptr %xstep, i64 %h)
  br label %done
done:
  ret i32 %c
}

; the column node %h tests (-1: a leaf), its entry made current first: the word read with
; acquire, as a second thread building plans for the same x may be filling it
define internal i32 @xready(ptr %xstep, i64 %h, i32 %ep) alwaysinline {
entry:
  %cp = getelementptr inbounds %XStep, ptr %xstep, i64 %h, i32 {XSTEP.col}
  %w = load atomic i32, ptr %cp acquire, align 4
  %c = call i32 @xready_word(ptr %xstep, i64 %h, i32 %ep, i32 %w)
  ret i32 %c
}

; @xready for the kernels that run on the thread owning the binding alone (no fill beside them)
define internal i32 @xready_own(ptr %xstep, i64 %h, i32 %ep) alwaysinline {
entry:
  %cp = getelementptr inbounds %XStep, ptr %xstep, i64 %h, i32 {XSTEP.col}
  %w = load i32, ptr %cp
  %c = call i32 @xready_word(ptr %xstep, i64 %h, i32 %ep, i32 %w)
  ret i32 %c
}

!0 = !{!"branch_weights", i32 1000, i32 1}

; fill the entries of x's path from split node %h down to the first leaf or current entry (at
; most 16 a pass: deeper paths fill their lower part first, by recursion)
define internal void @xfill(ptr %xstep, i64 %h) noinline {
entry:
  %stack = alloca [16 x i32]
  %nodes.i = call i64 @xhead(ptr %xstep, i64 {XHEAD.nodes})
  %nodes = inttoptr i64 %nodes.i to ptr
  %x.i = call i64 @xhead(ptr %xstep, i64 {XHEAD.x})
  %x = inttoptr i64 %x.i to ptr
  %sets.i = call i64 @xhead(ptr %xstep, i64 {XHEAD.sets})
  %sets = inttoptr i64 %sets.i to ptr
  %setw = call i64 @xhead(ptr %xstep, i64 {XHEAD.setw})
  %ep64 = call i64 @xhead(ptr %xstep, i64 {XHEAD.epoch})
  %ep = trunc i64 %ep64 to i32
  %h32 = trunc i64 %h to i32
  br label %down
down:
  %n = phi i32 [%h32, %entry], [%nx, %push]
  %sp = phi i64 [0, %entry], [%sp1, %push]
  %n64 = sext i32 %n to i64
  %cp = getelementptr inbounds %XStep, ptr %xstep, i64 %n64, i32 {XSTEP.col}
  %w = load atomic i32, ptr %cp acquire, align 4
  %c = call i32 @xcol(i32 %w)
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %base_leaf, label %chk
chk:
  %hi = lshr i32 %w, 16
  %current = icmp eq i32 %hi, %ep
  br i1 %current, label %base_entry, label %room
room:
  %full = icmp eq i64 %sp, 16
  br i1 %full, label %deep, label %push
push:
  %slot = getelementptr inbounds [16 x i32], ptr %stack, i64 0, i64 %sp
  store i32 %n, ptr %slot
  %sp1 = add i64 %sp, 1
  %nx = call i32 @child(ptr %nodes, i64 %n64, i32 %c, ptr %x, ptr %sets, i64 %setw)
  br label %down
deep:
  call void @xfill(ptr %xstep, i64 %n64)
  br label %base_entry
base_leaf:
  br label %up
base_entry:
  %blp = getelementptr inbounds %XStep, ptr %xstep, i64 %n64, i32 {XSTEP.leaf}
  %bl = load i32, ptr %blp
  %bmp = getelementptr inbounds %XStep, ptr %xstep, i64 %n64, i32 {XSTEP.mask}
  %bm = load i32, ptr %bmp
  br label %up
up:
  %below = phi i32 [%n, %base_leaf], [%n, %base_entry], [%p, %fill_entry]
  %lf = phi i32 [%n, %base_leaf], [%bl, %base_entry], [%lf, %fill_entry]
  %mk = phi i32 [0, %base_leaf], [%bm, %base_entry], [%mk2, %fill_entry]
  %spu = phi i64 [%sp, %base_leaf], [%sp, %base_entry], [%spd, %fill_entry]
  %empty = icmp eq i64 %spu, 0
  br i1 %empty, label %exit, label %fill_entry
fill_entry:
  %spd = sub i64 %spu, 1
  %pslot = getelementptr inbounds [16 x i32], ptr %stack, i64 0, i64 %spd
  %p = load i32, ptr %pslot
  %p64 = sext i32 %p to i64
  %pcp = getelementptr inbounds %XStep, ptr %xstep, i64 %p64, i32 {XSTEP.col}
  %pw = load i32, ptr %pcp
  %pcol = and i32 %pw, 65535
  %bitn = and i32 %pcol, 31
  %bit = shl i32 1, %bitn
  %mk2 = or i32 %mk, %bit
  %pgp = getelementptr inbounds %XStep, ptr %xstep, i64 %p64, i32 {XSTEP.child}
  store i32 %below, ptr %pgp
  %plp = getelementptr inbounds %XStep, ptr %xstep, i64 %p64, i32 {XSTEP.leaf}
  store i32 %lf, ptr %plp
  %pmp = getelementptr inbounds %XStep, ptr %xstep, i64 %p64, i32 {XSTEP.mask}
  store i32 %mk2, ptr %pmp
  %eph = shl i32 %ep, 16
  %pw2 = or i32 %eph, %pcol
  store atomic i32 %pw2, ptr %pcp release, align 4
  br label %up
exit:
  ret void
}

; Every entry at once, current for the epoch in the XHEAD record (for the Python side's path masks
; and child array). %order lists every reachable node, parents before children (the mask pass runs
; it backwards); %norder < 0 when every child has a larger index than its parent (sklearn's
; layout): no %order
define void @bind_x(ptr noalias %nodes, i64 %n, ptr noalias %x, ptr noalias %sets, i64 %setw,
                    ptr noalias %xstep, ptr noalias %order, i64 %norder) {
entry:
  %none = icmp sle i64 %n, 0
  br i1 %none, label %exit, label %start
start:
  %bep64 = call i64 @xhead(ptr %xstep, i64 {XHEAD.epoch})
  %bep32 = trunc i64 %bep64 to i32
  %bep = shl i32 %bep32, 16
  %children_after = icmp slt i64 %norder, 0
  br i1 %children_after, label %down, label %node
down:                                        ; one pass, children (larger indices) first
  %di = phi i64 [%n, %start], [%dm, %down_next]
  %dm = sub i64 %di, 1
  %dm32 = trunc i64 %dm to i32
  %dcp = getelementptr inbounds %Node, ptr %nodes, i64 %dm, i32 1
  %dc = load i32, ptr %dcp
  %dleaf = icmp slt i32 %dc, 0
  br i1 %dleaf, label %down_next, label %down_split
down_split:
  %dch = call i32 @child(ptr %nodes, i64 %dm, i32 %dc, ptr %x, ptr %sets, i64 %setw)
  %dch64 = sext i32 %dch to i64
  %dlp = getelementptr inbounds %XStep, ptr %xstep, i64 %dch64, i32 {XSTEP.leaf}
  %dl = load i32, ptr %dlp
  %dmp = getelementptr inbounds %XStep, ptr %xstep, i64 %dch64, i32 {XSTEP.mask}
  %dmk = load i32, ptr %dmp
  %dbitn = and i32 %dc, 31
  %dbit = shl i32 1, %dbitn
  %dmk2 = or i32 %dmk, %dbit
  br label %down_next
down_next:
  %sch = phi i32 [-1, %down], [%dch, %down_split]
  %sleaf = phi i32 [%dm32, %down], [%dl, %down_split]
  %smask = phi i32 [0, %down], [%dmk2, %down_split]
  %sp1 = getelementptr inbounds %XStep, ptr %xstep, i64 %dm, i32 {XSTEP.child}
  store i32 %sch, ptr %sp1
  %sp2 = getelementptr inbounds %XStep, ptr %xstep, i64 %dm, i32 {XSTEP.leaf}
  store i32 %sleaf, ptr %sp2
  %sp3 = getelementptr inbounds %XStep, ptr %xstep, i64 %dm, i32 {XSTEP.mask}
  store i32 %smask, ptr %sp3
  %dclo = and i32 %dc, 65535
  %dcw = or i32 %bep, %dclo
  %sp0 = getelementptr inbounds %XStep, ptr %xstep, i64 %dm, i32 {XSTEP.col}
  store atomic i32 %dcw, ptr %sp0 release, align 4
  %ddone = icmp eq i64 %dm, 0
  br i1 %ddone, label %exit, label %down
node:                                        ; otherwise: child per node, then masks along %order
  %i = phi i64 [0, %start], [%i1, %node_next]
  %i32 = trunc i64 %i to i32
  %cp = getelementptr inbounds %Node, ptr %nodes, i64 %i, i32 1
  %c = load i32, ptr %cp
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %node_next, label %test
test:
  %child = call i32 @child(ptr %nodes, i64 %i, i32 %c, ptr %x, ptr %sets, i64 %setw)
  br label %node_next
node_next:
  %next = phi i32 [-1, %node], [%child, %test]
  %leaf = select i1 %isleaf, i32 %i32, i32 -1
  %clo = and i32 %c, 65535
  %cw = or i32 %bep, %clo
  %xc = getelementptr inbounds %XStep, ptr %xstep, i64 %i, i32 {XSTEP.col}
  store i32 %cw, ptr %xc
  %xg = getelementptr inbounds %XStep, ptr %xstep, i64 %i, i32 {XSTEP.child}
  store i32 %next, ptr %xg
  %xl = getelementptr inbounds %XStep, ptr %xstep, i64 %i, i32 {XSTEP.leaf}
  store i32 %leaf, ptr %xl
  %xm = getelementptr inbounds %XStep, ptr %xstep, i64 %i, i32 {XSTEP.mask}
  store i32 0, ptr %xm
  %i1 = add i64 %i, 1
  %nd = icmp eq i64 %i1, %n
  br i1 %nd, label %masks, label %node
masks:
  %noorder = icmp eq i64 %norder, 0
  br i1 %noorder, label %exit, label %up
up:                                          ; children before parents
  %j = phi i64 [%norder, %masks], [%j1, %up_next]
  %j1 = sub i64 %j, 1
  %op = getelementptr inbounds i32, ptr %order, i64 %j1
  %oo = load i32, ptr %op
  %o64 = sext i32 %oo to i64
  %occ = getelementptr inbounds %XStep, ptr %xstep, i64 %o64, i32 {XSTEP.col}
  %ocw = load i32, ptr %occ
  %oc = call i32 @xcol(i32 %ocw)
  %osplit = icmp sge i32 %oc, 0
  br i1 %osplit, label %up_split, label %up_next
up_split:
  %ogp = getelementptr inbounds %XStep, ptr %xstep, i64 %o64, i32 {XSTEP.child}
  %og = load i32, ptr %ogp
  %og64 = sext i32 %og to i64
  %clp = getelementptr inbounds %XStep, ptr %xstep, i64 %og64, i32 {XSTEP.leaf}
  %cl = load i32, ptr %clp
  %cmp = getelementptr inbounds %XStep, ptr %xstep, i64 %og64, i32 {XSTEP.mask}
  %cm = load i32, ptr %cmp
  %bitn = and i32 %oc, 31
  %bit = shl i32 1, %bitn
  %m = or i32 %cm, %bit
  %olp = getelementptr inbounds %XStep, ptr %xstep, i64 %o64, i32 {XSTEP.leaf}
  store i32 %cl, ptr %olp
  %omp = getelementptr inbounds %XStep, ptr %xstep, i64 %o64, i32 {XSTEP.mask}
  store i32 %m, ptr %omp
  br label %up_next
up_next:
  %jd = icmp eq i64 %j1, 0
  br i1 %jd, label %exit, label %up
exit:
  ret void
}

; ---------------------------------------------------------------------------------------------
; Full rows scored with x's binding (@xwalk_rows). Row i differs from x at most in the columns of
; its mask (%rmask + i*W, W i64 words, bit c = column c); %xmask + r*W holds, exactly, the columns
; x's path tests from node r down to x's leaf. Where the two do not meet, the row reaches x's leaf
; (every test on the way reads a column the row shares with x); at a split whose column is not in
; the row's mask the row goes where x goes. Any other split reads the row as @forest_eval does, so
; every row reaches the leaf the full walk reaches, and the sums run in the same tree order: the
; results are @forest_eval's, bit for bit, for any mask that covers the row's differences.

define internal i1 @masks_meet(ptr %a, ptr %b, i64 %W) alwaysinline {
entry:                                       ; no early exit: W is one or two words here
  br label %loop
loop:
  %k = phi i64 [0, %entry], [%k1, %loop]
  %acc = phi i64 [0, %entry], [%acc1, %loop]
  %pa = getelementptr inbounds i64, ptr %a, i64 %k
  %va = load i64, ptr %pa
  %pb = getelementptr inbounds i64, ptr %b, i64 %k
  %vb = load i64, ptr %pb
  %both = and i64 %va, %vb
  %acc1 = or i64 %acc, %both
  %k1 = add i64 %k, 1
  %done = icmp eq i64 %k1, %W
  br i1 %done, label %out, label %loop
out:
  %hit = icmp ne i64 %acc1, 0
  ret i1 %hit
}

define void @xwalk_rows(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %rmask, i64 %W,
                        ptr noalias %nodes, ptr noalias %xstep, ptr noalias %xmask,
                        ptr noalias %sets, i64 %setw,
                        ptr noalias %troot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                        ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %out) {
entry:
  %r32 = icmp ne i64 %f32, 0
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %start
start:
  call void @init_out(ptr %out, ptr %init, i64 %n, i64 %K)
  br label %tree_loop
tree_loop:
  %t = phi i64 [0, %start], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %troot, i64 %t
  %r0 = load i32, ptr %rp
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %isc = icmp slt i32 %r0, 0
  br i1 %isc, label %const_tree, label %row_loop
const_tree:
  %cp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cp
  call void @add_const_tree(ptr %out, i64 %n, i64 %K, i64 %to64, double %cv, i1 %r32)
  br label %tree_next
row_loop:
  %i = phi i64 [0, %tree_loop], [%i1, %row_done]
  %roff = mul i64 %i, %width
  %row = getelementptr inbounds double, ptr %rows, i64 %roff
  %moff = mul i64 %i, %W
  %rm = getelementptr inbounds i64, ptr %rmask, i64 %moff
  br label %walk
walk:
  %r = phi i32 [%r0, %row_loop], [%rn, %step]
  %r64 = sext i32 %r to i64
  %xoff = mul i64 %r64, %W
  %xm = getelementptr inbounds i64, ptr %xmask, i64 %xoff
  %meet = call i1 @masks_meet(ptr %xm, ptr %rm, i64 %W)
  br i1 %meet, label %node, label %to_x_leaf
to_x_leaf:                                   ; nothing below differs from x: x's leaf
  %xlp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.leaf}
  %xl = load i32, ptr %xlp
  br label %leaf
node:
  %colp = getelementptr inbounds %Node, ptr %nodes, i64 %r64, i32 1
  %c = load i32, ptr %colp
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %leaf, label %split
split:
  %c64 = sext i32 %c to i64
  %wi = lshr i64 %c64, 6
  %bi = and i64 %c64, 63
  %wp = getelementptr inbounds i64, ptr %rm, i64 %wi
  %wv = load i64, ptr %wp
  %sh = lshr i64 %wv, %bi
  %b1 = and i64 %sh, 1
  %own = icmp ne i64 %b1, 0
  br i1 %own, label %read, label %follow
read:                                        ; a column the row may change: the row decides
  %rc = call i32 @child(ptr %nodes, i64 %r64, i32 %c, ptr %row, ptr %sets, i64 %setw)
  br label %step
follow:                                      ; the row holds x's value here: x's child
  %xcp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.child}
  %xc = load i32, ptr %xcp
  br label %step
step:
  %rn = phi i32 [%rc, %read], [%xc, %follow]
  br label %walk
leaf:
  %lf = phi i32 [%xl, %to_x_leaf], [%r, %node]
  %lf64 = sext i32 %lf to i64
  %lvp = getelementptr inbounds %Node, ptr %nodes, i64 %lf64
  %nv = load double, ptr %lvp
  br label %row_done
row_done:
  call void @add_leaf(ptr %out, i64 %i, i64 %K, i64 %to64, double %nv, i1 %r32)
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %tree_next, label %row_loop
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %finish, label %tree_loop
finish:
  call void @divide_out(ptr %out, i64 %n, double %div)
  br label %exit
exit:
  ret void
}

; ---------------------------------------------------------------------------------------------
; Full rows scored with x's binding alone, no path masks built: row i differs from x at most in
; the columns whose bits (column mod 32) %rmask[i] sets, and %XStep's own mask stands for the
; columns x's path tests below a node, folded the same way. Folding only makes masks meet where
; the exact ones would not, which costs a walk, never a wrong leaf: where they do not meet no
; column on x's path differs, and a split whose bit the row lacks reads a column equal to x's.
; So @xwalk_folded_rows gives @forest_eval's results, bit for bit, as @xwalk_rows does.
; In each tree, a row walks x's path down to the first node its mask decides (a split on one of
; its columns, or one below which x's path reads none); the rows after it with the same mask (a
; Δ block's rows come together) start there: the nodes above decide alike for all of them.

; The body of both entry points below; %leave: a row leaving x's path walks on by its own values.
define internal void @xwalk_folded_body(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %rmask,
                                        ptr noalias %nodes, ptr noalias %xstep,
                                        ptr noalias %sets, i64 %setw,
                                        ptr noalias %troot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                                        ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %out,
                                        i1 %leave) alwaysinline {
entry:
  %xep = call i32 @xepoch(ptr %xstep)
  %r32 = icmp ne i64 %f32, 0
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %start
start:
  call void @init_out(ptr %out, ptr %init, i64 %n, i64 %K)
  br label %tree_loop
tree_loop:
  %t = phi i64 [0, %start], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %troot, i64 %t
  %r0 = load i32, ptr %rp
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %isc = icmp slt i32 %r0, 0
  br i1 %isc, label %const_tree, label %tree_start
const_tree:
  %cp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cp
  call void @add_const_tree(ptr %out, i64 %n, i64 %K, i64 %to64, double %cv, i1 %r32)
  br label %tree_next
tree_start:                                  ; x's path from the root made current
  %r0w = sext i32 %r0 to i64
  %r0c = call i32 @xready_own(ptr %xstep, i64 %r0w, i32 %xep)
  br label %row_loop
row_loop:
  %i = phi i64 [0, %tree_start], [%i1, %row_done]
  %prm = phi i32 [0, %tree_start], [%rm, %row_done]      ; the row before's mask
  %pent = phi i32 [%r0, %tree_start], [%ent, %row_done]  ; and where its walk left x's path
  %roff = mul i64 %i, %width
  %row = getelementptr inbounds double, ptr %rows, i64 %roff
  %rmp = getelementptr inbounds i32, ptr %rmask, i64 %i
  %rm = load i32, ptr %rmp
  %same = icmp eq i32 %rm, %prm
  %first = icmp eq i64 %i, 0
  %again = xor i1 %first, true
  %reuse = and i1 %again, %same
  br i1 %reuse, label %entry_ready, label %prefix
prefix:                                      ; x's path down to the first node the mask decides
  %p = phi i32 [%r0, %row_loop], [%pn, %prefix_follow]
  %p64 = sext i32 %p to i64
  %pmp = getelementptr inbounds %XStep, ptr %xstep, i64 %p64, i32 {XSTEP.mask}
  %pm = load i32, ptr %pmp
  %pboth = and i32 %pm, %rm
  %pmeet = icmp ne i32 %pboth, 0
  br i1 %pmeet, label %prefix_node, label %entry_ready
prefix_node:
  %pcp = getelementptr inbounds %Node, ptr %nodes, i64 %p64, i32 1
  %pc = load i32, ptr %pcp
  %pleaf = icmp slt i32 %pc, 0
  br i1 %pleaf, label %entry_ready, label %prefix_bit
prefix_bit:
  %pbi = and i32 %pc, 31
  %psh = lshr i32 %rm, %pbi
  %pb1 = and i32 %psh, 1
  %pown = icmp ne i32 %pb1, 0
  br i1 %pown, label %entry_ready, label %prefix_follow
prefix_follow:
  %pxp = getelementptr inbounds %XStep, ptr %xstep, i64 %p64, i32 {XSTEP.child}
  %pn = load i32, ptr %pxp
  br label %prefix
entry_ready:                                 ; a run of rows of one mask share that node
  %ent = phi i32 [%pent, %row_loop], [%p, %prefix], [%p, %prefix_node], [%p, %prefix_bit]
  br label %walk
walk:
  %r = phi i32 [%ent, %entry_ready], [%rn, %step]
  %r64 = sext i32 %r to i64
  %xmp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.mask}
  %xm = load i32, ptr %xmp
  %both = and i32 %xm, %rm
  %meet = icmp ne i32 %both, 0
  br i1 %meet, label %node, label %to_x_leaf
to_x_leaf:                                   ; nothing below differs from x: x's leaf
  %xlp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.leaf}
  %xl = load i32, ptr %xlp
  br label %leaf
node:
  %colp = getelementptr inbounds %Node, ptr %nodes, i64 %r64, i32 1
  %c = load i32, ptr %colp
  %isleaf = icmp slt i32 %c, 0
  br i1 %isleaf, label %leaf, label %split
split:
  %bi = and i32 %c, 31
  %sh = lshr i32 %rm, %bi
  %b1 = and i32 %sh, 1
  %own = icmp ne i32 %b1, 0
  br i1 %own, label %read, label %follow
read:                                        ; a column the row may change: the row decides
  %rc = call i32 @child(ptr %nodes, i64 %r64, i32 %c, ptr %row, ptr %sets, i64 %setw)
  br i1 %leave, label %read_leave, label %read_fill
read_fill:                                   ; x's path from the row's node made current
  %rc64 = sext i32 %rc to i64
  %rcc = call i32 @xready_own(ptr %xstep, i64 %rc64, i32 %xep)
  br label %step
read_leave:                                  ; still on x's path? else the row's own walk
  %rxp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.child}
  %rxc = load i32, ptr %rxp
  %onpath = icmp eq i32 %rc, %rxc
  br i1 %onpath, label %step, label %own_walk
own_walk:                                    ; off x's path: the branchy walk, no binding read
  %b = call i32 @leaf_of(ptr %nodes, i32 %rc, ptr %row, ptr %sets, i64 %setw)
  br label %leaf
follow:                                      ; the row holds x's value here: x's child
  %xcp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.child}
  %xc = load i32, ptr %xcp
  br label %step
step:
  %rn = phi i32 [%rc, %read_fill], [%rc, %read_leave], [%xc, %follow]
  br label %walk
leaf:
  %lf = phi i32 [%xl, %to_x_leaf], [%r, %node], [%b, %own_walk]
  %lf64 = sext i32 %lf to i64
  %lvp = getelementptr inbounds %Node, ptr %nodes, i64 %lf64
  %nv = load double, ptr %lvp
  br label %row_done
row_done:
  call void @add_leaf(ptr %out, i64 %i, i64 %K, i64 %to64, double %nv, i1 %r32)
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %tree_next, label %row_loop
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %finish, label %tree_loop
finish:
  call void @divide_out(ptr %out, i64 %n, double %div)
  br label %exit
exit:
  ret void
}

define void @xwalk_folded_rows(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %rmask,
                        ptr noalias %nodes, ptr noalias %xstep,
                        ptr noalias %sets, i64 %setw,
                        ptr noalias %troot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                        ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %out) {
entry:
  call void @xwalk_folded_body(ptr %rows, i64 %n, i64 %width, ptr %rmask, ptr %nodes, ptr %xstep,
                                ptr %sets, i64 %setw, ptr %troot, ptr %tconst, ptr %tout, i64 %T,
                                ptr %init, i64 %K, double %div, i64 %f32, ptr %out, i1 false)
  ret void
}

; @xwalk_folded_rows where a row that leaves x's path (a split on one of its columns sends it
; elsewhere than x) walks on by its own values: the binding's entries below are never filled for
; it (a fill walks x's path down from the node: on deep trees, where rows leave x's path at many
; nodes, that is the walk's cost), and no subtree is skipped there. Same leaves, same sums.
define void @xentry_rows(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %rmask,
                        ptr noalias %nodes, ptr noalias %xstep,
                        ptr noalias %sets, i64 %setw,
                        ptr noalias %troot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                        ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %out) {
entry:
  call void @xwalk_folded_body(ptr %rows, i64 %n, i64 %width, ptr %rmask, ptr %nodes, ptr %xstep,
                                ptr %sets, i64 %setw, ptr %troot, ptr %tconst, ptr %tout, i64 %T,
                                ptr %init, i64 %K, double %div, i64 %f32, ptr %out, i1 true)
  ret void
}


; ---------------------------------------------------------------------------------------------
; Partial evaluation of one tree for (x, delta): an explicit-stack DFS from forest node %g copies
; the residual tree into %out from residual id %cnt on, following x through splits outside delta
; (%local[column] < 0) and jumping straight to x's leaf where x's path tests no delta column.
; Stack entries: { forest node, i32 slot of the residual parent's left/right field (-1: root) }
; (a residual node is 6 i32 slots: slot 4 = left, 5 = right). Returns the next free residual id.
define internal i32 @pe_tree(ptr noalias %nodes, ptr noalias %xstep, ptr noalias %local, i32 %dmask,
                             ptr noalias %out, ptr noalias %stack, i32 %g, i32 %cnt) {
entry:
  %xep = call i32 @xepoch(ptr %xstep)
  store i32 %g, ptr %stack
  %s1p = getelementptr inbounds i32, ptr %stack, i64 1
  store i32 -1, ptr %s1p
  br label %pop
pop:
  %sp = phi i64 [1, %entry], [%sp1, %emit_leaf], [%sp3, %emit_split]
  %id = phi i32 [%cnt, %entry], [%id1, %emit_leaf], [%id1, %emit_split]
  %empty = icmp eq i64 %sp, 0
  br i1 %empty, label %done, label %popit
popit:
  %sp1 = sub i64 %sp, 1
  %e0 = shl i64 %sp1, 1
  %ep = getelementptr inbounds i32, ptr %stack, i64 %e0
  %h0 = load i32, ptr %ep
  %h0w = sext i32 %h0 to i64
  %h0c = call i32 @xready(ptr %xstep, i64 %h0w, i32 %xep)     ; popped: the DFS, not x, chose it
  %pp = getelementptr inbounds i32, ptr %ep, i64 1
  %patch = load i32, ptr %pp
  br label %skip
skip:                                        ; follow x through splits outside delta
  %h = phi i32 [%h0, %popit], [%hx, %fixed]
  %h64 = sext i32 %h to i64
  %hcp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.col}
  %hcw = load i32, ptr %hcp
  %hc = call i32 @xcol(i32 %hcw)
  %hleaf = icmp slt i32 %hc, 0
  br i1 %hleaf, label %emit, label %hchk
hchk:
  %hc64 = sext i32 %hc to i64
  %hlp = getelementptr inbounds i32, ptr %local, i64 %hc64
  %hl = load i32, ptr %hlp
  %hfree = icmp sge i32 %hl, 0
  br i1 %hfree, label %emit, label %fixed
fixed:                                       ; x decides; no delta column below on x's path: its leaf
  %hmp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.mask}
  %hm = load i32, ptr %hmp
  %hhit = and i32 %hm, %dmask
  %hnone = icmp eq i32 %hhit, 0
  %hxp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.child}
  %hxc = load i32, ptr %hxp
  %hfp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.leaf}
  %hxl = load i32, ptr %hfp
  %hx = select i1 %hnone, i32 %hxl, i32 %hxc
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
done:
  ret i32 %id
}

; ---------------------------------------------------------------------------------------------
; Plans: partial evaluation for (x, delta), each residual tree in the form that scores a block
; fastest. A tree is a constant (x's path tests no delta column, or its residual is one leaf), a
; QuickScorer tree (at most %maxleaves leaves) or a walk. QuickScorer: number the leaves left to
; right; a split that sends a row right rules out every leaf of its left subtree, so the row's
; leaf is the lowest bit left standing in the AND of the "false" splits' masks (exactly the leaf
; the walk reaches). The evaluator runs every split as one compare over the whole block - vector
; code, no branches - then adds the leaves in estimator order: sklearn's additions, bit for bit.
;
; Plan layout (owned by the caller):
;   tinfo[t] = { kind (0 constant, 1 QuickScorer, 2 walk), first qrec record or walk root,
;                number of records, offset of the tree's leaves in leafval }; tconst[t]
;   qrec     = per split { payload (threshold double, or the 64-bit set of codes going left),
;                i32 column (local to delta), i32 test (0: v <= threshold, 1: code in set,
;                2: never left; + 4 when NaN goes left, else NaN goes right), i64 mask clearing
;                the left subtree's leaves }
;   rn       = residual nodes of the walk trees (%Node layout, columns local to delta)

%QRec = type { i64, i32, i32, i64 }

define internal ptr @aptr(ptr %a, i64 %i) alwaysinline {
entry:
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %q = inttoptr i64 %v to ptr
  ret ptr %q
}

define internal i64 @aint(ptr %a, i64 %i) alwaysinline {
entry:
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  ret i64 %v
}

define internal void @put_tinfo(ptr %tinfo, i64 %t, i32 %kind, i32 %a, i32 %b, i32 %c) alwaysinline {
entry:
  %o = mul i64 %t, {TINFO.width}
  %p = getelementptr inbounds i32, ptr %tinfo, i64 %o
  %p0 = getelementptr inbounds i32, ptr %p, i64 {TINFO.kind}
  store i32 %kind, ptr %p0
  %p1 = getelementptr inbounds i32, ptr %p, i64 {TINFO.start}
  store i32 %a, ptr %p1
  %p2 = getelementptr inbounds i32, ptr %p, i64 {TINFO.count}
  store i32 %b, ptr %p2
  %p3 = getelementptr inbounds i32, ptr %p, i64 {TINFO.leaves}
  store i32 %c, ptr %p3
  ret void
}

; The QuickScorer form of tree root %g for (x, delta), straight from the DFS of @pe_tree (no
; residual nodes): records appended from %nq0, leaves (left to right) from %nl0. Returns the
; number of records, or -1 when the tree has more than %maxleaves leaves or a code set over more
; than 64 categories (the caller then walks it); the leaf count goes to %nlout. Until its right
; child is popped - which closes its left subtree - a record's mask holds that subtree's first leaf.
define internal i64 @qs_dfs(ptr noalias %nodes, ptr noalias %xstep, ptr noalias %local, i32 %dmask,
                            ptr noalias %ncat, ptr noalias %setbits, ptr noalias %stack, i32 %g,
                            ptr noalias %qrec, i64 %nq0, ptr noalias %leafval, i64 %nl0,
                            i64 %maxleaves, ptr noalias %nlout) {
entry:
  %xep = call i32 @xepoch(ptr %xstep)
  %sp.a = alloca i64
  %nq.a = alloca i64
  %nl.a = alloca i64
  store i64 1, ptr %sp.a
  store i64 %nq0, ptr %nq.a
  store i64 0, ptr %nl.a
  %maxrec = add i64 %nq0, %maxleaves
  %maxrec1 = sub i64 %maxrec, 1
  store i32 %g, ptr %stack
  %s1p = getelementptr inbounds i32, ptr %stack, i64 1
  store i32 -1, ptr %s1p
  br label %pop
pop:
  %sp = load i64, ptr %sp.a
  %empty = icmp eq i64 %sp, 0
  br i1 %empty, label %done, label %popit
popit:
  %sp1 = sub i64 %sp, 1
  store i64 %sp1, ptr %sp.a
  %e0 = shl i64 %sp1, 1
  %ep = getelementptr inbounds i32, ptr %stack, i64 %e0
  %h0 = load i32, ptr %ep
  %h0w = sext i32 %h0 to i64
  %h0c = call i32 @xready(ptr %xstep, i64 %h0w, i32 %xep)     ; popped: the DFS, not x, chose it
  %pp = getelementptr inbounds i32, ptr %ep, i64 1
  %rec = load i32, ptr %pp
  %closes = icmp sge i32 %rec, 0
  br i1 %closes, label %close, label %skip
close:                                       ; the parent's left subtree is leaves lo .. nl-1
  %rec64 = sext i32 %rec to i64
  %mp = getelementptr inbounds %QRec, ptr %qrec, i64 %rec64, i32 3
  %lo = load i64, ptr %mp
  %nlc = load i64, ptr %nl.a
  %w = sub i64 %nlc, %lo
  %wide = icmp uge i64 %w, 64
  %one = shl i64 1, %w
  %ones0 = sub i64 %one, 1
  %ones = select i1 %wide, i64 -1, i64 %ones0
  %bits = shl i64 %ones, %lo
  %mask = xor i64 %bits, -1
  store i64 %mask, ptr %mp
  br label %skip
skip:                                        ; follow x through splits outside delta
  %h = phi i32 [%h0, %popit], [%h0, %close], [%hx, %fixed]
  %h64 = sext i32 %h to i64
  %hcp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.col}
  %hcw = load i32, ptr %hcp
  %hc = call i32 @xcol(i32 %hcw)
  %hleaf = icmp slt i32 %hc, 0
  br i1 %hleaf, label %leaf, label %hchk
hchk:
  %hc64 = sext i32 %hc to i64
  %hlp = getelementptr inbounds i32, ptr %local, i64 %hc64
  %hl = load i32, ptr %hlp
  %hfree = icmp sge i32 %hl, 0
  br i1 %hfree, label %split, label %fixed
fixed:                                       ; x decides; no delta column below on x's path: its leaf
  %hmp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.mask}
  %hm = load i32, ptr %hmp
  %hhit = and i32 %hm, %dmask
  %hnone = icmp eq i32 %hhit, 0
  %hxp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.child}
  %hxc = load i32, ptr %hxp
  %hfp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.leaf}
  %hxl = load i32, ptr %hfp
  %hx = select i1 %hnone, i32 %hxl, i32 %hxc
  br label %skip
leaf:
  %nl = load i64, ptr %nl.a
  %lfull = icmp sge i64 %nl, %maxleaves
  br i1 %lfull, label %abort, label %leaf_store
leaf_store:
  %hvp = getelementptr inbounds %Node, ptr %nodes, i64 %h64
  %hv = load double, ptr %hvp
  %li = add i64 %nl0, %nl
  %lp = getelementptr inbounds double, ptr %leafval, i64 %li
  store double %hv, ptr %lp
  %nl1 = add i64 %nl, 1
  store i64 %nl1, ptr %nl.a
  br label %pop
split:                                       ; a delta split: its record, then both children
  %nq = load i64, ptr %nq.a
  %rfull = icmp sge i64 %nq, %maxrec1
  br i1 %rfull, label %abort, label %split_kind
split_kind:
  %sap = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 2
  %saux = load i32, ptr %sap
  %sset1 = ashr i32 %saux, 1
  %sisset = icmp sgt i32 %sset1, 0
  br i1 %sisset, label %split_set, label %split_num
split_set:
  %hl64 = sext i32 %hl to i64
  %nkq = getelementptr inbounds i32, ptr %ncat, i64 %hl64
  %nk = load i32, ptr %nkq
  %setwide = icmp sgt i32 %nk, 64
  br i1 %setwide, label %abort, label %split_set_ok
split_set_ok:
  %sset = sub i32 %sset1, 1
  %sset64 = sext i32 %sset to i64
  %sbp = getelementptr inbounds i64, ptr %setbits, i64 %sset64
  %sb = load i64, ptr %sbp
  br label %split_store
split_num:
  %svp = getelementptr inbounds %Node, ptr %nodes, i64 %h64
  %sv = load double, ptr %svp
  %svbits = bitcast double %sv to i64
  %svnan = fcmp uno double %sv, 0.0
  %test = select i1 %svnan, i32 2, i32 0
  br label %split_store
split_store:
  %payload = phi i64 [%sb, %split_set_ok], [%svbits, %split_num]
  %kind0 = phi i32 [1, %split_set_ok], [%test, %split_num]
  %nanleft = and i32 %saux, 1
  %nanbit = shl i32 %nanleft, 2
  %kind = or i32 %kind0, %nanbit
  %qp0 = getelementptr inbounds %QRec, ptr %qrec, i64 %nq, i32 0
  store i64 %payload, ptr %qp0
  %qp1 = getelementptr inbounds %QRec, ptr %qrec, i64 %nq, i32 1
  store i32 %hl, ptr %qp1
  %qp2 = getelementptr inbounds %QRec, ptr %qrec, i64 %nq, i32 2
  store i32 %kind, ptr %qp2
  %nlo = load i64, ptr %nl.a
  %qp3 = getelementptr inbounds %QRec, ptr %qrec, i64 %nq, i32 3
  store i64 %nlo, ptr %qp3
  %nq1 = add i64 %nq, 1
  store i64 %nq1, ptr %nq.a
  %hrp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 4
  %hr = load i32, ptr %hrp
  %hlcp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 3
  %hlc = load i32, ptr %hlcp
  %hr64 = sext i32 %hr to i64
  %pfx = getelementptr inbounds %XStep, ptr %xstep, i64 %hr64
  call void @llvm.prefetch.p0(ptr %pfx, i32 0, i32 3, i32 1)
  %pfn = getelementptr inbounds %Node, ptr %nodes, i64 %hr64
  call void @llvm.prefetch.p0(ptr %pfn, i32 0, i32 3, i32 1)
  %spn = load i64, ptr %sp.a
  %f0 = shl i64 %spn, 1
  %fp = getelementptr inbounds i32, ptr %stack, i64 %f0
  store i32 %hr, ptr %fp
  %nq32 = trunc i64 %nq to i32
  %fp1 = getelementptr inbounds i32, ptr %fp, i64 1
  store i32 %nq32, ptr %fp1
  %fp2 = getelementptr inbounds i32, ptr %fp, i64 2
  store i32 %hlc, ptr %fp2
  %fp3 = getelementptr inbounds i32, ptr %fp, i64 3
  store i32 -1, ptr %fp3
  %spn2 = add i64 %spn, 2
  store i64 %spn2, ptr %sp.a
  br label %pop
done:
  %nlf = load i64, ptr %nl.a
  store i64 %nlf, ptr %nlout
  %nqf = load i64, ptr %nq.a
  %cnt = sub i64 %nqf, %nq0
  ret i64 %cnt
abort:
  ret i64 -1
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare double @llvm.floor.f64(double)

; Tree %t of the plan of (x, delta) described by the PLAN record %a (its slots are declared in
; codegen.llvm.trees_abi and named here by placeholders filled when this file is loaded): a
; constant, a QuickScorer tree (@qs_dfs) or a walk over its residual nodes (@pe_tree), which stay
; in %out. The running sizes { residual nodes, qrec records, leaves } are the record's SIZES.
define internal void @plan_tree(ptr noalias %a, i64 %t) {
entry:
  %nodes = call ptr @aptr(ptr %a, i64 {PLAN.nodes})
  %xstep = call ptr @aptr(ptr %a, i64 {PLAN.xstep})
  %xep = call i32 @xepoch(ptr %xstep)
  %roots = call ptr @aptr(ptr %a, i64 {PLAN.roots})
  %local = call ptr @aptr(ptr %a, i64 {PLAN.local})
  %dm64 = call i64 @aint(ptr %a, i64 {PLAN.dmask})
  %dmask = trunc i64 %dm64 to i32
  %out = call ptr @aptr(ptr %a, i64 {PLAN.residual_nodes})
  %stack = call ptr @aptr(ptr %a, i64 {PLAN.stack})
  %tinfo = call ptr @aptr(ptr %a, i64 {PLAN.tinfo})
  %tconst = call ptr @aptr(ptr %a, i64 {PLAN.tconst})
  %ncat = call ptr @aptr(ptr %a, i64 {PLAN.ncat})
  %setbits = call ptr @aptr(ptr %a, i64 {PLAN.setbits})
  %qs = call i64 @aint(ptr %a, i64 {PLAN.quickscorer})
  %maxleaves = call i64 @aint(ptr %a, i64 {PLAN.max_leaves})
  %qrec = call ptr @aptr(ptr %a, i64 {PLAN.qrec})
  %leafval = call ptr @aptr(ptr %a, i64 {PLAN.leafval})
  %sizes = call ptr @aptr(ptr %a, i64 {PLAN.sizes})
  %nlout = call ptr @aptr(ptr %a, i64 {PLAN.leaf_count})
  %nnp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.nodes}
  %cnt64 = load i64, ptr %nnp
  %cnt = trunc i64 %cnt64 to i32
  %nqp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.records}
  %nq0 = load i64, ptr %nqp
  %nlp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.leaves}
  %nl0 = load i64, ptr %nlp
  %rp = getelementptr inbounds i32, ptr %roots, i64 %t
  %r = load i32, ptr %rp
  %r64 = sext i32 %r to i64
  %rcol = call i32 @xready(ptr %xstep, i64 %r64, i32 %xep)
  %xmp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.mask}
  %xm = load i32, ptr %xmp
  %hit = and i32 %xm, %dmask
  %isconst = icmp eq i32 %hit, 0
  %tcp = getelementptr inbounds double, ptr %tconst, i64 %t
  br i1 %isconst, label %const_x, label %live
const_x:                                     ; x's path tests no delta column: x's leaf
  %xlp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.leaf}
  %xl = load i32, ptr %xlp
  %xl64 = sext i32 %xl to i64
  %xvp = getelementptr inbounds %Node, ptr %nodes, i64 %xl64
  %xv = load double, ptr %xvp
  br label %set_const
live:
  %useqs = icmp ne i64 %qs, 0
  br i1 %useqs, label %try_qs, label %residual
try_qs:
  %nrec = call i64 @qs_dfs(ptr %nodes, ptr %xstep, ptr %local, i32 %dmask, ptr %ncat, ptr %setbits,
                           ptr %stack, i32 %r, ptr %qrec, i64 %nq0, ptr %leafval, i64 %nl0,
                           i64 %maxleaves, ptr %nlout)
  %qsfail = icmp slt i64 %nrec, 0
  br i1 %qsfail, label %residual, label %qs_done
qs_done:
  %oneleaf = icmp eq i64 %nrec, 0
  br i1 %oneleaf, label %const_qs, label %as_qs
const_qs:                                    ; no delta split reached (mask bits aliased): a constant
  %cqp = getelementptr inbounds double, ptr %leafval, i64 %nl0
  %cqv = load double, ptr %cqp
  br label %set_const
as_qs:
  %nlt = load i64, ptr %nlout
  %nq1 = add i64 %nq0, %nrec
  store i64 %nq1, ptr %nqp
  %nl1 = add i64 %nl0, %nlt
  store i64 %nl1, ptr %nlp
  store double 0.0, ptr %tcp
  %nq0_32 = trunc i64 %nq0 to i32
  %nrec32 = trunc i64 %nrec to i32
  %nl0_32 = trunc i64 %nl0 to i32
  call void @put_tinfo(ptr %tinfo, i64 %t, i32 1, i32 %nq0_32, i32 %nrec32, i32 %nl0_32)
  br label %exit
residual:
  %end = call i32 @pe_tree(ptr %nodes, ptr %xstep, ptr %local, i32 %dmask, ptr %out, ptr %stack, i32 %r, i32 %cnt)
  %rcp = getelementptr inbounds %Node, ptr %out, i64 %cnt64, i32 1
  %rc = load i32, ptr %rcp
  %rleaf = icmp slt i32 %rc, 0
  br i1 %rleaf, label %const_leaf, label %as_walk
const_leaf:                                  ; the residual is one leaf (mask bits aliased)
  %rvp = getelementptr inbounds %Node, ptr %out, i64 %cnt64
  %rv = load double, ptr %rvp
  br label %set_const
set_const:
  %cv = phi double [%xv, %const_x], [%rv, %const_leaf], [%cqv, %const_qs]
  call void @put_tinfo(ptr %tinfo, i64 %t, i32 0, i32 -1, i32 0, i32 0)
  store double %cv, ptr %tcp
  br label %exit
as_walk:                                     ; keep the residual nodes
  store double 0.0, ptr %tcp
  call void @put_tinfo(ptr %tinfo, i64 %t, i32 2, i32 %cnt, i32 0, i32 0)
  %end64 = sext i32 %end to i64
  store i64 %end64, ptr %nnp
  br label %exit
exit:
  ret void
}

; The plans of %nd deltas for the same x, PLAN records of {PLAN.width} slots at %as: tree-major,
; so each tree is read from memory once for all of them (partial evaluation is bound by those
; reads). A delta whose outputs would overflow their capacities (cap_nodes, cap_qrec, cap_leaves)
; is given up (overflow = 1) and rebuilt alone by the caller.
define void @plan_deltas(ptr noalias %as, i64 %nd) {
entry:
  %T = call i64 @aint(ptr %as, i64 {PLAN.trees})
  %tsize = call ptr @aptr(ptr %as, i64 {PLAN.tree_size})
  %empty = icmp sle i64 %nd, 0
  br i1 %empty, label %exit, label %reset
reset:
  %rj = phi i64 [0, %entry], [%rj1, %reset]
  %rb = mul i64 %rj, {PLAN.width}
  %ra = getelementptr inbounds i64, ptr %as, i64 %rb
  %rsz = call ptr @aptr(ptr %ra, i64 {PLAN.sizes})
  call void @llvm.memset.p0.i64(ptr %rsz, i8 0, i64 {SIZES.bytes}, i1 false)
  %rof = getelementptr inbounds i64, ptr %ra, i64 {PLAN.overflow}
  store i64 0, ptr %rof
  %rj1 = add i64 %rj, 1
  %rjd = icmp eq i64 %rj1, %nd
  br i1 %rjd, label %trees, label %reset
trees:
  %none = icmp sle i64 %T, 0
  br i1 %none, label %exit, label %tree
tree:
  %t = phi i64 [0, %trees], [%t1, %tree_next]
  %tnext = add i64 %t, 1
  %more = icmp slt i64 %tnext, %T
  br i1 %more, label %prefetch, label %tree_go
prefetch:                                    ; the next tree's root while this one is built
  %roots = call ptr @aptr(ptr %as, i64 {PLAN.roots})
  %xstep = call ptr @aptr(ptr %as, i64 {PLAN.xstep})
  %nodes = call ptr @aptr(ptr %as, i64 {PLAN.nodes})
  %nrp = getelementptr inbounds i32, ptr %roots, i64 %tnext
  %nr = load i32, ptr %nrp
  %nr64 = sext i32 %nr to i64
  %pxs = getelementptr inbounds %XStep, ptr %xstep, i64 %nr64
  call void @llvm.prefetch.p0(ptr %pxs, i32 0, i32 3, i32 1)
  %pnd = getelementptr inbounds %Node, ptr %nodes, i64 %nr64
  call void @llvm.prefetch.p0(ptr %pnd, i32 0, i32 3, i32 1)
  %pxs4 = getelementptr inbounds i8, ptr %pxs, i64 64
  call void @llvm.prefetch.p0(ptr %pxs4, i32 0, i32 3, i32 1)
  %pnd3 = getelementptr inbounds i8, ptr %pnd, i64 64
  call void @llvm.prefetch.p0(ptr %pnd3, i32 0, i32 3, i32 1)
  %pnd6 = getelementptr inbounds i8, ptr %pnd, i64 128
  call void @llvm.prefetch.p0(ptr %pnd6, i32 0, i32 3, i32 1)
  br label %tree_go
tree_go:
  %tsp = getelementptr inbounds i32, ptr %tsize, i64 %t
  %ts = load i32, ptr %tsp
  %ts64 = sext i32 %ts to i64
  br label %delta
delta:
  %j = phi i64 [0, %tree_go], [%j1, %delta_next]
  %jb = mul i64 %j, {PLAN.width}
  %a = getelementptr inbounds i64, ptr %as, i64 %jb
  %ofp = getelementptr inbounds i64, ptr %a, i64 {PLAN.overflow}
  %of = load i64, ptr %ofp
  %gone = icmp ne i64 %of, 0
  br i1 %gone, label %delta_next, label %check
check:                                       ; room for this whole tree and 64 leaves' records
  %sizes = call ptr @aptr(ptr %a, i64 {PLAN.sizes})
  %nnp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.nodes}
  %cnt = load i64, ptr %nnp
  %nqp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.records}
  %nq = load i64, ptr %nqp
  %nlp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.leaves}
  %nl = load i64, ptr %nlp
  %capn = call i64 @aint(ptr %a, i64 {PLAN.cap_nodes})
  %capq = call i64 @aint(ptr %a, i64 {PLAN.cap_qrec})
  %capl = call i64 @aint(ptr %a, i64 {PLAN.cap_leaves})
  %needn = add i64 %cnt, %ts64
  %needq = add i64 %nq, 64
  %needl = add i64 %nl, 64
  %okn = icmp sle i64 %needn, %capn
  %okq = icmp sle i64 %needq, %capq
  %okl = icmp sle i64 %needl, %capl
  %ok1 = and i1 %okn, %okq
  %ok = and i1 %ok1, %okl
  br i1 %ok, label %build, label %overflow
overflow:
  store i64 1, ptr %ofp
  br label %delta_next
build:
  call void @plan_tree(ptr %a, i64 %t)
  br label %delta_next
delta_next:
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %nd
  br i1 %jd, label %tree_next, label %delta
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %exit, label %tree
exit:
  ret void
}

; Copy the plans built in batch slots into one buffer: %table holds a PACK record per plan
; { batch slot, byte offsets of tinfo, tconst, qrec, leafval, residual nodes, ncat }
; (codegen.llvm.trees_abi.PACK; the parts of codegen.trees.plan.PLAN_PARTS)
define void @pack_plans(ptr noalias %as, i64 %nd, ptr noalias %table, ptr noalias %dest) {
entry:
  %none = icmp sle i64 %nd, 0
  br i1 %none, label %exit, label %plan
plan:
  %j = phi i64 [0, %entry], [%j1, %plan]
  %tb = mul i64 %j, {PACK.width}
  %row = getelementptr inbounds i64, ptr %table, i64 %tb
  %slot = call i64 @aint(ptr %row, i64 {PACK.batch_slot})
  %ab = mul i64 %slot, {PLAN.width}
  %a = getelementptr inbounds i64, ptr %as, i64 %ab
  %T = call i64 @aint(ptr %a, i64 {PLAN.trees})
  %k = call i64 @aint(ptr %a, i64 {PLAN.delta_len})
  %sizes = call ptr @aptr(ptr %a, i64 {PLAN.sizes})
  %nnp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.nodes}
  %m = load i64, ptr %nnp
  %nqp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.records}
  %nq = load i64, ptr %nqp
  %nlp = getelementptr inbounds i64, ptr %sizes, i64 {SIZES.leaves}
  %nl = load i64, ptr %nlp
  %b0 = mul i64 %T, {TINFO.bytes}
  %b1 = mul i64 %T, 8
  %b2 = mul i64 %nq, 24
  %b3 = mul i64 %nl, 8
  %b4 = mul i64 %m, 24
  %b5 = mul i64 %k, 4
  %s0 = call ptr @aptr(ptr %a, i64 {PLAN.tinfo})
  %s1 = call ptr @aptr(ptr %a, i64 {PLAN.tconst})
  %s2 = call ptr @aptr(ptr %a, i64 {PLAN.qrec})
  %s3 = call ptr @aptr(ptr %a, i64 {PLAN.leafval})
  %s4 = call ptr @aptr(ptr %a, i64 {PLAN.residual_nodes})
  %s5 = call ptr @aptr(ptr %a, i64 {PLAN.ncat})
  %o0 = call i64 @aint(ptr %row, i64 {PACK.tinfo})
  %o1 = call i64 @aint(ptr %row, i64 {PACK.tconst})
  %o2 = call i64 @aint(ptr %row, i64 {PACK.qrec})
  %o3 = call i64 @aint(ptr %row, i64 {PACK.leafval})
  %o4 = call i64 @aint(ptr %row, i64 {PACK.nodes})
  %o5 = call i64 @aint(ptr %row, i64 {PACK.ncat})
  %d0 = getelementptr inbounds i8, ptr %dest, i64 %o0
  %d1 = getelementptr inbounds i8, ptr %dest, i64 %o1
  %d2 = getelementptr inbounds i8, ptr %dest, i64 %o2
  %d3 = getelementptr inbounds i8, ptr %dest, i64 %o3
  %d4 = getelementptr inbounds i8, ptr %dest, i64 %o4
  %d5 = getelementptr inbounds i8, ptr %dest, i64 %o5
  call void @llvm.memcpy.p0.p0.i64(ptr %d0, ptr %s0, i64 %b0, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d1, ptr %s1, i64 %b1, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d2, ptr %s2, i64 %b2, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d3, ptr %s3, i64 %b3, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d4, ptr %s4, i64 %b4, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d5, ptr %s5, i64 %b5, i1 false)
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %nd
  br i1 %jd, label %exit, label %plan
exit:
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr noalias, ptr noalias, i64, i1)
declare void @llvm.prefetch.p0(ptr, i32, i32, i32)

; ---------------------------------------------------------------------------------------------
; Scoring Delta blocks (@score_jobs). A job is one block - n rows of the k delta columns,
; row-major - and either a plan or an x-walk: the whole forest walked with x's bound steps
; (splits outside delta follow x, a subtree whose x-path tests no delta column is x's leaf), which
; needs no setup and serves a Delta's first rows. Both are tree-major like @forest_eval: acc starts
; at init, every tree adds its leaf in estimator order, forests divide at the end. Rows are padded
; to a multiple of 8 (copies of row 0) so the QuickScorer loops run on whole 8-lane vectors; lane i
; computes exactly what the scalar code computes for row i.

; cols[kk*n8 + i] = rows[i*k + kk] (rows n..n8-1: row 0 again). True if a categorical value is
; neither a category code nor NaN (the block is then left to the full forest kernel); NaN takes
; each split's missing side in plans and walks alike.
define internal i1 @load_block(ptr noalias %rows, i64 %n, i64 %n8, i64 %k, ptr noalias %ncat,
                               ptr noalias %cols, ptr noalias %flags) {
entry:
  %nocols = icmp sle i64 %k, 0
  br i1 %nocols, label %none, label %col
col:
  %kk = phi i64 [0, %entry], [%kk1, %pad_done]
  %bad0 = phi i1 [false, %entry], [%bad2, %pad_done]
  %nkp = getelementptr inbounds i32, ptr %ncat, i64 %kk
  %nk = load i32, ptr %nkp
  %nkf = sitofp i32 %nk to double
  %iscat = icmp sgt i32 %nk, 0
  %cbase = mul i64 %kk, %n8
  %fb0p = getelementptr inbounds i64, ptr %rows, i64 %kk
  %fb0 = load i64, ptr %fb0p                  ; row 0's bits: the column is uniform while all match
  br label %row
row:
  %i = phi i64 [0, %col], [%i1, %row]
  %bad = phi i1 [%bad0, %col], [%bad2, %row]
  %same = phi i1 [true, %col], [%same1, %row]
  %ri0 = mul i64 %i, %k
  %ri = add i64 %ri0, %kk
  %rp = getelementptr inbounds double, ptr %rows, i64 %ri
  %v = load double, ptr %rp
  %vb = bitcast double %v to i64
  %veq = icmp eq i64 %vb, %fb0
  %same1 = and i1 %same, %veq
  %ci = add i64 %cbase, %i
  %cp = getelementptr inbounds double, ptr %cols, i64 %ci
  store double %v, ptr %cp
  %isnan = fcmp uno double %v, 0.0
  %lo = fcmp oge double %v, 0.0
  %hi = fcmp olt double %v, %nkf
  %fl = call double @llvm.floor.f64(double %v)
  %integ = fcmp oeq double %fl, %v
  %c1 = and i1 %lo, %hi
  %codeok = and i1 %c1, %integ
  %notcode = xor i1 %codeok, true
  %catbad0 = and i1 %iscat, %notcode
  %notnan = xor i1 %isnan, true
  %catbad = and i1 %catbad0, %notnan
  %bad2 = or i1 %bad, %catbad
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %pad, label %row
pad:
  %v0p = getelementptr inbounds double, ptr %rows, i64 %kk
  %v0 = load double, ptr %v0p
  %flp = getelementptr inbounds i8, ptr %flags, i64 %kk
  %fl8 = zext i1 %same1 to i8
  store i8 %fl8, ptr %flp
  br label %pad_loop
pad_loop:
  %pi = phi i64 [%n, %pad], [%pi1, %pad_body]
  %pd = icmp eq i64 %pi, %n8
  br i1 %pd, label %pad_done, label %pad_body
pad_body:
  %ppi = add i64 %cbase, %pi
  %pp = getelementptr inbounds double, ptr %cols, i64 %ppi
  store double %v0, ptr %pp
  %pi1 = add i64 %pi, 1
  br label %pad_loop
pad_done:
  %kk1 = add i64 %kk, 1
  %kd = icmp eq i64 %kk1, %k
  br i1 %kd, label %done, label %col
done:
  ret i1 %bad2
none:
  ret i1 false
}

define internal <8 x double> @splat_f64(double %v) alwaysinline {
entry:
  %ins = insertelement <8 x double> poison, double %v, i64 0
  %s = shufflevector <8 x double> %ins, <8 x double> poison, <8 x i32> zeroinitializer
  ret <8 x double> %s
}

define internal <8 x i1> @splat_i1(i1 %v) alwaysinline {
entry:
  %ins = insertelement <8 x i1> poison, i1 %v, i64 0
  %s = shufflevector <8 x i1> %ins, <8 x i1> poison, <8 x i32> zeroinitializer
  ret <8 x i1> %s
}

define internal <8 x i64> @splat_i64(i64 %v) alwaysinline {
entry:
  %ins = insertelement <8 x i64> poison, i64 %v, i64 0
  %s = shufflevector <8 x i64> %ins, <8 x i64> poison, <8 x i32> zeroinitializer
  ret <8 x i64> %s
}

; The one place the score jobs add a leaf to an accumulator (8 rows, or one). %f32: XGBoost's
; margins, every sum rounded to float32 (exact, as in @round_sum: the accumulator and the leaf
; hold float32 values, so the double sum rounded once is their float32 sum).
define internal <8 x double> @acc_add8(<8 x double> %acc, <8 x double> %leaf, i1 %f32) alwaysinline {
entry:
  %s = fadd <8 x double> %acc, %leaf
  %r = fptrunc <8 x double> %s to <8 x float>
  %e = fpext <8 x float> %r to <8 x double>
  %o = select i1 %f32, <8 x double> %e, <8 x double> %s
  ret <8 x double> %o
}

define internal double @acc_add(double %acc, double %leaf, i1 %f32) alwaysinline {
entry:
  %s = fadd double %acc, %leaf
  %o = call double @round_sum(double %s, i1 %f32)
  ret double %o
}

; acc[o*n8 + i] = init[o]
define internal void @init_acc(ptr noalias %acc, i64 %n8, ptr noalias %init, i64 %K) {
entry:
  br label %out
out:
  %o = phi i64 [0, %entry], [%o1, %out_next]
  %ivp = getelementptr inbounds double, ptr %init, i64 %o
  %iv = load double, ptr %ivp
  %splat = call <8 x double> @splat_f64(double %iv)
  %ob = mul i64 %o, %n8
  br label %fill
fill:
  %j = phi i64 [0, %out], [%j8, %fill]
  %oj = add i64 %ob, %j
  %p = getelementptr inbounds double, ptr %acc, i64 %oj
  store <8 x double> %splat, ptr %p, align 8
  %j8 = add i64 %j, 8
  %jd = icmp eq i64 %j8, %n8
  br i1 %jd, label %out_next, label %fill
out_next:
  %o1 = add i64 %o, 1
  %od = icmp eq i64 %o1, %K
  br i1 %od, label %exit, label %out
exit:
  ret void
}

; acc[j*8 .. j*8+7] += c for the whole padded block (a constant tree)
define internal void @add_const(ptr noalias %accp, i64 %n8, double %c, i1 %f32) alwaysinline {
entry:
  %cv = call <8 x double> @splat_f64(double %c)
  br label %loop
loop:
  %j = phi i64 [0, %entry], [%j8, %loop]
  %p = getelementptr inbounds double, ptr %accp, i64 %j
  %a = load <8 x double>, ptr %p, align 8
  %a2 = call <8 x double> @acc_add8(<8 x double> %a, <8 x double> %cv, i1 %f32)
  store <8 x double> %a2, ptr %p, align 8
  %j8 = add i64 %j, 8
  %jd = icmp eq i64 %j8, %n8
  br i1 %jd, label %exit, label %loop
exit:
  ret void
}

; out[o*n + i] = acc[o*n8 + i] (/ div for forests: the mean over the trees)
define internal void @store_acc(ptr noalias %acc, i64 %n, i64 %n8, i64 %K, double %div, ptr noalias %out) {
entry:
  %isdiv = fcmp one double %div, 0.0
  br label %outer
outer:
  %o = phi i64 [0, %entry], [%o1, %outer_next]
  %ab = mul i64 %o, %n8
  %ob = mul i64 %o, %n
  br label %inner
inner:
  %i = phi i64 [0, %outer], [%i1, %inner]
  %ai = add i64 %ab, %i
  %ap = getelementptr inbounds double, ptr %acc, i64 %ai
  %a = load double, ptr %ap
  %q = fdiv double %a, %div
  %v = select i1 %isdiv, double %q, double %a
  %oi = add i64 %ob, %i
  %op = getelementptr inbounds double, ptr %out, i64 %oi
  store double %v, ptr %op
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %outer_next, label %inner
outer_next:
  %o1 = add i64 %o, 1
  %od = icmp eq i64 %o1, %K
  br i1 %od, label %exit, label %outer
exit:
  ret void
}

declare <8 x i64> @llvm.cttz.v8i64(<8 x i64>, i1)
declare <8 x double> @llvm.masked.gather.v8f64.v8p0(<8 x ptr>, i32, <8 x i1>, <8 x double>)

; every tree of a plan over the padded block (cols: k x n8, acc: K x n8)
define internal void @plan_trees(ptr noalias %cols, i64 %n, i64 %n8, ptr noalias %bv,
                                 ptr noalias %tinfo, ptr noalias %tconst, i64 %T, ptr noalias %tout,
                                 ptr noalias %qrec, ptr noalias %leafval, ptr noalias %rn,
                                 ptr noalias %sets, i64 %setw, ptr noalias %acc, i1 %f32,
                                 ptr noalias %flags, i1 %useflags) alwaysinline {
entry:
  %ones = call <8 x i64> @splat_i64(i64 -1)
  %none = icmp sle i64 %T, 0
  br i1 %none, label %exit, label %tree
tree:
  %t = phi i64 [0, %entry], [%t1, %tree_next]
  %tb = mul i64 %t, {TINFO.width}
  %trec = getelementptr inbounds i32, ptr %tinfo, i64 %tb
  %tkp = getelementptr inbounds i32, ptr %trec, i64 {TINFO.kind}
  %tk = load i32, ptr %tkp
  %tap = getelementptr inbounds i32, ptr %trec, i64 {TINFO.start}
  %ta = load i32, ptr %tap
  %tbp = getelementptr inbounds i32, ptr %trec, i64 {TINFO.count}
  %tbn = load i32, ptr %tbp
  %tcp = getelementptr inbounds i32, ptr %trec, i64 {TINFO.leaves}
  %tc = load i32, ptr %tcp
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %ab = mul i64 %to64, %n8
  %accp = getelementptr inbounds double, ptr %acc, i64 %ab
  switch i32 %tk, label %t_walk [ i32 0, label %t_const
                                  i32 1, label %t_qs ]

t_const:
  %cvp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cvp
  call void @add_const(ptr %accp, i64 %n8, double %cv, i1 %f32)
  br label %tree_next

t_qs:                                        ; bv = all leaves, then AND every false split's mask
  br label %bv_init
bv_init:
  %bj = phi i64 [0, %t_qs], [%bj8, %bv_init]
  %bjp = getelementptr inbounds i64, ptr %bv, i64 %bj
  store <8 x i64> %ones, ptr %bjp, align 8
  %bj8 = add i64 %bj, 8
  %bjd = icmp eq i64 %bj8, %n8
  br i1 %bjd, label %splits, label %bv_init
splits:
  %ta64 = sext i32 %ta to i64
  %tbn64 = sext i32 %tbn to i64
  %send = add i64 %ta64, %tbn64
  %tc64 = sext i32 %tc to i64
  %leaves = getelementptr inbounds double, ptr %leafval, i64 %tc64
  br label %split
split:
  %s = phi i64 [%ta64, %splits], [%s1, %split_next]
  %base = phi i64 [-1, %splits], [%base1, %split_next]  ; the uniform columns' false splits' masks
  %sdone = icmp eq i64 %s, %send
  br i1 %sdone, label %exit_leaf, label %split_body
split_body:
  %pay_p = getelementptr inbounds %QRec, ptr %qrec, i64 %s, i32 0
  %pay = load i64, ptr %pay_p
  %scp = getelementptr inbounds %QRec, ptr %qrec, i64 %s, i32 1
  %sc = load i32, ptr %scp
  %skp = getelementptr inbounds %QRec, ptr %qrec, i64 %s, i32 2
  %sk = load i32, ptr %skp
  %smp = getelementptr inbounds %QRec, ptr %qrec, i64 %s, i32 3
  %mask = load i64, ptr %smp
  %sc64 = sext i32 %sc to i64
  %colb = mul i64 %sc64, %n8
  %colp = getelementptr inbounds double, ptr %cols, i64 %colb
  %snl = and i32 %sk, 4                      ; NaN goes left
  %snanl = icmp ne i32 %snl, 0
  %stest = and i32 %sk, 3
  br i1 %useflags, label %s_flag, label %s_rows    ; the same way for every split of a call
s_flag:
  %ufp = getelementptr inbounds i8, ptr %flags, i64 %sc64
  %uf = load i8, ptr %ufp
  %uniform = icmp ne i8 %uf, 0
  br i1 %uniform, label %s_one, label %s_rows
s_one:                                       ; every row holds one value: the split decided once
  %ov = load double, ptr %colp, align 8
  %onan = fcmp uno double %ov, 0.0
  %thr1 = bitcast i64 %pay to double
  %oabove = fcmp ogt double %ov, %thr1
  %osv = select i1 %onan, double 0.0, double %ov
  %ocode = fptosi double %osv to i64
  %osh = lshr i64 %pay, %ocode
  %obit = trunc i64 %osh to i1
  %onum = xor i1 %oabove, true               ; not NaN: left iff v <= threshold
  %isset = icmp eq i32 %stest, 1
  %isnum = icmp eq i32 %stest, 0
  %oset = select i1 %isset, i1 %obit, i1 false
  %oleft0 = select i1 %isnum, i1 %onum, i1 %oset
  %oleft = select i1 %onan, i1 %snanl, i1 %oleft0
  %omask = select i1 %oleft, i64 -1, i64 %mask
  %obase = and i64 %base, %omask
  br label %split_next
s_rows:
  %maskv = call <8 x i64> @splat_i64(i64 %mask)
  %snanlv = call <8 x i1> @splat_i1(i1 %snanl)
  %snanrv = xor <8 x i1> %snanlv, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  switch i32 %stest, label %s_never [ i32 0, label %s_num
                                      i32 1, label %s_set ]
s_num:                                       ; false (right) iff v > threshold, or NaN going right
  %thr = bitcast i64 %pay to double
  %thrv = call <8 x double> @splat_f64(double %thr)
  br label %sn_loop
sn_loop:
  %ni = phi i64 [0, %s_num], [%ni8, %sn_loop]
  %nvp = getelementptr inbounds double, ptr %colp, i64 %ni
  %nv = load <8 x double>, ptr %nvp, align 8
  %nabove = fcmp ogt <8 x double> %nv, %thrv
  %nnan = fcmp uno <8 x double> %nv, zeroinitializer
  %nnanr = and <8 x i1> %nnan, %snanrv
  %above = or <8 x i1> %nabove, %nnanr
  %nm = select <8 x i1> %above, <8 x i64> %maskv, <8 x i64> %ones
  %nbp = getelementptr inbounds i64, ptr %bv, i64 %ni
  %nb = load <8 x i64>, ptr %nbp, align 8
  %nb2 = and <8 x i64> %nb, %nm
  store <8 x i64> %nb2, ptr %nbp, align 8
  %ni8 = add i64 %ni, 8
  %nid = icmp eq i64 %ni8, %n8
  br i1 %nid, label %split_next, label %sn_loop
s_set:                                       ; false iff the code's bit is clear (NaN: its side)
  %payv = call <8 x i64> @splat_i64(i64 %pay)
  br label %ss_loop
ss_loop:
  %si = phi i64 [0, %s_set], [%si8, %ss_loop]
  %svp = getelementptr inbounds double, ptr %colp, i64 %si
  %sv = load <8 x double>, ptr %svp, align 8
  %snan = fcmp uno <8 x double> %sv, zeroinitializer
  %svc = select <8 x i1> %snan, <8 x double> zeroinitializer, <8 x double> %sv
  %code = fptosi <8 x double> %svc to <8 x i64>
  %sh = lshr <8 x i64> %payv, %code
  %bit = trunc <8 x i64> %sh to <8 x i1>
  %sgo = select <8 x i1> %snan, <8 x i1> %snanlv, <8 x i1> %bit
  %sm = select <8 x i1> %sgo, <8 x i64> %ones, <8 x i64> %maskv
  %sbp = getelementptr inbounds i64, ptr %bv, i64 %si
  %sb = load <8 x i64>, ptr %sbp, align 8
  %sb2 = and <8 x i64> %sb, %sm
  store <8 x i64> %sb2, ptr %sbp, align 8
  %si8 = add i64 %si, 8
  %sid = icmp eq i64 %si8, %n8
  br i1 %sid, label %split_next, label %ss_loop
s_never:                                     ; no value goes left (NaN: its side)
  br label %sv_loop
sv_loop:
  %vi = phi i64 [0, %s_never], [%vi8, %sv_loop]
  %vvp = getelementptr inbounds double, ptr %colp, i64 %vi
  %vv = load <8 x double>, ptr %vvp, align 8
  %vnan = fcmp uno <8 x double> %vv, zeroinitializer
  %vgo = and <8 x i1> %vnan, %snanlv
  %vm = select <8 x i1> %vgo, <8 x i64> %ones, <8 x i64> %maskv
  %vbp = getelementptr inbounds i64, ptr %bv, i64 %vi
  %vb = load <8 x i64>, ptr %vbp, align 8
  %vb2 = and <8 x i64> %vb, %vm
  store <8 x i64> %vb2, ptr %vbp, align 8
  %vi8 = add i64 %vi, 8
  %vid = icmp eq i64 %vi8, %n8
  br i1 %vid, label %split_next, label %sv_loop
split_next:
  %base1 = phi i64 [%obase, %s_one], [%base, %sn_loop], [%base, %ss_loop], [%base, %sv_loop]
  %s1 = add i64 %s, 1
  br label %split
exit_leaf:                                   ; the uniform columns' masks, then the lowest leaf
  %hasbase = icmp ne i64 %base, -1           ; left standing
  br i1 %hasbase, label %b_start, label %l_loop
b_start:
  %basev = call <8 x i64> @splat_i64(i64 %base)
  br label %b_loop
b_loop:
  %bi = phi i64 [0, %b_start], [%bi8, %b_loop]
  %bbp = getelementptr inbounds i64, ptr %bv, i64 %bi
  %bb0 = load <8 x i64>, ptr %bbp, align 8
  %bb1 = and <8 x i64> %bb0, %basev
  store <8 x i64> %bb1, ptr %bbp, align 8
  %bi8 = add i64 %bi, 8
  %bid = icmp eq i64 %bi8, %n8
  br i1 %bid, label %l_loop, label %b_loop
l_loop:
  %li = phi i64 [0, %exit_leaf], [0, %b_loop], [%li8, %l_loop]
  %lbp = getelementptr inbounds i64, ptr %bv, i64 %li
  %lb = load <8 x i64>, ptr %lbp, align 8
  %lz = call <8 x i64> @llvm.cttz.v8i64(<8 x i64> %lb, i1 true)
  %lps = getelementptr inbounds double, ptr %leaves, <8 x i64> %lz
  %lv = call <8 x double> @llvm.masked.gather.v8f64.v8p0(<8 x ptr> %lps, i32 8, <8 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <8 x double> poison)
  %lap = getelementptr inbounds double, ptr %accp, i64 %li
  %la = load <8 x double>, ptr %lap, align 8
  %la2 = call <8 x double> @acc_add8(<8 x double> %la, <8 x double> %lv, i1 %f32)
  store <8 x double> %la2, ptr %lap, align 8
  %li8 = add i64 %li, 8
  %lid = icmp eq i64 %li8, %n8
  br i1 %lid, label %tree_next, label %l_loop

t_walk:                                      ; the residual tree, row by row (real rows only)
  br label %w_row
w_row:
  %wi = phi i64 [0, %t_walk], [%wi1, %w_leaf]
  br label %w_node
w_node:
  %wr = phi i32 [%ta, %w_row], [%wnext, %w_split]
  %wr64 = sext i32 %wr to i64
  %wnp = getelementptr inbounds %Node, ptr %rn, i64 %wr64
  %wnv = load double, ptr %wnp
  %wcp = getelementptr inbounds %Node, ptr %rn, i64 %wr64, i32 1
  %wc = load i32, ptr %wcp
  %wisleaf = icmp slt i32 %wc, 0
  br i1 %wisleaf, label %w_leaf, label %w_split
w_split:
  %wc64 = sext i32 %wc to i64
  %wvb = mul i64 %wc64, %n8
  %wvi = add i64 %wvb, %wi
  %wvp = getelementptr inbounds double, ptr %cols, i64 %wvi
  %wv = load double, ptr %wvp
  %wgo = call i1 @goes_left(ptr %rn, i64 %wr64, double %wv, ptr %sets, i64 %setw)
  %wlp = getelementptr inbounds %Node, ptr %rn, i64 %wr64, i32 3
  %wl = load i32, ptr %wlp
  %wrq = getelementptr inbounds %Node, ptr %rn, i64 %wr64, i32 4
  %wrr = load i32, ptr %wrq
  %wnext = select i1 %wgo, i32 %wl, i32 %wrr
  br label %w_node
w_leaf:
  %wap = getelementptr inbounds double, ptr %accp, i64 %wi
  %wa = load double, ptr %wap
  %wa2 = call double @acc_add(double %wa, double %wnv, i1 %f32)
  store double %wa2, ptr %wap
  %wi1 = add i64 %wi, 1
  %wid = icmp eq i64 %wi1, %n
  br i1 %wid, label %tree_next, label %w_row

tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %exit, label %tree
exit:
  ret void
}

; every tree of the forest over the padded block, walked with x's bound steps (see @bind_x):
; columns in delta (%local[column] >= 0) are read from the block, the others follow x
define internal void @xwalk_trees(ptr noalias %cols, i64 %n, i64 %n8, ptr noalias %nodes,
                                  ptr noalias %xstep, ptr noalias %roots, i64 %T, ptr noalias %tout,
                                  ptr noalias %local, i32 %dmask, ptr noalias %sets, i64 %setw,
                                  ptr noalias %acc, i1 %f32) {
entry:
  %xep = call i32 @xepoch(ptr %xstep)
  %none = icmp sle i64 %T, 0
  br i1 %none, label %exit, label %tree
tree:
  %t = phi i64 [0, %entry], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %roots, i64 %t
  %r = load i32, ptr %rp
  %r64 = sext i32 %r to i64
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %ab = mul i64 %to64, %n8
  %accp = getelementptr inbounds double, ptr %acc, i64 %ab
  %rcol = call i32 @xready_own(ptr %xstep, i64 %r64, i32 %xep)
  %xmp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.mask}
  %xm = load i32, ptr %xmp
  %hit = and i32 %xm, %dmask
  %isconst = icmp eq i32 %hit, 0
  br i1 %isconst, label %t_const, label %w_row
t_const:                                     ; x's path tests no delta column: x's leaf
  %xlp = getelementptr inbounds %XStep, ptr %xstep, i64 %r64, i32 {XSTEP.leaf}
  %xl = load i32, ptr %xlp
  %xl64 = sext i32 %xl to i64
  %xvp = getelementptr inbounds %Node, ptr %nodes, i64 %xl64
  %xv = load double, ptr %xvp
  call void @add_const(ptr %accp, i64 %n8, double %xv, i1 %f32)
  br label %tree_next
w_row:
  %wi = phi i64 [0, %tree], [%wi1, %w_leaf]
  br label %w_node
w_node:
  %h = phi i32 [%r, %w_row], [%hn, %w_free], [%hx, %w_fixed]
  %h64 = sext i32 %h to i64
  %hcp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.col}
  %hcw = load i32, ptr %hcp
  %hc = call i32 @xcol(i32 %hcw)
  %hleaf = icmp slt i32 %hc, 0
  br i1 %hleaf, label %w_leaf, label %w_split
w_split:
  %hc64 = sext i32 %hc to i64
  %hlp = getelementptr inbounds i32, ptr %local, i64 %hc64
  %hl = load i32, ptr %hlp
  %hfree = icmp sge i32 %hl, 0
  br i1 %hfree, label %w_free, label %w_fixed
w_free:                                      ; a delta column: the row decides
  %hl64 = sext i32 %hl to i64
  %vb = mul i64 %hl64, %n8
  %vi = add i64 %vb, %wi
  %vp = getelementptr inbounds double, ptr %cols, i64 %vi
  %v = load double, ptr %vp
  %go = call i1 @goes_left(ptr %nodes, i64 %h64, double %v, ptr %sets, i64 %setw)
  %lp = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 3
  %lc = load i32, ptr %lp
  %rq = getelementptr inbounds %Node, ptr %nodes, i64 %h64, i32 4
  %rc = load i32, ptr %rq
  %hn = select i1 %go, i32 %lc, i32 %rc
  %hn64 = sext i32 %hn to i64
  %hnc = call i32 @xready_own(ptr %xstep, i64 %hn64, i32 %xep)
  br label %w_node
w_fixed:                                     ; x decides; nothing of delta below: x's leaf
  %hmp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.mask}
  %hm = load i32, ptr %hmp
  %hhit = and i32 %hm, %dmask
  %hnone = icmp eq i32 %hhit, 0
  %hxp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.child}
  %hxc = load i32, ptr %hxp
  %hfp = getelementptr inbounds %XStep, ptr %xstep, i64 %h64, i32 {XSTEP.leaf}
  %hxl = load i32, ptr %hfp
  %hx = select i1 %hnone, i32 %hxl, i32 %hxc
  br label %w_node
w_leaf:
  %lvp = getelementptr inbounds %Node, ptr %nodes, i64 %h64
  %lv = load double, ptr %lvp
  %wap = getelementptr inbounds double, ptr %accp, i64 %wi
  %wa = load double, ptr %wap
  %wa2 = call double @acc_add(double %wa, double %lv, i1 %f32)
  store double %wa2, ptr %wap
  %wi1 = add i64 %wi, 1
  %wid = icmp eq i64 %wi1, %n
  br i1 %wid, label %tree_next, label %w_row
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %exit, label %tree
exit:
  ret void
}

; Every block of a generation in one call: %jobs holds %nj records of {JOB.width} i64 slots
;   (JOB records, declared in codegen.llvm.trees_abi): the block (rows, n, k), scratch for the
;   padded columns (k*n8), leaf bit vectors (n8) and accumulators (K*n8), mode (0 plan, 1 x-walk),
;   the forest's shared arrays, out (K*n) and status (written: 1 if the block was refused, see
;   @load_block); then a plan's tinfo, tconst, qrec, leafval and residual nodes, or an x-walk's
;   forest nodes, xstep, roots, local (column -> delta position or -1) and dmask
define void @score_jobs(ptr noalias %jobs, i64 %nj) {
entry:
  %none = icmp sle i64 %nj, 0
  br i1 %none, label %exit, label %job
job:
  %j = phi i64 [0, %entry], [%j1, %job_next]
  %jb = mul i64 %j, {JOB.width}
  %a = getelementptr inbounds i64, ptr %jobs, i64 %jb
  %rows = call ptr @aptr(ptr %a, i64 {JOB.rows})
  %n = call i64 @aint(ptr %a, i64 {JOB.n})
  %k = call i64 @aint(ptr %a, i64 {JOB.delta_len})
  %cols = call ptr @aptr(ptr %a, i64 {JOB.cols})
  %bv = call ptr @aptr(ptr %a, i64 {JOB.bit_vectors})
  %accs = call ptr @aptr(ptr %a, i64 {JOB.accs})
  %mode = call i64 @aint(ptr %a, i64 {JOB.mode})
  %T = call i64 @aint(ptr %a, i64 {JOB.trees})
  %tout = call ptr @aptr(ptr %a, i64 {JOB.tout})
  %sets = call ptr @aptr(ptr %a, i64 {JOB.sets})
  %setw = call i64 @aint(ptr %a, i64 {JOB.setw})
  %init = call ptr @aptr(ptr %a, i64 {JOB.init})
  %K = call i64 @aint(ptr %a, i64 {JOB.outputs})
  %divb = call i64 @aint(ptr %a, i64 {JOB.divisor})
  %div = bitcast i64 %divb to double
  %ncat = call ptr @aptr(ptr %a, i64 {JOB.ncat})
  %out = call ptr @aptr(ptr %a, i64 {JOB.out})
  %stp = getelementptr inbounds i64, ptr %a, i64 {JOB.status}
  %part0 = call ptr @aptr(ptr %a, i64 {JOB.plan_tinfo|walk_nodes})
  %part1 = call ptr @aptr(ptr %a, i64 {JOB.plan_tconst|walk_xstep})
  %part2 = call ptr @aptr(ptr %a, i64 {JOB.plan_qrec|walk_roots})
  %part3 = call ptr @aptr(ptr %a, i64 {JOB.plan_leafval|walk_local})
  %part4 = call ptr @aptr(ptr %a, i64 {JOB.plan_nodes})
  %dmask64 = call i64 @aint(ptr %a, i64 {JOB.walk_dmask})
  %f32flag = call i64 @aint(ptr %a, i64 {JOB.float32_sums})
  %f32 = icmp ne i64 %f32flag, 0
  %ucflag = call i64 @aint(ptr %a, i64 {JOB.uniform_columns})
  %uniform_cols = icmp ne i64 %ucflag, 0
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %ok, label %load
load:
  %n7 = add i64 %n, 7
  %n8 = and i64 %n7, -8
  %kn8 = mul i64 %k, %n8
  %flags = getelementptr inbounds double, ptr %cols, i64 %kn8  ; a byte per column after them
  %bad = call i1 @load_block(ptr %rows, i64 %n, i64 %n8, i64 %k, ptr %ncat, ptr %cols, ptr %flags)
  br i1 %bad, label %refused, label %run
run:
  call void @init_acc(ptr %accs, i64 %n8, ptr %init, i64 %K)
  %isplan = icmp eq i64 %mode, 0
  br i1 %isplan, label %plan, label %xwalk
plan:                                        ; two copies of @plan_trees, inlined: plain, or
  br i1 %uniform_cols, label %plan_u, label %plan_p  ; deciding the uniform columns' splits once
plan_p:
  call void @plan_trees(ptr %cols, i64 %n, i64 %n8, ptr %bv, ptr %part0, ptr %part1, i64 %T, ptr %tout,
                        ptr %part2, ptr %part3, ptr %part4, ptr %sets, i64 %setw, ptr %accs, i1 %f32,
                        ptr %flags, i1 false)
  br label %store
plan_u:
  call void @plan_trees(ptr %cols, i64 %n, i64 %n8, ptr %bv, ptr %part0, ptr %part1, i64 %T, ptr %tout,
                        ptr %part2, ptr %part3, ptr %part4, ptr %sets, i64 %setw, ptr %accs, i1 %f32,
                        ptr %flags, i1 true)
  br label %store
xwalk:
  %dmask = trunc i64 %dmask64 to i32
  call void @xwalk_trees(ptr %cols, i64 %n, i64 %n8, ptr %part0, ptr %part1, ptr %part2, i64 %T, ptr %tout,
                         ptr %part3, i32 %dmask, ptr %sets, i64 %setw, ptr %accs, i1 %f32)
  br label %store
store:
  call void @store_acc(ptr %accs, i64 %n, i64 %n8, i64 %K, double %div, ptr %out)
  br label %ok
ok:
  store i64 0, ptr %stp
  br label %job_next
refused:
  store i64 1, ptr %stp
  br label %job_next
job_next:
  %j1 = add i64 %j, 1
  %jd = icmp eq i64 %j1, %nj
  br i1 %jd, label %exit, label %job
exit:
  ret void
}

; ---------------------------------------------------------------------------------------------
; Full rows scored branch-free (@walk_rows): 32 rows walk one tree in lockstep, four groups of 8
; lanes whose steps are vector code (gathers and selects, no data-dependent branch) and overlap in
; the core, until no lane moves. Why: the branchy walks (@forest_eval, @xwalk_rows) pay a
; mispredicted branch at about every other level; a single group of 8 lanes waits on its gathers'
; latency (benchmarks/README.md, section "bench_trees.py"). The walk is bound by the gathers'
; throughput, so a step makes three: the node's double, its link word, the row's value.
; %wnodes: the walker's own copy of the forest (%WNode, 16 bytes), numbered so that a split's two
; children are adjacent (right = left + 1): the link word holds the left child's index (a leaf's:
; its own) in its low 32 bits, and in its high 32 bits column << 3 | leaf << 2 | code set << 1 |
; NaN goes left. The double is the threshold, a code-set split's codes as the bits of an i64
; (the forest's sets are at most 64 codes wide: %setw <= 64), or a leaf's value. A step at node r
; takes the child the split test gives for the row's own value (@goes_left's routing: NaN -> its
; side, a code set -> the bit of the code, else v <= threshold); a lane at a leaf stays there.
; Every lane reaches the leaf @forest_eval's walk reaches, and the leaves are added tree after
; tree in estimator order: @forest_eval's sums, bit for bit. %wroot: per tree, its root in
; %wnodes (negative: a constant tree, %tconst). %acc: scratch of K * n32 doubles (n32 = n rounded
; up to 32); %out: n x K (row-major), forests divided by %div.

%WNode = type { double, i64 }

declare <8 x i64> @llvm.masked.gather.v8i64.v8p0(<8 x ptr>, i32, <8 x i1>, <8 x i64>)
declare i1 @llvm.vector.reduce.and.v8i1(<8 x i1>)
declare i1 @llvm.vector.reduce.or.v8i1(<8 x i1>)
declare double @llvm.vector.reduce.fmax.v8f64(<8 x double>)

; one lockstep step of 8 lanes at nodes %r (see @walk_rows): the next node of each lane
define internal <8 x i64> @walk_step8(<8 x i64> %r, ptr %wnodes, ptr %rows, <8 x i64> %rowoff,
                                      <8 x double> %setwv) alwaysinline {
entry:
  %np = getelementptr inbounds %WNode, ptr %wnodes, <8 x i64> %r, i32 0
  %lp = getelementptr inbounds %WNode, ptr %wnodes, <8 x i64> %r, i32 1
  %pay = call <8 x i64> @llvm.masked.gather.v8i64.v8p0(<8 x ptr> %np, i32 8, <8 x i1> splat (i1 true), <8 x i64> poison)
  %lw = call <8 x i64> @llvm.masked.gather.v8i64.v8p0(<8 x ptr> %lp, i32 8, <8 x i1> splat (i1 true), <8 x i64> poison)
  %col = lshr <8 x i64> %lw, splat (i64 35)
  %vi = add <8 x i64> %rowoff, %col
  %vp = getelementptr inbounds double, ptr %rows, <8 x i64> %vi
  %v = call <8 x double> @llvm.masked.gather.v8f64.v8p0(<8 x ptr> %vp, i32 8, <8 x i1> splat (i1 true), <8 x double> poison)
  %thr = bitcast <8 x i64> %pay to <8 x double>
  %le = fcmp ole <8 x double> %v, %thr
  %catb = and <8 x i64> %lw, splat (i64 8589934592)      ; bit 33: a code set
  %iscat = icmp ne <8 x i64> %catb, zeroinitializer
  %lo_ok = fcmp oge <8 x double> %v, zeroinitializer
  %hi_ok = fcmp olt <8 x double> %v, %setwv
  %inset = and <8 x i1> %lo_ok, %hi_ok
  %vc = select <8 x i1> %inset, <8 x double> %v, <8 x double> zeroinitializer
  %code = fptosi <8 x double> %vc to <8 x i64>
  %sh = lshr <8 x i64> %pay, %code
  %bit = trunc <8 x i64> %sh to <8 x i1>
  %catgo = and <8 x i1> %inset, %bit
  %go0 = select <8 x i1> %iscat, <8 x i1> %catgo, <8 x i1> %le
  %isnan = fcmp uno <8 x double> %v, zeroinitializer
  %nanb = and <8 x i64> %lw, splat (i64 4294967296)      ; bit 32: NaN goes left
  %nanl = icmp ne <8 x i64> %nanb, zeroinitializer
  %go = select <8 x i1> %isnan, <8 x i1> %nanl, <8 x i1> %go0
  %leafb = and <8 x i64> %lw, splat (i64 17179869184)    ; bit 34: a leaf
  %isleaf = icmp ne <8 x i64> %leafb, zeroinitializer
  %stay = or <8 x i1> %go, %isleaf
  %rgt = select <8 x i1> %stay, <8 x i64> zeroinitializer, <8 x i64> splat (i64 1)
  %link = and <8 x i64> %lw, splat (i64 4294967295)
  %next = add <8 x i64> %link, %rgt
  ret <8 x i64> %next
}

; row offsets (row * width) of lanes j..j+7, padding lanes on the last row
define internal <8 x i64> @lane_rows(i64 %j, <8 x i64> %nlastv, <8 x i64> %widthv) alwaysinline {
entry:
  %jv = call <8 x i64> @splat_i64(i64 %j)
  %lanes = add <8 x i64> %jv, <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7>
  %past = icmp sgt <8 x i64> %lanes, %nlastv
  %li = select <8 x i1> %past, <8 x i64> %nlastv, <8 x i64> %lanes
  %rowoff = mul <8 x i64> %li, %widthv
  ret <8 x i64> %rowoff
}

; the values of 8 lanes' leaves %r
define internal <8 x double> @leaf_values8(<8 x i64> %r, ptr %wnodes) alwaysinline {
entry:
  %lvp = getelementptr inbounds %WNode, ptr %wnodes, <8 x i64> %r, i32 0
  %lv = call <8 x double> @llvm.masked.gather.v8f64.v8p0(<8 x ptr> %lvp, i32 8, <8 x i1> splat (i1 true), <8 x double> poison)
  ret <8 x double> %lv
}

; 32 lanes, four groups of 8 starting at nodes %a0 .. %d0 and reading their rows at offsets %ra ..
; %rd, stepped in lockstep (@walk_step8) until no lane moves: the four groups' leaves stored at
; %ends (four vectors). The four groups' steps overlap in the core.
define internal void @walk_lanes32(<8 x i64> %a0, <8 x i64> %b0, <8 x i64> %c0, <8 x i64> %d0, ptr %wnodes,
                                        ptr %rows, <8 x i64> %ra, <8 x i64> %rb, <8 x i64> %rc, <8 x i64> %rd,
                                        <8 x double> %setwv, ptr %ends) alwaysinline {
entry:
  br label %step
step:
  %sa = phi <8 x i64> [%a0, %entry], [%na, %step]
  %sb = phi <8 x i64> [%b0, %entry], [%nb, %step]
  %sc = phi <8 x i64> [%c0, %entry], [%nc, %step]
  %sd = phi <8 x i64> [%d0, %entry], [%nd, %step]
  %na = call <8 x i64> @walk_step8(<8 x i64> %sa, ptr %wnodes, ptr %rows, <8 x i64> %ra, <8 x double> %setwv)
  %nb = call <8 x i64> @walk_step8(<8 x i64> %sb, ptr %wnodes, ptr %rows, <8 x i64> %rb, <8 x double> %setwv)
  %nc = call <8 x i64> @walk_step8(<8 x i64> %sc, ptr %wnodes, ptr %rows, <8 x i64> %rc, <8 x double> %setwv)
  %nd = call <8 x i64> @walk_step8(<8 x i64> %sd, ptr %wnodes, ptr %rows, <8 x i64> %rd, <8 x double> %setwv)
  %samea = icmp eq <8 x i64> %na, %sa
  %sameb = icmp eq <8 x i64> %nb, %sb
  %samec = icmp eq <8 x i64> %nc, %sc
  %samed = icmp eq <8 x i64> %nd, %sd
  %same1 = and <8 x i1> %samea, %sameb
  %same2 = and <8 x i1> %samec, %samed
  %same = and <8 x i1> %same1, %same2
  %still = call i1 @llvm.vector.reduce.and.v8i1(<8 x i1> %same)
  br i1 %still, label %done, label %step
done:
  store <8 x i64> %sa, ptr %ends, align 64
  %ebp = getelementptr inbounds <8 x i64>, ptr %ends, i64 1
  store <8 x i64> %sb, ptr %ebp, align 64
  %ecp = getelementptr inbounds <8 x i64>, ptr %ends, i64 2
  store <8 x i64> %sc, ptr %ecp, align 64
  %edp = getelementptr inbounds <8 x i64>, ptr %ends, i64 3
  store <8 x i64> %sd, ptr %edp, align 64
  ret void
}

define internal void @add_leaves8(<8 x i64> %r, ptr %wnodes, ptr %accp, i64 %j, i1 %r32) alwaysinline {
entry:
  %lv = call <8 x double> @leaf_values8(<8 x i64> %r, ptr %wnodes)
  %ap = getelementptr inbounds double, ptr %accp, i64 %j
  %a = load <8 x double>, ptr %ap, align 8
  %a2 = call <8 x double> @acc_add8(<8 x double> %a, <8 x double> %lv, i1 %r32)
  store <8 x double> %a2, ptr %ap, align 8
  ret void
}

; the walk (see above): per tree, blocks of 32 rows (lanes past n walk the last row again)
define void @walk_rows(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %wnodes, i64 %setw,
                       ptr noalias %wroot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                       ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %acc,
                       ptr noalias %out) {
entry:
  call void @walk_rows_body(ptr %rows, i64 %n, i64 %width, ptr %wnodes, i64 %setw, ptr %wroot, ptr %tconst,
                            ptr %tout, i64 %T, ptr %init, i64 %K, double %div, i64 %f32, ptr %acc, ptr %out,
                            ptr null, ptr null, i1 false)
  ret void
}

; @walk_rows for rows made from x (width <= 64 columns): each group of 32 rows starts every tree
; where x's path first tests a column one of the 32 differs from x in (NaN differs), as every row
; of the group follows x's path down to there; %unions: scratch, a word per group
define void @walk_rows_x(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %wnodes, i64 %setw,
                         ptr noalias %wroot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                         ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %acc,
                         ptr noalias %out, ptr noalias %x, ptr noalias %unions) {
entry:
  call void @walk_rows_body(ptr %rows, i64 %n, i64 %width, ptr %wnodes, i64 %setw, ptr %wroot, ptr %tconst,
                            ptr %tout, i64 %T, ptr %init, i64 %K, double %div, i64 %f32, ptr %acc, ptr %out,
                            ptr %x, ptr %unions, i1 true)
  ret void
}

; per group of 32 rows (the last one's missing rows: the last row), the bits of the columns where
; a row differs from x
define internal void @group_unions(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %x, ptr noalias %unions) {
entry:
  %wide = icmp sgt i64 %width, 64            ; the forest reads at most 64 columns (the caller's check)
  %ucols = select i1 %wide, i64 64, i64 %width
  br label %group
group:
  %g = phi i64 [0, %entry], [%g1, %group_next]
  %r0 = mul i64 %g, 32
  %r1a = add i64 %r0, 32
  %short = icmp slt i64 %n, %r1a
  %r1 = select i1 %short, i64 %n, i64 %r1a
  br label %row
row:
  %r = phi i64 [%r0, %group], [%rn, %row_next]
  %u = phi i64 [0, %group], [%u2, %row_next]
  %rb = mul i64 %r, %width
  br label %col
col:
  %c = phi i64 [0, %row], [%c1, %col]
  %u1 = phi i64 [%u, %row], [%u1n, %col]
  %ri = add i64 %rb, %c
  %vp = getelementptr inbounds double, ptr %rows, i64 %ri
  %v = load double, ptr %vp
  %xp = getelementptr inbounds double, ptr %x, i64 %c
  %xv = load double, ptr %xp
  %ne = fcmp une double %v, %xv
  %bit = shl i64 1, %c
  %add = select i1 %ne, i64 %bit, i64 0
  %u1n = or i64 %u1, %add
  %c1 = add i64 %c, 1
  %cd = icmp eq i64 %c1, %ucols
  br i1 %cd, label %row_next, label %col
row_next:
  %u2 = phi i64 [%u1n, %col]
  %rn = add i64 %r, 1
  %rd = icmp eq i64 %rn, %r1
  br i1 %rd, label %group_done, label %row
group_done:
  %up = getelementptr inbounds i64, ptr %unions, i64 %g
  store i64 %u2, ptr %up
  br label %group_next
group_next:
  %g1 = add i64 %g, 1
  %more = icmp slt i64 %r1, %n
  br i1 %more, label %group, label %done
done:
  ret void
}

; where x's path from walker node %r first tests a column %union marks, or x's leaf: @walk_step8's
; routing for x's own values, one node at a time
define internal i64 @x_prefix(i64 %r, ptr %wnodes, ptr %x, i64 %union, double %setwf) alwaysinline {
entry:
  br label %node
node:
  %at = phi i64 [%r, %entry], [%next, %down]
  %lp = getelementptr inbounds %WNode, ptr %wnodes, i64 %at, i32 1
  %lw = load i64, ptr %lp
  %leafb = and i64 %lw, 17179869184          ; bit 34: a leaf
  %isleaf = icmp ne i64 %leafb, 0
  %col = lshr i64 %lw, 35
  %col6 = and i64 %col, 63                   ; a split's column (< 64); a leaf's is not read
  %cb = lshr i64 %union, %col6
  %cbit = and i64 %cb, 1
  %changed = icmp ne i64 %cbit, 0
  %stop = select i1 %isleaf, i1 true, i1 %changed
  br i1 %stop, label %done, label %down
down:
  %np = getelementptr inbounds %WNode, ptr %wnodes, i64 %at, i32 0
  %pay = load i64, ptr %np
  %vp = getelementptr inbounds double, ptr %x, i64 %col6
  %v = load double, ptr %vp
  %thr = bitcast i64 %pay to double
  %le = fcmp ole double %v, %thr
  %catb = and i64 %lw, 8589934592            ; bit 33: a code set
  %iscat = icmp ne i64 %catb, 0
  %lo_ok = fcmp oge double %v, 0.0
  %hi_ok = fcmp olt double %v, %setwf
  %inset = and i1 %lo_ok, %hi_ok
  %vc = select i1 %inset, double %v, double 0.0
  %code = fptosi double %vc to i64
  %sh = lshr i64 %pay, %code
  %bit = trunc i64 %sh to i1
  %catgo = and i1 %inset, %bit
  %go0 = select i1 %iscat, i1 %catgo, i1 %le
  %isnan = fcmp uno double %v, 0.0
  %nanb = and i64 %lw, 4294967296            ; bit 32: NaN goes left
  %nanl = icmp ne i64 %nanb, 0
  %go = select i1 %isnan, i1 %nanl, i1 %go0
  %rgt = select i1 %go, i64 0, i64 1
  %link = and i64 %lw, 4294967295
  %next = add i64 %link, %rgt
  br label %node
done:
  ret i64 %at
}

define internal void @walk_rows_body(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %wnodes, i64 %setw,
                                     ptr noalias %wroot, ptr noalias %tconst, ptr noalias %tout, i64 %T,
                                     ptr noalias %init, i64 %K, double %div, i64 %f32, ptr noalias %acc,
                                     ptr noalias %out, ptr noalias %x, ptr noalias %unions, i1 %fromx) alwaysinline {
entry:
  %ends = alloca <8 x i64>, i64 4, align 64
  %r32 = icmp ne i64 %f32, 0
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %start
start:
  %n31 = add i64 %n, 31
  %n8 = and i64 %n31, -32                     ; n32 (named n8 for the shared helpers' argument)
  %nlast = sub i64 %n, 1
  %nlastv = call <8 x i64> @splat_i64(i64 %nlast)
  %widthv = call <8 x i64> @splat_i64(i64 %width)
  %setwf = sitofp i64 %setw to double
  %setwv = call <8 x double> @splat_f64(double %setwf)
  call void @init_acc(ptr %acc, i64 %n8, ptr %init, i64 %K)
  br i1 %fromx, label %unions_fill, label %tree
unions_fill:
  call void @group_unions(ptr %rows, i64 %n, i64 %width, ptr %x, ptr %unions)
  br label %tree
tree:
  %t = phi i64 [0, %start], [0, %unions_fill], [%t1, %tree_next]
  %rp = getelementptr inbounds i32, ptr %wroot, i64 %t
  %r0 = load i32, ptr %rp
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %ab = mul i64 %to64, %n8
  %accp = getelementptr inbounds double, ptr %acc, i64 %ab
  %isc = icmp slt i32 %r0, 0
  br i1 %isc, label %const_tree, label %walk_tree
const_tree:
  %cp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cp
  call void @add_const(ptr %accp, i64 %n8, double %cv, i1 %r32)
  br label %tree_next
walk_tree:
  %r0w = sext i32 %r0 to i64
  br label %block
block:
  %j = phi i64 [0, %walk_tree], [%j32, %block_rows]
  br i1 %fromx, label %block_x, label %block_rows
block_x:                                     ; the group's start: down x's path to a column it changes
  %gi = lshr i64 %j, 5
  %gp = getelementptr inbounds i64, ptr %unions, i64 %gi
  %gu = load i64, ptr %gp
  %xs = call i64 @x_prefix(i64 %r0w, ptr %wnodes, ptr %x, i64 %gu, double %setwf)
  br label %block_rows
block_rows:
  %s0 = phi i64 [%r0w, %block], [%xs, %block_x]
  %root = call <8 x i64> @splat_i64(i64 %s0)
  %jb = add i64 %j, 8
  %jc = add i64 %j, 16
  %jdd = add i64 %j, 24
  %ra = call <8 x i64> @lane_rows(i64 %j, <8 x i64> %nlastv, <8 x i64> %widthv)
  %rb = call <8 x i64> @lane_rows(i64 %jb, <8 x i64> %nlastv, <8 x i64> %widthv)
  %rc = call <8 x i64> @lane_rows(i64 %jc, <8 x i64> %nlastv, <8 x i64> %widthv)
  %rd = call <8 x i64> @lane_rows(i64 %jdd, <8 x i64> %nlastv, <8 x i64> %widthv)
  call void @walk_lanes32(<8 x i64> %root, <8 x i64> %root, <8 x i64> %root, <8 x i64> %root,
                              ptr %wnodes, ptr %rows, <8 x i64> %ra, <8 x i64> %rb, <8 x i64> %rc,
                              <8 x i64> %rd, <8 x double> %setwv, ptr %ends)
  %sa = load <8 x i64>, ptr %ends
  %sbp = getelementptr inbounds <8 x i64>, ptr %ends, i64 1
  %sb = load <8 x i64>, ptr %sbp
  %scp = getelementptr inbounds <8 x i64>, ptr %ends, i64 2
  %sc = load <8 x i64>, ptr %scp
  %sdp = getelementptr inbounds <8 x i64>, ptr %ends, i64 3
  %sd = load <8 x i64>, ptr %sdp
  call void @add_leaves8(<8 x i64> %sa, ptr %wnodes, ptr %accp, i64 %j, i1 %r32)
  call void @add_leaves8(<8 x i64> %sb, ptr %wnodes, ptr %accp, i64 %jb, i1 %r32)
  call void @add_leaves8(<8 x i64> %sc, ptr %wnodes, ptr %accp, i64 %jc, i1 %r32)
  call void @add_leaves8(<8 x i64> %sd, ptr %wnodes, ptr %accp, i64 %jdd, i1 %r32)
  %j32 = add i64 %j, 32
  %jd = icmp eq i64 %j32, %n8
  br i1 %jd, label %tree_next, label %block
tree_next:
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %finish, label %tree
finish:
  br label %orow
orow:                                        ; out[i*K + o] = acc[o*n32 + i] (/ div)
  %i = phi i64 [0, %finish], [%i1, %orow_next]
  br label %oout
oout:
  %o = phi i64 [0, %orow], [%o1, %oout]
  %ob = mul i64 %o, %n8
  %oi = add i64 %ob, %i
  %oap = getelementptr inbounds double, ptr %acc, i64 %oi
  %oa = load double, ptr %oap
  %isdiv = fcmp one double %div, 0.0
  %oq = fdiv double %oa, %div
  %ov = select i1 %isdiv, double %oq, double %oa
  %ik = mul i64 %i, %K
  %iko = add i64 %ik, %o
  %oop = getelementptr inbounds double, ptr %out, i64 %iko
  store double %ov, ptr %oop
  %o1 = add i64 %o, 1
  %od = icmp eq i64 %o1, %K
  br i1 %od, label %orow_next, label %oout
orow_next:
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %exit, label %orow
exit:
  ret void
}

; ---------------------------------------------------------------------------------------------
; A few full rows scored branch-free with the trees as lanes (@walk_tree_lanes): for each row,
; 32 trees walk in lockstep (four groups of 8 lanes, @walk_step8 on the row's values), until no
; lane moves; the 32 leaves are then added one by one in estimator order (a constant tree's
; constant in its place): @forest_eval's sums, bit for bit. Why: a call of 1 to 15 rows gives
; @walk_rows' 32 row lanes a tree too little work, and the branchy walks wait on each node's miss
; in cache one after the other (a tree's nodes depend on each other, the trees do not); here 32
; trees' misses overlap. %lroots: per tree its root in %wnodes (a constant tree: 0, walked for
; nothing), padded with 0 to a multiple of 32 trees; %wroot as @walk_rows takes it (negative: a
; constant tree, %tconst). %out: n x K (row-major), forests divided by %div.
define void @walk_tree_lanes(ptr noalias %rows, i64 %n, i64 %width, ptr noalias %wnodes, i64 %setw,
                             ptr noalias %lroots, ptr noalias %wroot, ptr noalias %tconst,
                             ptr noalias %tout, i64 %T, ptr noalias %init, i64 %K, double %div,
                             i64 %f32, ptr noalias %out) {
entry:
  %buf = alloca [32 x double], align 64
  %ends = alloca <8 x i64>, i64 4, align 64
  %r32 = icmp ne i64 %f32, 0
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %start
start:
  %setwf = sitofp i64 %setw to double
  %setwv = call <8 x double> @splat_f64(double %setwf)
  %isdiv = fcmp one double %div, 0.0
  %some = icmp sgt i64 %T, 0
  br label %row
row:
  %i = phi i64 [0, %start], [%i1, %row_done]
  %roff = mul i64 %i, %width
  %rowv = call <8 x i64> @splat_i64(i64 %roff)
  %ob = mul i64 %i, %K
  %orow = getelementptr inbounds double, ptr %out, i64 %ob
  br label %init_o
init_o:
  %io = phi i64 [0, %row], [%io1, %init_o]
  %ip = getelementptr inbounds double, ptr %init, i64 %io
  %iv = load double, ptr %ip
  %iop = getelementptr inbounds double, ptr %orow, i64 %io
  store double %iv, ptr %iop
  %io1 = add i64 %io, 1
  %iod = icmp eq i64 %io1, %K
  br i1 %iod, label %trees, label %init_o
trees:
  br i1 %some, label %block, label %divide
block:
  %t0 = phi i64 [0, %trees], [%t32, %block_done]
  %lp0 = getelementptr inbounds i64, ptr %lroots, i64 %t0
  %lp1 = getelementptr inbounds i64, ptr %lp0, i64 8
  %lp2 = getelementptr inbounds i64, ptr %lp0, i64 16
  %lp3 = getelementptr inbounds i64, ptr %lp0, i64 24
  %ra = load <8 x i64>, ptr %lp0, align 8
  %rb = load <8 x i64>, ptr %lp1, align 8
  %rc = load <8 x i64>, ptr %lp2, align 8
  %rd = load <8 x i64>, ptr %lp3, align 8
  call void @walk_lanes32(<8 x i64> %ra, <8 x i64> %rb, <8 x i64> %rc, <8 x i64> %rd, ptr %wnodes,
                              ptr %rows, <8 x i64> %rowv, <8 x i64> %rowv, <8 x i64> %rowv,
                              <8 x i64> %rowv, <8 x double> %setwv, ptr %ends)
  %sa = load <8 x i64>, ptr %ends
  %sbp = getelementptr inbounds <8 x i64>, ptr %ends, i64 1
  %sb = load <8 x i64>, ptr %sbp
  %scp = getelementptr inbounds <8 x i64>, ptr %ends, i64 2
  %sc = load <8 x i64>, ptr %scp
  %sdp = getelementptr inbounds <8 x i64>, ptr %ends, i64 3
  %sd = load <8 x i64>, ptr %sdp
  call void @lane_leaves(<8 x i64> %sa, ptr %wnodes, ptr %buf, i64 0)
  call void @lane_leaves(<8 x i64> %sb, ptr %wnodes, ptr %buf, i64 8)
  call void @lane_leaves(<8 x i64> %sc, ptr %wnodes, ptr %buf, i64 16)
  call void @lane_leaves(<8 x i64> %sd, ptr %wnodes, ptr %buf, i64 24)
  %left = sub i64 %T, %t0
  %few = icmp slt i64 %left, 32
  %m = select i1 %few, i64 %left, i64 32
  br label %add
add:                                         ; the block's trees in estimator order
  %k = phi i64 [0, %block], [%k1, %added]
  %t = add i64 %t0, %k
  %rp = getelementptr inbounds i32, ptr %wroot, i64 %t
  %r0 = load i32, ptr %rp
  %isc = icmp slt i32 %r0, 0
  br i1 %isc, label %const, label %walked
const:
  %cp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cp
  br label %added
walked:
  %bp = getelementptr inbounds [32 x double], ptr %buf, i64 0, i64 %k
  %bv = load double, ptr %bp
  br label %added
added:
  %v = phi double [%cv, %const], [%bv, %walked]
  %top = getelementptr inbounds i32, ptr %tout, i64 %t
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %ap = getelementptr inbounds double, ptr %orow, i64 %to64
  %a = load double, ptr %ap
  %a2 = call double @acc_add(double %a, double %v, i1 %r32)
  store double %a2, ptr %ap
  %k1 = add i64 %k, 1
  %kd = icmp eq i64 %k1, %m
  br i1 %kd, label %block_done, label %add
block_done:
  %t32 = add i64 %t0, 32
  %more = icmp slt i64 %t32, %T
  br i1 %more, label %block, label %divide
divide:
  br i1 %isdiv, label %div_o, label %row_done
div_o:
  %dq = phi i64 [0, %divide], [%dq1, %div_o]
  %dp = getelementptr inbounds double, ptr %orow, i64 %dq
  %dv = load double, ptr %dp
  %dd = fdiv double %dv, %div
  store double %dd, ptr %dp
  %dq1 = add i64 %dq, 1
  %dqd = icmp eq i64 %dq1, %K
  br i1 %dqd, label %row_done, label %div_o
row_done:
  %i1 = add i64 %i, 1
  %id = icmp eq i64 %i1, %n
  br i1 %id, label %exit, label %row
exit:
  ret void
}

; the leaf values of 8 lanes at leaves %r into %buf[j .. j+7]
define internal void @lane_leaves(<8 x i64> %r, ptr %wnodes, ptr %buf, i64 %j) alwaysinline {
entry:
  %lv = call <8 x double> @leaf_values8(<8 x i64> %r, ptr %wnodes)
  %bp = getelementptr inbounds double, ptr %buf, i64 %j
  store <8 x double> %lv, ptr %bp, align 8
  ret void
}

; ---------------------------------------------------------------------------------------------
; @box_leaf_range: per tree, the largest and the smallest leaf value that some path of allowed
; values reaches (codegen.trees.bound: a split is followed left if one allowed value of its
; feature goes left, right if one goes right), over the packed whole forest (%Node records, as
; @forest_eval reads them; %troot < 0: a constant tree, %tconst). The box per column: lo / hi
; (NaN: no non-missing value allowed), a missing value allowed (a byte), the allowed codes
; (%setw bytes a column, as the sets) and "a code outside every set" (a byte). A tree with no
; reachable leaf keeps -inf / +inf; a NaN leaf makes its tree's range NaN. %extent: per node,
; the largest and the smallest leaf of its subtree (two doubles; NaN where a leaf below is NaN):
; a node whose subtree lies within the range found so far cannot change it and is not walked (a
; forest of pure leaves stops at its first 0 and 1). %top_only != 0: only the largest leaf is
; wanted (%low is left meaningless): a node whose subtree's largest leaf is no larger than the
; largest found is not walked, and of two children the one with the larger subtree maximum is
; walked first, so that a wide box finds its tree's largest leaf in one dive and skips the rest.
; A walk reads a few nodes of each tree, one after the other (each node's children are known
; once it is read), each a miss in cache after a search; so %nlanes trees are walked at once,
; a step of each in turn, and their misses overlap (each lane's depth-first walk is the one
; tree's walk alone, in the same order: the same ranges). Both children's records are fetched
; when a node is visited. %nlanes >= 1 lanes; %stack: %room entries for each (a tree's depth
; plus two: a walk holds at most one pending sibling a level, and a split's two children).

%BoxLane = type { i64, i64, double, double }   ; tree (-1: idle), stack size, largest, smallest

; one step of a lane's walk: pop a node, skip it if its subtree lies within the range, else
; visit it (a leaf widens the range; a split pushes the children an allowed value reaches)
define internal void @box_step(ptr noalias %nodes, ptr noalias %sets, i64 %setw, ptr noalias %lo,
                               ptr noalias %hi, ptr noalias %missing, ptr noalias %codes,
                               ptr noalias %outside, ptr noalias %extent, i1 %toponly,
                               ptr noalias %stack, ptr noalias %lane) alwaysinline {
entry:
  %spp = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 1
  %sp = load i64, ptr %spp
  %mxp = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 2
  %mx = load double, ptr %mxp
  %mnp = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 3
  %mn = load double, ptr %mnp
  %sp1 = sub i64 %sp, 1
  store i64 %sp1, ptr %spp
  %np = getelementptr inbounds i32, ptr %stack, i64 %sp1
  %node32 = load i32, ptr %np
  %node = sext i32 %node32 to i64
  %e2 = shl i64 %node, 1
  %emxp = getelementptr inbounds double, ptr %extent, i64 %e2
  %emx = load double, ptr %emxp
  %e21 = or i64 %e2, 1
  %emnp = getelementptr inbounds double, ptr %extent, i64 %e21
  %emn = load double, ptr %emnp
  %within_top = fcmp ole double %emx, %mx    ; false on a NaN: walked
  %within_low = fcmp oge double %emn, %mn
  %within_low_any = or i1 %within_low, %toponly
  %within = and i1 %within_top, %within_low_any
  br i1 %within, label %done, label %visit
visit:
  %colp = getelementptr inbounds %Node, ptr %nodes, i64 %node, i32 1
  %col32 = load i32, ptr %colp
  %vp = getelementptr inbounds %Node, ptr %nodes, i64 %node, i32 0
  %v = load double, ptr %vp
  %isleaf = icmp slt i32 %col32, 0
  br i1 %isleaf, label %leaf, label %split
leaf:
  %vnan = fcmp uno double %v, 0.0
  %gt = fcmp ogt double %v, %mx
  %mxv = select i1 %gt, double %v, double %mx
  %mx2 = select i1 %vnan, double %v, double %mxv
  %lt = fcmp olt double %v, %mn
  %mnv = select i1 %lt, double %v, double %mn
  %mn2 = select i1 %vnan, double %v, double %mnv
  store double %mx2, ptr %mxp
  store double %mn2, ptr %mnp
  br label %done
split:
  %f = sext i32 %col32 to i64
  %auxp = getelementptr inbounds %Node, ptr %nodes, i64 %node, i32 2
  %aux = load i32, ptr %auxp
  %set1 = ashr i32 %aux, 1
  %iscat = icmp sgt i32 %set1, 0
  br i1 %iscat, label %cat_start, label %numeric
numeric:                                     ; some allowed number <= thr goes left, > thr right
  %lop = getelementptr inbounds double, ptr %lo, i64 %f
  %lof = load double, ptr %lop
  %hip = getelementptr inbounds double, ptr %hi, i64 %f
  %hif = load double, ptr %hip
  %numbers = fcmp ord double %lof, 0.0
  %le = fcmp ole double %lof, %v
  %nl = and i1 %numbers, %le
  %hle = fcmp ole double %hif, %v
  %nhle = xor i1 %hle, true
  %nr = and i1 %numbers, %nhle
  br label %sides
cat_start:                                   ; an allowed code in the set goes left, out of it right
  %set = sub i32 %set1, 1
  %set64 = sext i32 %set to i64
  %cbase = mul i64 %set64, %setw
  %fbase = mul i64 %f, %setw
  br label %cat_loop
cat_loop:
  %k = phi i64 [0, %cat_start], [%k1, %cat_loop]
  %al = phi i1 [false, %cat_start], [%al1, %cat_loop]
  %ar = phi i1 [false, %cat_start], [%ar1, %cat_loop]
  %sk = add i64 %cbase, %k
  %sp8 = getelementptr inbounds i8, ptr %sets, i64 %sk
  %s8 = load i8, ptr %sp8
  %ins = icmp ne i8 %s8, 0
  %ak = add i64 %fbase, %k
  %ap8 = getelementptr inbounds i8, ptr %codes, i64 %ak
  %a8 = load i8, ptr %ap8
  %allowed = icmp ne i8 %a8, 0
  %goesl = and i1 %ins, %allowed
  %notin = xor i1 %ins, true
  %goesr = and i1 %notin, %allowed
  %al1 = or i1 %al, %goesl
  %ar1 = or i1 %ar, %goesr
  %k1 = add i64 %k, 1
  %kd = icmp sge i64 %k1, %setw
  br i1 %kd, label %cat_end, label %cat_loop
cat_end:
  %op8 = getelementptr inbounds i8, ptr %outside, i64 %f
  %o8 = load i8, ptr %op8
  %out = icmp ne i8 %o8, 0
  %cr = or i1 %ar1, %out
  br label %sides
sides:                                       ; a missing value allowed goes where NaNs go; push
  %gl0 = phi i1 [%nl, %numeric], [%al1, %cat_end]
  %gr0 = phi i1 [%nr, %numeric], [%cr, %cat_end]
  %mp8 = getelementptr inbounds i8, ptr %missing, i64 %f
  %m8 = load i8, ptr %mp8
  %miss = icmp ne i8 %m8, 0
  %mlbit = and i32 %aux, 1
  %ml = icmp ne i32 %mlbit, 0
  %nml = xor i1 %ml, true
  %ml_miss = and i1 %miss, %ml
  %mr_miss = and i1 %miss, %nml
  %gl = or i1 %gl0, %ml_miss
  %gr = or i1 %gr0, %mr_miss
  %lcp = getelementptr inbounds %Node, ptr %nodes, i64 %node, i32 3
  %lc = load i32, ptr %lcp
  %rcp = getelementptr inbounds %Node, ptr %nodes, i64 %node, i32 4
  %rc = load i32, ptr %rcp
  %lc64 = sext i32 %lc to i64                ; top only: the larger subtree maximum popped first
  %lx2 = shl i64 %lc64, 1
  %lxp = getelementptr inbounds double, ptr %extent, i64 %lx2
  %lx = load double, ptr %lxp
  %rc64 = sext i32 %rc to i64
  %rx2 = shl i64 %rc64, 1
  %rxp = getelementptr inbounds double, ptr %extent, i64 %rx2
  %rx = load double, ptr %rxp
  %pfl = getelementptr %Node, ptr %nodes, i64 %lc64   ; both children's records, read when popped
  call void @llvm.prefetch.p0(ptr %pfl, i32 0, i32 3, i32 1)
  %pfr = getelementptr %Node, ptr %nodes, i64 %rc64
  call void @llvm.prefetch.p0(ptr %pfr, i32 0, i32 3, i32 1)
  %lbigger = fcmp ogt double %lx, %rx
  %swap = and i1 %toponly, %lbigger
  %c1 = select i1 %swap, i32 %rc, i32 %lc    ; pushed first, popped last
  %g1 = select i1 %swap, i1 %gr, i1 %gl
  %c2 = select i1 %swap, i32 %lc, i32 %rc
  %g2 = select i1 %swap, i1 %gl, i1 %gr
  %slot_l = getelementptr inbounds i32, ptr %stack, i64 %sp1
  store i32 %c1, ptr %slot_l
  %gl64 = zext i1 %g1 to i64
  %sp2 = add i64 %sp1, %gl64
  %slot_r = getelementptr inbounds i32, ptr %stack, i64 %sp2
  store i32 %c2, ptr %slot_r
  %gr64 = zext i1 %g2 to i64
  %sp3 = add i64 %sp2, %gr64
  store i64 %sp3, ptr %spp
  br label %done
done:
  ret void
}

; the next tree a lane takes from %next on: constant trees' ranges are written as they are met;
; the lane is left idle (tree -1) when none is left. The root of the tree after it is fetched.
define internal void @box_take(ptr noalias %nodes, ptr noalias %troot, ptr noalias %tconst, i64 %T,
                               ptr noalias %extent, ptr noalias %top, ptr noalias %low,
                               ptr noalias %nextp, ptr noalias %stack, ptr noalias %lane) alwaysinline {
entry:
  br label %try
try:
  %t = load i64, ptr %nextp
  %left = icmp slt i64 %t, %T
  br i1 %left, label %look, label %idle
look:
  %t1 = add i64 %t, 1
  store i64 %t1, ptr %nextp
  %rootp = getelementptr inbounds i32, ptr %troot, i64 %t
  %root = load i32, ptr %rootp
  %isconst = icmp slt i32 %root, 0
  br i1 %isconst, label %const_tree, label %start
const_tree:
  %cvp = getelementptr inbounds double, ptr %tconst, i64 %t
  %cv = load double, ptr %cvp
  %ctp = getelementptr inbounds double, ptr %top, i64 %t
  store double %cv, ptr %ctp
  %clp = getelementptr inbounds double, ptr %low, i64 %t
  store double %cv, ptr %clp
  br label %try
start:
  %t1in = icmp slt i64 %t1, %T               ; the tree after it: its root fetched now
  %t1c = select i1 %t1in, i64 %t1, i64 %t
  %r1p = getelementptr inbounds i32, ptr %troot, i64 %t1c
  %r1 = load i32, ptr %r1p
  %r1ok = icmp sge i32 %r1, 0
  %r1c = select i1 %r1ok, i32 %r1, i32 0
  %r164 = sext i32 %r1c to i64
  %pfn = getelementptr %Node, ptr %nodes, i64 %r164
  call void @llvm.prefetch.p0(ptr %pfn, i32 0, i32 3, i32 1)
  %pfei = shl i64 %r164, 1
  %pfe = getelementptr double, ptr %extent, i64 %pfei
  call void @llvm.prefetch.p0(ptr %pfe, i32 0, i32 3, i32 1)
  store i32 %root, ptr %stack
  %tp = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 0
  store i64 %t, ptr %tp
  %spp = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 1
  store i64 1, ptr %spp
  %mxp = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 2
  store double 0xFFF0000000000000, ptr %mxp
  %mnp = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 3
  store double 0x7FF0000000000000, ptr %mnp
  ret void
idle:
  %ip = getelementptr inbounds %BoxLane, ptr %lane, i64 0, i32 0
  store i64 -1, ptr %ip
  ret void
}

define void @box_leaf_range(ptr noalias %nodes, ptr noalias %sets, i64 %setw, ptr noalias %troot,
                            ptr noalias %tconst, i64 %T, ptr noalias %lo, ptr noalias %hi,
                            ptr noalias %missing, ptr noalias %codes, ptr noalias %outside,
                            ptr noalias %stack, i64 %nlanes, i64 %room, ptr noalias %top, ptr noalias %low,
                            ptr noalias %extent, i64 %top_only) {
entry:
  %lanes = alloca %BoxLane, i64 %nlanes, align 8
  %nextp = alloca i64
  store i64 0, ptr %nextp
  %toponly = icmp ne i64 %top_only, 0
  br label %init
init:                                        ; each lane takes a tree
  %li = phi i64 [0, %entry], [%li1, %init]
  %lip = getelementptr inbounds %BoxLane, ptr %lanes, i64 %li
  %lio = mul i64 %li, %room
  %lis = getelementptr inbounds i32, ptr %stack, i64 %lio
  call void @box_take(ptr %nodes, ptr %troot, ptr %tconst, i64 %T, ptr %extent, ptr %top, ptr %low,
                      ptr %nextp, ptr %lis, ptr %lip)
  %li1 = add i64 %li, 1
  %lid = icmp eq i64 %li1, %nlanes
  br i1 %lid, label %round, label %init
round:                                       ; a step of every busy lane, in turn
  %l = phi i64 [0, %init], [%l1, %lane_next], [0, %again]
  %busy = phi i1 [false, %init], [%busy2, %lane_next], [false, %again]
  %lp = getelementptr inbounds %BoxLane, ptr %lanes, i64 %l
  %ltp = getelementptr inbounds %BoxLane, ptr %lp, i64 0, i32 0
  %lt = load i64, ptr %ltp
  %lidle = icmp slt i64 %lt, 0
  br i1 %lidle, label %lane_next, label %lane_step
lane_step:
  %lo2 = mul i64 %l, %room
  %ls = getelementptr inbounds i32, ptr %stack, i64 %lo2
  call void @box_step(ptr %nodes, ptr %sets, i64 %setw, ptr %lo, ptr %hi, ptr %missing, ptr %codes,
                      ptr %outside, ptr %extent, i1 %toponly, ptr %ls, ptr %lp)
  %lspp = getelementptr inbounds %BoxLane, ptr %lp, i64 0, i32 1
  %lsp = load i64, ptr %lspp
  %lempty = icmp eq i64 %lsp, 0
  br i1 %lempty, label %tree_done, label %lane_next
tree_done:                                   ; the lane's tree is walked: its range, then the next
  %dmxp = getelementptr inbounds %BoxLane, ptr %lp, i64 0, i32 2
  %dmx = load double, ptr %dmxp
  %dmnp = getelementptr inbounds %BoxLane, ptr %lp, i64 0, i32 3
  %dmn = load double, ptr %dmnp
  %dtp = getelementptr inbounds double, ptr %top, i64 %lt
  store double %dmx, ptr %dtp
  %dlp = getelementptr inbounds double, ptr %low, i64 %lt
  store double %dmn, ptr %dlp
  call void @box_take(ptr %nodes, ptr %troot, ptr %tconst, i64 %T, ptr %extent, ptr %top, ptr %low,
                      ptr %nextp, ptr %ls, ptr %lp)
  br label %lane_next
lane_next:
  %busy2 = phi i1 [%busy, %round], [true, %lane_step], [true, %tree_done]
  %l1 = add i64 %l, 1
  %ld = icmp eq i64 %l1, %nlanes
  br i1 %ld, label %again, label %round
again:
  br i1 %busy2, label %round, label %exit
exit:
  ret void
}

; ---------------------------------------------------------------------------------------------
; Full rows made from x, scored by the whole forest in QuickScorer form (every tree of at most 64
; leaves) with its records ordered by column (codegen.trees.xmask). Why: such a row differs from
; x in a few columns, and every split on another column falls as it falls for x. Per instance:
; for each column and tree, the AND of the masks of x's false splits on that column (%xm), and
; its running ANDs from the first column (%pre: row c covers columns < c) and from the last
; (%suf: row c covers columns >= c). Eight rows at a time, the trees start from the AND over the
; columns where no row of the eight differs from x (@xm_base: a few vector ANDs, no plan built
; per Delta), and only the records of the other columns are visited, clearing the leaves their
; false splits rule out (@xm_rows). The lowest leaf left standing is the leaf the walk reaches;
; the leaves are added tree after tree in estimator order: @forest_eval's sums, bit for bit. A
; categorical value that is neither a category code nor NaN is read as NaN and marks its row in
; %bad (its number is then meaningless: the caller rescores it).

; base = the AND of %xm over the columns %dm does not mark (a byte per column, d >= 1): x's running
; ANDs before the first marked column and from past the last one, and the unmarked columns between
; them (none marked: every column, %pre row d)
define internal void @xm_base(ptr noalias %dm, i64 %d, ptr noalias %xm, ptr noalias %pre, ptr noalias %suf,
                              i64 %T8, ptr noalias %base) {
entry:
  br label %find
find:
  %c = phi i64 [0, %entry], [%c1, %find]
  %lo = phi i64 [-1, %entry], [%lo1, %find]
  %hi = phi i64 [-1, %entry], [%hi1, %find]
  %p = getelementptr inbounds i8, ptr %dm, i64 %c
  %v = load i8, ptr %p
  %in = icmp ne i8 %v, 0
  %nolo = icmp slt i64 %lo, 0
  %setlo = and i1 %in, %nolo
  %lo1 = select i1 %setlo, i64 %c, i64 %lo
  %hi1 = select i1 %in, i64 %c, i64 %hi
  %c1 = add i64 %c, 1
  %cd = icmp eq i64 %c1, %d
  br i1 %cd, label %ends, label %find
ends:
  %none = icmp slt i64 %hi1, 0
  %lo2 = select i1 %none, i64 %d, i64 %lo1
  %hip0 = add i64 %hi1, 1
  %hip = select i1 %none, i64 %d, i64 %hip0
  %lob = mul i64 %lo2, %T8
  %pp = getelementptr inbounds i64, ptr %pre, i64 %lob
  %hb = mul i64 %hip, %T8
  %qp = getelementptr inbounds i64, ptr %suf, i64 %hb
  br label %ends_loop
ends_loop:
  %t = phi i64 [0, %ends], [%t8, %ends_loop]
  %pa = getelementptr inbounds i64, ptr %pp, i64 %t
  %va = load <8 x i64>, ptr %pa, align 8
  %qa = getelementptr inbounds i64, ptr %qp, i64 %t
  %vb = load <8 x i64>, ptr %qa, align 8
  %vab = and <8 x i64> %va, %vb
  %ba = getelementptr inbounds i64, ptr %base, i64 %t
  store <8 x i64> %vab, ptr %ba, align 8
  %t8 = add i64 %t, 8
  %td = icmp eq i64 %t8, %T8
  br i1 %td, label %mid_start, label %ends_loop
mid_start:                                   ; the columns strictly between the first and the last
  %m0 = add i64 %lo2, 1
  %mhas = icmp slt i64 %m0, %hi1
  br i1 %mhas, label %mid, label %done
mid:
  %mc = phi i64 [%m0, %mid_start], [%mc1, %mid_next]
  %mp = getelementptr inbounds i8, ptr %dm, i64 %mc
  %mv = load i8, ptr %mp
  %min = icmp ne i8 %mv, 0
  br i1 %min, label %mid_next, label %mid_and
mid_and:
  %xb = mul i64 %mc, %T8
  %xp = getelementptr inbounds i64, ptr %xm, i64 %xb
  br label %and_loop
and_loop:
  %u = phi i64 [0, %mid_and], [%u8, %and_loop]
  %xa = getelementptr inbounds i64, ptr %xp, i64 %u
  %xv = load <8 x i64>, ptr %xa, align 8
  %bu = getelementptr inbounds i64, ptr %base, i64 %u
  %b0 = load <8 x i64>, ptr %bu, align 8
  %b1 = and <8 x i64> %b0, %xv
  store <8 x i64> %b1, ptr %bu, align 8
  %u8 = add i64 %u, 8
  %ud = icmp eq i64 %u8, %T8
  br i1 %ud, label %mid_next, label %and_loop
mid_next:
  %mc1 = add i64 %mc, 1
  %mdone = icmp eq i64 %mc1, %hi1
  br i1 %mdone, label %done, label %mid
done:
  ret void
}

; cols[c*8 + l] = rows[(j + l)*d + c] for the marked columns c (lanes l >= m: row j again); a
; categorical value that is neither a category code nor NaN is read as NaN and marks its row bad
define internal void @xm_load(ptr noalias %rows, i64 %j, i64 %m, i64 %d, ptr noalias %dm, ptr noalias %ncat,
                              ptr noalias %cols, ptr noalias %bad) {
entry:
  br label %col
col:
  %c = phi i64 [0, %entry], [%c1, %col_next]
  %p = getelementptr inbounds i8, ptr %dm, i64 %c
  %dv = load i8, ptr %p
  %in = icmp ne i8 %dv, 0
  br i1 %in, label %lanes, label %col_next
lanes:
  %nkp = getelementptr inbounds i32, ptr %ncat, i64 %c
  %nk = load i32, ptr %nkp
  %iscat = icmp sgt i32 %nk, 0
  %nkf = sitofp i32 %nk to double
  %cb = mul i64 %c, 8
  br label %lane
lane:
  %l = phi i64 [0, %lanes], [%l1, %lane_next]
  %real = icmp slt i64 %l, %m
  %lr = select i1 %real, i64 %l, i64 0
  %r = add i64 %j, %lr
  %ri = mul i64 %r, %d
  %rc = add i64 %ri, %c
  %vp = getelementptr inbounds double, ptr %rows, i64 %rc
  %x = load double, ptr %vp
  %isnan = fcmp uno double %x, 0.0
  %ge0 = fcmp oge double %x, 0.0
  %ltn = fcmp olt double %x, %nkf
  %fl = call double @llvm.floor.f64(double %x)
  %integ = fcmp oeq double %fl, %x
  %inr = and i1 %ge0, %ltn
  %iscode = and i1 %inr, %integ
  %okv = or i1 %iscode, %isnan
  %notok = xor i1 %okv, true
  %isbad = and i1 %iscat, %notok
  %xs = select i1 %isbad, double 0x7FF8000000000000, double %x
  %ci = add i64 %cb, %l
  %cp = getelementptr inbounds double, ptr %cols, i64 %ci
  store double %xs, ptr %cp
  %mark = and i1 %isbad, %real
  br i1 %mark, label %marked, label %lane_next
marked:
  %bp = getelementptr inbounds i8, ptr %bad, i64 %r
  store i8 1, ptr %bp
  br label %lane_next
lane_next:
  %l1 = add i64 %l, 1
  %ld = icmp eq i64 %l1, 8
  br i1 %ld, label %col_next, label %lane
col_next:
  %c1 = add i64 %c, 1
  %cd = icmp eq i64 %c1, %d
  br i1 %cd, label %exit, label %col
exit:
  ret void
}

; one chunk of up to 8 rows (cols as @xm_load left them): every tree's leaf bits start from
; %base, the marked columns' false splits clear theirs (going left as @goes_left routes: NaN to its
; side, a code set by the code's bit, else v <= threshold), then each tree adds its lowest leaf
; standing in estimator order; out[(j + l)*K + o] for the m real lanes (forests divided by %div)
define internal void @xm_rows(ptr noalias %cols, i64 %j, i64 %m, i64 %d, ptr noalias %dm, ptr noalias %base,
                              ptr noalias %bv, i64 %T, ptr noalias %colrec, ptr noalias %colnum,
                              ptr noalias %rtree, ptr noalias %rpay, ptr noalias %rtest, ptr noalias %rmask,
                              ptr noalias %tkind,
                              ptr noalias %tleaf, ptr noalias %tconst, ptr noalias %tout,
                              ptr noalias %leafval, ptr noalias %init, i64 %K, double %div, i1 %f32,
                              ptr noalias %acc, ptr noalias %out) alwaysinline {
entry:
  %ones = call <8 x i64> @splat_i64(i64 -1)
  br label %bv_init
bv_init:
  %t = phi i64 [0, %entry], [%t1, %bv_init]
  %bp = getelementptr inbounds i64, ptr %base, i64 %t
  %bw = load i64, ptr %bp
  %bs = call <8 x i64> @splat_i64(i64 %bw)
  %t8o = mul i64 %t, 8
  %vp = getelementptr inbounds i64, ptr %bv, i64 %t8o
  store <8 x i64> %bs, ptr %vp, align 8
  %t1 = add i64 %t, 1
  %td = icmp eq i64 %t1, %T
  br i1 %td, label %col, label %bv_init
col:
  %c = phi i64 [0, %bv_init], [%c1, %col_next]
  %dp = getelementptr inbounds i8, ptr %dm, i64 %c
  %dv = load i8, ptr %dp
  %in = icmp ne i8 %dv, 0
  br i1 %in, label %col_start, label %col_next
col_start:
  %cb = mul i64 %c, 8
  %cvp = getelementptr inbounds double, ptr %cols, i64 %cb
  %v = load <8 x double>, ptr %cvp, align 8
  %vnan = fcmp uno <8 x double> %v, zeroinitializer
  %vz = select <8 x i1> %vnan, <8 x double> zeroinitializer, <8 x double> %v
  %code = fptosi <8 x double> %vz to <8 x i64>   ; read by the code-set tests alone
  %rsp = getelementptr inbounds i64, ptr %colrec, i64 %c
  %rs = load i64, ptr %rsp
  %rnp = getelementptr inbounds i64, ptr %colnum, i64 %c
  %rn = load i64, ptr %rnp
  %cn = add i64 %c, 1
  %rep = getelementptr inbounds i64, ptr %colrec, i64 %cn
  %re = load i64, ptr %rep
  ; the numeric records run by threshold, ascending: none at or above the lanes' largest value
  ; sends a lane right (a NaN lane reads them all: a threshold of inf may send NaN right)
  %anynan = call i1 @llvm.vector.reduce.or.v8i1(<8 x i1> %vnan)
  %vmax = call double @llvm.vector.reduce.fmax.v8f64(<8 x double> %vz)
  %hasr = icmp slt i64 %rs, %re
  br i1 %hasr, label %rec, label %col_next
rec:
  %s = phi i64 [%rs, %col_start], [%s1, %rec_next]
  %numeric = icmp sge i64 %s, %rn
  br i1 %numeric, label %rec_num, label %rec_body
rec_num:
  %ntp = getelementptr inbounds i64, ptr %rpay, i64 %s
  %ntb = load i64, ptr %ntp
  %nt = bitcast i64 %ntb to double
  %below = fcmp olt double %nt, %vmax
  %goon = or i1 %below, %anynan
  br i1 %goon, label %rec_body, label %col_next
rec_body:
  %trp = getelementptr inbounds i32, ptr %rtree, i64 %s
  %tr = load i32, ptr %trp
  %pyp = getelementptr inbounds i64, ptr %rpay, i64 %s
  %py = load i64, ptr %pyp
  %tsp = getelementptr inbounds i32, ptr %rtest, i64 %s
  %ts = load i32, ptr %tsp
  %mkp = getelementptr inbounds i64, ptr %rmask, i64 %s
  %mk = load i64, ptr %mkp
  %nl = and i32 %ts, 4
  %nanl = icmp ne i32 %nl, 0
  %nanlv = call <8 x i1> @splat_i1(i1 %nanl)
  %kind = and i32 %ts, 3
  %thr = bitcast i64 %py to double
  %thrv = call <8 x double> @splat_f64(double %thr)
  %le = fcmp ole <8 x double> %v, %thrv
  %pyv = call <8 x i64> @splat_i64(i64 %py)
  %sh = lshr <8 x i64> %pyv, %code
  %bit = trunc <8 x i64> %sh to <8 x i1>
  %isnum = icmp eq i32 %kind, 0
  %isset = icmp eq i32 %kind, 1
  %setgo = select i1 %isset, <8 x i1> %bit, <8 x i1> zeroinitializer
  %go0 = select i1 %isnum, <8 x i1> %le, <8 x i1> %setgo
  %go = select <8 x i1> %vnan, <8 x i1> %nanlv, <8 x i1> %go0
  %mkv = call <8 x i64> @splat_i64(i64 %mk)
  %clear = select <8 x i1> %go, <8 x i64> %ones, <8 x i64> %mkv
  %tr64 = sext i32 %tr to i64
  %to8 = mul i64 %tr64, 8
  %tp = getelementptr inbounds i64, ptr %bv, i64 %to8
  %old = load <8 x i64>, ptr %tp, align 8
  %new = and <8 x i64> %old, %clear
  store <8 x i64> %new, ptr %tp, align 8
  br label %rec_next
rec_next:
  %s1 = add i64 %s, 1
  %sd = icmp eq i64 %s1, %re
  br i1 %sd, label %col_next, label %rec
col_next:
  %c1 = add i64 %c, 1
  %cd = icmp eq i64 %c1, %d
  br i1 %cd, label %leaves, label %col
leaves:
  call void @init_acc(ptr %acc, i64 8, ptr %init, i64 %K)
  %one = icmp eq i64 %K, 1
  br i1 %one, label %tree1_start, label %tree
tree1_start:                                 ; one output: the sum stays in a register
  %a0 = load <8 x double>, ptr %acc, align 8
  br label %tree1
tree1:
  %w = phi i64 [0, %tree1_start], [%w1, %tree1_add]
  %sum = phi <8 x double> [%a0, %tree1_start], [%sum1, %tree1_add]
  %wkp = getelementptr inbounds i32, ptr %tkind, i64 %w
  %wk = load i32, ptr %wkp
  %wconst = icmp eq i32 %wk, 0
  br i1 %wconst, label %tree1_const, label %tree1_qs
tree1_const:
  %wcp = getelementptr inbounds double, ptr %tconst, i64 %w
  %wc = load double, ptr %wcp
  %wcv = call <8 x double> @splat_f64(double %wc)
  br label %tree1_add
tree1_qs:
  %w8 = mul i64 %w, 8
  %wbp = getelementptr inbounds i64, ptr %bv, i64 %w8
  %wb = load <8 x i64>, ptr %wbp, align 8
  %wz = call <8 x i64> @llvm.cttz.v8i64(<8 x i64> %wb, i1 true)
  %wlp = getelementptr inbounds i64, ptr %tleaf, i64 %w
  %wl = load i64, ptr %wlp
  %wv0 = getelementptr inbounds double, ptr %leafval, i64 %wl
  %wps = getelementptr inbounds double, ptr %wv0, <8 x i64> %wz
  %wv = call <8 x double> @llvm.masked.gather.v8f64.v8p0(<8 x ptr> %wps, i32 8, <8 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <8 x double> poison)
  br label %tree1_add
tree1_add:
  %wadd = phi <8 x double> [%wcv, %tree1_const], [%wv, %tree1_qs]
  %sum1 = call <8 x double> @acc_add8(<8 x double> %sum, <8 x double> %wadd, i1 %f32)
  %w1 = add i64 %w, 1
  %wd = icmp eq i64 %w1, %T
  br i1 %wd, label %tree1_done, label %tree1
tree1_done:
  store <8 x double> %sum1, ptr %acc, align 8
  br label %store
tree:
  %u = phi i64 [0, %leaves], [%u1, %t_add]
  %tkp = getelementptr inbounds i32, ptr %tkind, i64 %u
  %tk = load i32, ptr %tkp
  %top = getelementptr inbounds i32, ptr %tout, i64 %u
  %to = load i32, ptr %top
  %to64 = sext i32 %to to i64
  %ab = mul i64 %to64, 8
  %accp = getelementptr inbounds double, ptr %acc, i64 %ab
  %isconst = icmp eq i32 %tk, 0                 ; a constant tree (else QuickScorer)
  br i1 %isconst, label %t_const, label %t_qs
t_const:
  %tcp = getelementptr inbounds double, ptr %tconst, i64 %u
  %tc = load double, ptr %tcp
  %tcv = call <8 x double> @splat_f64(double %tc)
  br label %t_add
t_qs:
  %u8 = mul i64 %u, 8
  %lbp = getelementptr inbounds i64, ptr %bv, i64 %u8
  %lb = load <8 x i64>, ptr %lbp, align 8
  %lz = call <8 x i64> @llvm.cttz.v8i64(<8 x i64> %lb, i1 true)
  %tlp = getelementptr inbounds i64, ptr %tleaf, i64 %u
  %tl = load i64, ptr %tlp
  %lv0 = getelementptr inbounds double, ptr %leafval, i64 %tl
  %lps = getelementptr inbounds double, ptr %lv0, <8 x i64> %lz
  %lv = call <8 x double> @llvm.masked.gather.v8f64.v8p0(<8 x ptr> %lps, i32 8, <8 x i1> <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, <8 x double> poison)
  br label %t_add
t_add:
  %add = phi <8 x double> [%tcv, %t_const], [%lv, %t_qs]
  %la = load <8 x double>, ptr %accp, align 8
  %la2 = call <8 x double> @acc_add8(<8 x double> %la, <8 x double> %add, i1 %f32)
  store <8 x double> %la2, ptr %accp, align 8
  %u1 = add i64 %u, 1
  %ud = icmp eq i64 %u1, %T
  br i1 %ud, label %store, label %tree
store:
  %isdiv = fcmp one double %div, 0.0
  br label %st_row
st_row:
  %l = phi i64 [0, %store], [%l1, %st_row_next]
  %r = add i64 %j, %l
  %rb = mul i64 %r, %K
  br label %st_out
st_out:
  %o = phi i64 [0, %st_row], [%o1, %st_out]
  %ob = mul i64 %o, 8
  %oi = add i64 %ob, %l
  %ap = getelementptr inbounds double, ptr %acc, i64 %oi
  %av = load double, ptr %ap
  %q = fdiv double %av, %div
  %val = select i1 %isdiv, double %q, double %av
  %di = add i64 %rb, %o
  %dq = getelementptr inbounds double, ptr %out, i64 %di
  store double %val, ptr %dq
  %o1 = add i64 %o, 1
  %od = icmp eq i64 %o1, %K
  br i1 %od, label %st_row_next, label %st_out
st_row_next:
  %l1 = add i64 %l, 1
  %lmd = icmp eq i64 %l1, %m
  br i1 %lmd, label %exit, label %st_row
exit:
  ret void
}

; the columns where any of rows j .. j+m-1 differs from x (NaN differs): dm[c] = 1, else 0
define internal void @xm_differ(ptr noalias %rows, i64 %j, i64 %m, i64 %d, ptr noalias %x, ptr noalias %dm) {
entry:
  br label %col
col:
  %c = phi i64 [0, %entry], [%c1, %col_next]
  %xp = getelementptr inbounds double, ptr %x, i64 %c
  %xv = load double, ptr %xp
  br label %lane
lane:
  %l = phi i64 [0, %col], [%l1, %lane]
  %any = phi i1 [false, %col], [%any1, %lane]
  %r = add i64 %j, %l
  %ri = mul i64 %r, %d
  %rc = add i64 %ri, %c
  %vp = getelementptr inbounds double, ptr %rows, i64 %rc
  %v = load double, ptr %vp
  %ne = fcmp une double %v, %xv
  %any1 = or i1 %any, %ne
  %l1 = add i64 %l, 1
  %ld = icmp eq i64 %l1, %m
  br i1 %ld, label %col_next, label %lane
col_next:
  %b = zext i1 %any1 to i8
  %dp = getelementptr inbounds i8, ptr %dm, i64 %c
  store i8 %b, ptr %dp
  %c1 = add i64 %c, 1
  %cd = icmp eq i64 %c1, %d
  br i1 %cd, label %exit, label %col
exit:
  ret void
}

; rows made from x (an XMASK record), 8 at a time: a chunk's trees start from x's masks on the
; columns where none of its rows differs from x; the records of the others apply to every lane
; (on a column where a row holds x's value they clear what x's masks cleared already)
define void @xmask_rows(ptr noalias %a) {
entry:
  %rows = call ptr @aptr(ptr %a, i64 {XMASK.rows})
  %n = call i64 @aint(ptr %a, i64 {XMASK.n})
  %d = call i64 @aint(ptr %a, i64 {XMASK.columns})
  %x = call ptr @aptr(ptr %a, i64 {XMASK.x})
  %dm = call ptr @aptr(ptr %a, i64 {XMASK.differ})
  %xm = call ptr @aptr(ptr %a, i64 {XMASK.xm})
  %pre = call ptr @aptr(ptr %a, i64 {XMASK.pre})
  %suf = call ptr @aptr(ptr %a, i64 {XMASK.suf})
  %T8 = call i64 @aint(ptr %a, i64 {XMASK.t8})
  %colrec = call ptr @aptr(ptr %a, i64 {XMASK.colrec})
  %colnum = call ptr @aptr(ptr %a, i64 {XMASK.colnum})
  %rtree = call ptr @aptr(ptr %a, i64 {XMASK.rtree})
  %rpay = call ptr @aptr(ptr %a, i64 {XMASK.rpay})
  %rtest = call ptr @aptr(ptr %a, i64 {XMASK.rtest})
  %rmask = call ptr @aptr(ptr %a, i64 {XMASK.rmask})
  %T = call i64 @aint(ptr %a, i64 {XMASK.trees})
  %tkind = call ptr @aptr(ptr %a, i64 {XMASK.tkind})
  %tleaf = call ptr @aptr(ptr %a, i64 {XMASK.tleaf})
  %tconst = call ptr @aptr(ptr %a, i64 {XMASK.tconst})
  %tout = call ptr @aptr(ptr %a, i64 {XMASK.tout})
  %leafval = call ptr @aptr(ptr %a, i64 {XMASK.leafval})
  %ncat = call ptr @aptr(ptr %a, i64 {XMASK.ncat})
  %init = call ptr @aptr(ptr %a, i64 {XMASK.init})
  %K = call i64 @aint(ptr %a, i64 {XMASK.outputs})
  %divb = call i64 @aint(ptr %a, i64 {XMASK.divisor})
  %div = bitcast i64 %divb to double
  %f32flag = call i64 @aint(ptr %a, i64 {XMASK.float32_sums})
  %f32 = icmp ne i64 %f32flag, 0
  %base = call ptr @aptr(ptr %a, i64 {XMASK.base})
  %bv = call ptr @aptr(ptr %a, i64 {XMASK.bit_vectors})
  %cols = call ptr @aptr(ptr %a, i64 {XMASK.cols})
  %acc = call ptr @aptr(ptr %a, i64 {XMASK.accs})
  %out = call ptr @aptr(ptr %a, i64 {XMASK.out})
  %bad = call ptr @aptr(ptr %a, i64 {XMASK.bad})
  %none = icmp sle i64 %n, 0
  br i1 %none, label %exit, label %chunk
chunk:
  %j = phi i64 [0, %entry], [%j8, %chunk]
  %left = sub i64 %n, %j
  %few = icmp slt i64 %left, 8
  %m = select i1 %few, i64 %left, i64 8
  call void @xm_differ(ptr %rows, i64 %j, i64 %m, i64 %d, ptr %x, ptr %dm)
  call void @xm_base(ptr %dm, i64 %d, ptr %xm, ptr %pre, ptr %suf, i64 %T8, ptr %base)
  call void @xm_load(ptr %rows, i64 %j, i64 %m, i64 %d, ptr %dm, ptr %ncat, ptr %cols, ptr %bad)
  call void @xm_rows(ptr %cols, i64 %j, i64 %m, i64 %d, ptr %dm, ptr %base, ptr %bv, i64 %T, ptr %colrec,
                     ptr %colnum, ptr %rtree, ptr %rpay, ptr %rtest, ptr %rmask, ptr %tkind, ptr %tleaf, ptr %tconst,
                     ptr %tout, ptr %leafval, ptr %init, i64 %K, double %div, i1 %f32, ptr %acc, ptr %out)
  %j8 = add i64 %j, 8
  %more = icmp slt i64 %j8, %n
  br i1 %more, label %chunk, label %exit
exit:
  ret void
}

; x's masks (an XMASK record): xm[c*t8 + tree] &= the mask of every record x sends right (xm filled
; with all ones by the caller; x holds a category code or NaN in every categorical column), then
; their running ANDs: pre (row c: the columns before c) and suf (row c: the columns from c on)
define void @xmask_of_x(ptr noalias %a) {
entry:
  %d = call i64 @aint(ptr %a, i64 {XMASK.columns})
  %x = call ptr @aptr(ptr %a, i64 {XMASK.x})
  %xm = call ptr @aptr(ptr %a, i64 {XMASK.xm})
  %T8 = call i64 @aint(ptr %a, i64 {XMASK.t8})
  %colrec = call ptr @aptr(ptr %a, i64 {XMASK.colrec})
  %colnum = call ptr @aptr(ptr %a, i64 {XMASK.colnum})
  %rtree = call ptr @aptr(ptr %a, i64 {XMASK.rtree})
  %rpay = call ptr @aptr(ptr %a, i64 {XMASK.rpay})
  %rtest = call ptr @aptr(ptr %a, i64 {XMASK.rtest})
  %rmask = call ptr @aptr(ptr %a, i64 {XMASK.rmask})
  br label %col
col:
  %c = phi i64 [0, %entry], [%c1, %col_next]
  %xp = getelementptr inbounds double, ptr %x, i64 %c
  %v = load double, ptr %xp
  %vnan = fcmp uno double %v, 0.0
  %vz = select i1 %vnan, double 0.0, double %v
  %code = fptosi double %vz to i64
  %rsp = getelementptr inbounds i64, ptr %colrec, i64 %c
  %rs = load i64, ptr %rsp
  %cn = add i64 %c, 1
  %rep = getelementptr inbounds i64, ptr %colrec, i64 %cn
  %re = load i64, ptr %rep
  %rnp = getelementptr inbounds i64, ptr %colnum, i64 %c
  %rn = load i64, ptr %rnp
  %cb = mul i64 %c, %T8
  %row = getelementptr inbounds i64, ptr %xm, i64 %cb
  %hasr = icmp slt i64 %rs, %re
  br i1 %hasr, label %rec, label %col_next
rec:                                         ; numeric records by threshold: x sends none right
  %s = phi i64 [%rs, %col], [%s1, %rec_body]  ; from the first at or above its value on
  %pyp = getelementptr inbounds i64, ptr %rpay, i64 %s
  %py = load i64, ptr %pyp
  %thr = bitcast i64 %py to double
  %isnumrec = icmp sge i64 %s, %rn
  %past = fcmp oge double %thr, %v
  %stop = and i1 %isnumrec, %past
  br i1 %stop, label %col_next, label %rec_body
rec_body:
  %tsp = getelementptr inbounds i32, ptr %rtest, i64 %s
  %ts = load i32, ptr %tsp
  %nl = and i32 %ts, 4
  %nanl = icmp ne i32 %nl, 0
  %kind = and i32 %ts, 3
  %le = fcmp ole double %v, %thr
  %isset = icmp eq i32 %kind, 1
  %small = icmp ult i64 %code, 64
  %safe = select i1 %small, i64 %code, i64 0
  %sh = lshr i64 %py, %safe
  %bit0 = trunc i64 %sh to i1
  %bit = and i1 %bit0, %small
  %isnum = icmp eq i32 %kind, 0
  %setgo = and i1 %isset, %bit
  %go0 = select i1 %isnum, i1 %le, i1 %setgo
  %go = select i1 %vnan, i1 %nanl, i1 %go0
  %trp = getelementptr inbounds i32, ptr %rtree, i64 %s     ; no branch on the data: every record
  %tr = load i32, ptr %trp                                 ; ANDs its mask or all ones
  %tr64 = sext i32 %tr to i64
  %wp = getelementptr inbounds i64, ptr %row, i64 %tr64
  %w = load i64, ptr %wp
  %mkp = getelementptr inbounds i64, ptr %rmask, i64 %s
  %mk = load i64, ptr %mkp
  %cl = select i1 %go, i64 -1, i64 %mk
  %w2 = and i64 %w, %cl
  store i64 %w2, ptr %wp
  %s1 = add i64 %s, 1
  %sd = icmp eq i64 %s1, %re
  br i1 %sd, label %col_next, label %rec
col_next:
  %c1 = add i64 %c, 1
  %cd = icmp eq i64 %c1, %d
  br i1 %cd, label %runs, label %col
runs:                                        ; pre[c + 1] = pre[c] & xm[c], suf[c] = xm[c] & suf[c + 1]
  %pre = call ptr @aptr(ptr %a, i64 {XMASK.pre})
  %suf = call ptr @aptr(ptr %a, i64 {XMASK.suf})
  %ones = call <8 x i64> @splat_i64(i64 -1)
  %dT = mul i64 %d, %T8
  %sufd = getelementptr inbounds i64, ptr %suf, i64 %dT
  br label %ends
ends:
  %e = phi i64 [0, %runs], [%e8, %ends]
  %ep = getelementptr inbounds i64, ptr %pre, i64 %e
  store <8 x i64> %ones, ptr %ep, align 8
  %eq = getelementptr inbounds i64, ptr %sufd, i64 %e
  store <8 x i64> %ones, ptr %eq, align 8
  %e8 = add i64 %e, 8
  %ed = icmp eq i64 %e8, %T8
  br i1 %ed, label %fwd, label %ends
fwd:
  %f = phi i64 [0, %ends], [%f8, %fwd]
  %fx = getelementptr inbounds i64, ptr %xm, i64 %f
  %fp = getelementptr inbounds i64, ptr %pre, i64 %f
  %fp1 = getelementptr inbounds i64, ptr %fp, i64 %T8
  %fa = load <8 x i64>, ptr %fp, align 8
  %fxv = load <8 x i64>, ptr %fx, align 8
  %fr = and <8 x i64> %fa, %fxv
  store <8 x i64> %fr, ptr %fp1, align 8
  %f8 = add i64 %f, 8
  %fd = icmp eq i64 %f8, %dT
  br i1 %fd, label %bwd_start, label %fwd
bwd_start:
  br label %bwd
bwd:
  %g = phi i64 [%dT, %bwd_start], [%g0, %bwd]
  %g0 = sub i64 %g, 8
  %gx = getelementptr inbounds i64, ptr %xm, i64 %g0
  %gq = getelementptr inbounds i64, ptr %suf, i64 %g0
  %gq1 = getelementptr inbounds i64, ptr %gq, i64 %T8
  %gb = load <8 x i64>, ptr %gq1, align 8
  %gxv = load <8 x i64>, ptr %gx, align 8
  %gr = and <8 x i64> %gb, %gxv
  store <8 x i64> %gr, ptr %gq, align 8
  %gd = icmp eq i64 %g0, 0
  br i1 %gd, label %exit, label %bwd
exit:
  ret void
}
