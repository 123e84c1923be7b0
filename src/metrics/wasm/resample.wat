;; The inner loop of the group bootstrap (src/metrics/bootstrap.ts groupBootstrap): for each
;; column c of a table of integer group sums and each of 8 resamples j, the sum over the groups g
;; of weight[j][g] * table[c][g], in 32-bit integers. Compiled by scripts/gen-wasm.mjs into
;; src/metrics/generated/resample-wasm.ts.
;;
;; sums8: a table of 32-bit integers, four groups per SIMD operation. Layout (byte offsets into
;; memory, every count a multiple of 4 groups, zero-padded):
;;   table  column c at $t + c * $G * 4, group g at + g * 4
;;   weights interleaved by 4 groups: group g of resample j at $w + ((g >> 2) * 8 + j) * 16 + (g & 3) * 4
;;   out    column c, resample j at $out + (c * 8 + j) * 4
;; sums8n (narrow): a table and weights of 16-bit integers, eight groups per SIMD operation
;; (i32x4.dot_i16x8_s multiplies eight pairs and adds them two by two into four 32-bit lanes).
;; Layout as above with 8 groups in place of 4, 2 bytes each:
;;   table  column c at $t + c * $G * 2, group g at + g * 2
;;   weights interleaved by 8 groups: group g of resample j at $w + ((g >> 3) * 8 + j) * 16 + (g & 7) * 2
;;   out    as above
;; The caller makes sure no sum can leave the 32-bit range (|table| * total weight < 2^31; every
;; partial sum is smaller than the total), and for sums8n that every table entry and weight fits
;; in 16 bits.
;;
;; draws: the weights of k <= 8 resamples, each G draws of a group with replacement, added into
;; the weights at $w (laid out for sums8, or for sums8n when $narrow is 1; the caller zeroes them).
;; The draws are those of src/util/random.ts seededRandom continued from its state $state
;; (mulberry32: the state steps by 0x6d2b79f5, the output mixes it), one resample after the other,
;; and a draw's group is floor(u / 2^32 * G) for the output u as JavaScript computes
;; Math.floor(random() * G): exactly (u * G) >> 32 in 64-bit integers, since u * G < 2^53 for
;; G < 2^21 (the caller's bound). Returns the state after the last draw.
(module
  (memory (export "memory") 1)
  (func $lanes (param $v v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))
  (func (export "sums8") (param $t i32) (param $w i32) (param $out i32) (param $W i32) (param $G i32)
    (local $c i32) (local $tp i32) (local $end i32) (local $wp i32) (local $op i32) (local $v v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $tp (local.get $t))
    (local.set $op (local.get $out))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $c) (local.get $W)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $a4 (v128.const i32x4 0 0 0 0))
        (local.set $a5 (v128.const i32x4 0 0 0 0))
        (local.set $a6 (v128.const i32x4 0 0 0 0))
        (local.set $a7 (v128.const i32x4 0 0 0 0))
        (local.set $end (i32.add (local.get $tp) (i32.shl (local.get $G) (i32.const 2))))
        (local.set $wp (local.get $w))
        (block $groupsDone
          (loop $groups
            (br_if $groupsDone (i32.ge_u (local.get $tp) (local.get $end)))
            (local.set $v (v128.load (local.get $tp)))
            (local.set $a0 (i32x4.add (local.get $a0) (i32x4.mul (local.get $v) (v128.load offset=0 (local.get $wp)))))
            (local.set $a1 (i32x4.add (local.get $a1) (i32x4.mul (local.get $v) (v128.load offset=16 (local.get $wp)))))
            (local.set $a2 (i32x4.add (local.get $a2) (i32x4.mul (local.get $v) (v128.load offset=32 (local.get $wp)))))
            (local.set $a3 (i32x4.add (local.get $a3) (i32x4.mul (local.get $v) (v128.load offset=48 (local.get $wp)))))
            (local.set $a4 (i32x4.add (local.get $a4) (i32x4.mul (local.get $v) (v128.load offset=64 (local.get $wp)))))
            (local.set $a5 (i32x4.add (local.get $a5) (i32x4.mul (local.get $v) (v128.load offset=80 (local.get $wp)))))
            (local.set $a6 (i32x4.add (local.get $a6) (i32x4.mul (local.get $v) (v128.load offset=96 (local.get $wp)))))
            (local.set $a7 (i32x4.add (local.get $a7) (i32x4.mul (local.get $v) (v128.load offset=112 (local.get $wp)))))
            (local.set $tp (i32.add (local.get $tp) (i32.const 16)))
            (local.set $wp (i32.add (local.get $wp) (i32.const 128)))
            (br $groups)))
        (i32.store offset=0 (local.get $op) (call $lanes (local.get $a0)))
        (i32.store offset=4 (local.get $op) (call $lanes (local.get $a1)))
        (i32.store offset=8 (local.get $op) (call $lanes (local.get $a2)))
        (i32.store offset=12 (local.get $op) (call $lanes (local.get $a3)))
        (i32.store offset=16 (local.get $op) (call $lanes (local.get $a4)))
        (i32.store offset=20 (local.get $op) (call $lanes (local.get $a5)))
        (i32.store offset=24 (local.get $op) (call $lanes (local.get $a6)))
        (i32.store offset=28 (local.get $op) (call $lanes (local.get $a7)))
        (local.set $op (i32.add (local.get $op) (i32.const 32)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $column))))
  (func (export "sums8n") (param $t i32) (param $w i32) (param $out i32) (param $W i32) (param $G i32)
    (local $c i32) (local $tp i32) (local $end i32) (local $wp i32) (local $op i32) (local $v v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $tp (local.get $t))
    (local.set $op (local.get $out))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $c) (local.get $W)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $a4 (v128.const i32x4 0 0 0 0))
        (local.set $a5 (v128.const i32x4 0 0 0 0))
        (local.set $a6 (v128.const i32x4 0 0 0 0))
        (local.set $a7 (v128.const i32x4 0 0 0 0))
        (local.set $end (i32.add (local.get $tp) (i32.shl (local.get $G) (i32.const 1))))
        (local.set $wp (local.get $w))
        (block $groupsDone
          (loop $groups
            (br_if $groupsDone (i32.ge_u (local.get $tp) (local.get $end)))
            (local.set $v (v128.load (local.get $tp)))
            (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=0 (local.get $wp)))))
            (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=16 (local.get $wp)))))
            (local.set $a2 (i32x4.add (local.get $a2) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=32 (local.get $wp)))))
            (local.set $a3 (i32x4.add (local.get $a3) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=48 (local.get $wp)))))
            (local.set $a4 (i32x4.add (local.get $a4) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=64 (local.get $wp)))))
            (local.set $a5 (i32x4.add (local.get $a5) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=80 (local.get $wp)))))
            (local.set $a6 (i32x4.add (local.get $a6) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=96 (local.get $wp)))))
            (local.set $a7 (i32x4.add (local.get $a7) (i32x4.dot_i16x8_s (local.get $v) (v128.load offset=112 (local.get $wp)))))
            (local.set $tp (i32.add (local.get $tp) (i32.const 16)))
            (local.set $wp (i32.add (local.get $wp) (i32.const 128)))
            (br $groups)))
        (i32.store offset=0 (local.get $op) (call $lanes (local.get $a0)))
        (i32.store offset=4 (local.get $op) (call $lanes (local.get $a1)))
        (i32.store offset=8 (local.get $op) (call $lanes (local.get $a2)))
        (i32.store offset=12 (local.get $op) (call $lanes (local.get $a3)))
        (i32.store offset=16 (local.get $op) (call $lanes (local.get $a4)))
        (i32.store offset=20 (local.get $op) (call $lanes (local.get $a5)))
        (i32.store offset=24 (local.get $op) (call $lanes (local.get $a6)))
        (i32.store offset=28 (local.get $op) (call $lanes (local.get $a7)))
        (local.set $op (i32.add (local.get $op) (i32.const 32)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (br $column))))
  (func (export "draws") (param $state i32) (param $G i32) (param $k i32) (param $w i32) (param $narrow i32) (result i32)
    (local $j i32) (local $x i32) (local $t i32) (local $g i32) (local $at i32)
    (block $done
      (loop $resample
        (br_if $done (i32.ge_u (local.get $j) (local.get $k)))
        (local.set $x (i32.const 0))
        (block $drawn
          (loop $draw
            (br_if $drawn (i32.ge_u (local.get $x) (local.get $G)))
            ;; t = mulberry32(state += 0x6d2b79f5)
            (local.set $state (i32.add (local.get $state) (i32.const 0x6d2b79f5)))
            (local.set $t (i32.mul
              (i32.xor (local.get $state) (i32.shr_u (local.get $state) (i32.const 15)))
              (i32.or (local.get $state) (i32.const 1))))
            (local.set $t (i32.xor (local.get $t)
              (i32.add (local.get $t)
                (i32.mul
                  (i32.xor (local.get $t) (i32.shr_u (local.get $t) (i32.const 7)))
                  (i32.or (local.get $t) (i32.const 61))))))
            (local.set $t (i32.xor (local.get $t) (i32.shr_u (local.get $t) (i32.const 14))))
            ;; g = (u * G) >> 32
            (local.set $g (i32.wrap_i64 (i64.shr_u
              (i64.mul (i64.extend_i32_u (local.get $t)) (i64.extend_i32_u (local.get $G)))
              (i64.const 32))))
            (if (local.get $narrow)
              (then
                ;; weight of group g in resample j: 16-bit element ((g >> 3) << 6) + (j << 3) + (g & 7)
                (local.set $at (i32.add (local.get $w) (i32.shl
                  (i32.add (i32.add (i32.shl (i32.shr_u (local.get $g) (i32.const 3)) (i32.const 6)) (i32.shl (local.get $j) (i32.const 3)))
                    (i32.and (local.get $g) (i32.const 7)))
                  (i32.const 1))))
                (i32.store16 (local.get $at) (i32.add (i32.load16_u (local.get $at)) (i32.const 1))))
              (else
                ;; weight of group g in resample j: 32-bit element ((g >> 2) << 5) + (j << 2) + (g & 3)
                (local.set $at (i32.add (local.get $w) (i32.shl
                  (i32.add (i32.add (i32.shl (i32.shr_u (local.get $g) (i32.const 2)) (i32.const 5)) (i32.shl (local.get $j) (i32.const 2)))
                    (i32.and (local.get $g) (i32.const 3)))
                  (i32.const 2))))
                (i32.store (local.get $at) (i32.add (i32.load (local.get $at)) (i32.const 1)))))
            (local.set $x (i32.add (local.get $x) (i32.const 1)))
            (br $draw)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $resample)))
    (local.get $state))
)
