//! Lane types for the all-`f32` math algorithms ([`super::vmathf`]): one trait, [`Lanes`],
//! with the few operations the algorithms need, and three implementations that give the
//! same bits for the same inputs:
//! - [`Plain`]: an array of `W` lanes, each operation a loop (the scalar built-in at
//!   `W = 1`, and every width where AVX2 is missing but FMA is part of the architecture,
//!   i.e. AArch64);
//! - on x86-64, [`F4`] (`__m128`) and [`F8`] (`__m256`): one instruction per operation,
//!   used only inside the AVX2+FMA builds of the vector entry points.
//!
//! Every operation is exact or correctly rounded (IEEE add, sub, mul, div, sqrt, fused
//! multiply-add, round-to-nearest-even), comparisons are ordered (false on NaN), and
//! selects and bit operations work on bits, so an algorithm written once over [`Lanes`]
//! gives the same result at every width and on every implementation. A mask is a lane
//! value whose bits are all ones (true) or all zeros (false). The "integer" operations
//! read and write a lane's bits as an `i32`.
//!
//! Why not rely on the auto-vectoriser: the lane-array code of [`super::vmath`] came out
//! as branches on scalar doubles for some functions and widths (`log` at 4 lanes), and
//! nothing told us. Here an operation is an instruction by construction.

/// The operations the `f32` algorithms use. See the module documentation for the rules
/// every implementation keeps.
pub(super) trait Lanes: Copy {
    fn splat(x: f32) -> Self;
    fn splat_bits(b: u32) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    /// `self * b + c`, rounded once.
    fn fma(self, b: Self, c: Self) -> Self;
    /// To the nearest integer, ties to even.
    fn round(self) -> Self;
    /// Masks; false where either side is NaN.
    fn lt(self, o: Self) -> Self;
    fn le(self, o: Self) -> Self;
    fn eq(self, o: Self) -> Self;
    /// True where `self` is NaN.
    fn is_nan(self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// `!self & o`.
    fn andnot(self, o: Self) -> Self;
    /// `self ? a : b` lane by lane (`self` a mask).
    fn select(self, a: Self, b: Self) -> Self;
    /// Whether any lane of the mask is true.
    fn any(self) -> bool;
    /// The nearest `i32` (ties to even) as bits; the lane must be within ±2³¹.
    fn to_i(self) -> Self;
    /// The lane's bits as an `i32`, converted to `f32`.
    fn to_f(self) -> Self;
    fn iadd(self, o: Self) -> Self;
    fn isub(self, o: Self) -> Self;
    fn shl<const N: i32>(self) -> Self;
    /// Arithmetic shift right.
    fn sar<const N: i32>(self) -> Self;
    /// Entry `i` of `table` in each lane, `i` the lane's bits as an `i32` in 0..=15: a
    /// coefficient per lane for piecewise polynomials (one permutation at 16 lanes).
    fn lookup(self, table: &[f32; 16]) -> Self;
    /// `self`, with `f(x)` in the lanes where `mask` is true: the per-lane way out for
    /// the rare inputs an algorithm leaves to other code. Costs a pass over the lanes
    /// only when some lane needs it.
    fn patch(self, mask: Self, x: Self, f: fn(f32) -> f32) -> Self;

    // ---- built from the above ----

    /// `self · 2^q` rounded once, for integral `q` with |q| ≤ 250 and `self` in [½, 2): in
    /// two steps, `2^⌊q/2⌋ · 2^(q − ⌊q/2⌋)`, each factor a normal number, so a subnormal
    /// result is rounded once and one past 2¹²⁸ is ∞. AVX-512's `vscalefps` gives the same
    /// result in one instruction ([`F16`] uses it).
    #[inline(always)]
    fn scale(self, q: Self) -> Self {
        let qi = q.to_i();
        let q1 = qi.sar::<1>();
        let q2 = qi.isub(q1);
        let bias = Self::splat_i(127);
        let s1 = q1.iadd(bias).shl::<23>();
        let s2 = q2.iadd(bias).shl::<23>();
        self.mul(s1).mul(s2)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        self.xor(Self::splat_bits(0x8000_0000))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Self::splat_bits(0x8000_0000).andnot(self)
    }
    /// The sign bit of `self` (the rest zero).
    #[inline(always)]
    fn sign(self) -> Self {
        self.and(Self::splat_bits(0x8000_0000))
    }
    /// `self < o ? self : o` (the second operand where either is NaN).
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        self.lt(o).select(self, o)
    }
    /// `o < self ? self : o` (the second operand where either is NaN).
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        o.lt(self).select(self, o)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> Self {
        o.le(self)
    }
    #[inline(always)]
    fn splat_i(i: i32) -> Self {
        Self::splat_bits(i as u32)
    }
}

/// A polynomial in `x`, highest coefficient first, by Horner's rule with fused
/// multiply-adds.
#[inline(always)]
pub(super) fn poly<V: Lanes, const N: usize>(x: V, c: &[f32; N]) -> V {
    let mut r = V::splat(c[0]);
    let mut i = 1;
    while i < N {
        r = r.fma(x, V::splat(c[i]));
        i += 1;
    }
    r
}

/// A polynomial in `x`, highest coefficient first, as four interleaved Horner chains in
/// x⁴ (`p = (c₀ + x c₁) + x² (c₂ + x c₃)`, cᵢ the chain of the degrees ≡ i mod 4): the
/// dependent chain one call waits for is a quarter as deep as [`poly`]'s (the lanes
/// are already the parallelism). For the long polynomials.
#[inline(always)]
pub(super) fn poly4<V: Lanes, const N: usize>(x: V, c: &[f32; N]) -> V {
    let x2 = x.mul(x);
    let x4 = x2.mul(x2);
    let zero = V::splat(0.0);
    let (mut c0, mut c1, mut c2, mut c3) = (zero, zero, zero, zero);
    let mut i = 0;
    while i < N {
        let k = V::splat(c[i]);
        match (N - 1 - i) % 4 {
            0 => c0 = c0.fma(x4, k),
            1 => c1 = c1.fma(x4, k),
            2 => c2 = c2.fma(x4, k),
            _ => c3 = c3.fma(x4, k),
        }
        i += 1;
    }
    x2.fma(x.fma(c3, c2), x.fma(c1, c0))
}

/// `W` lanes as an array: each operation a loop over the lanes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plain<const W: usize>(pub [f32; W]);

impl<const W: usize> Plain<W> {
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32) -> Self {
        let mut o = self.0;
        for v in &mut o {
            *v = f(*v);
        }
        Plain(o)
    }
    #[inline(always)]
    fn zip(self, b: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        let mut o = self.0;
        for (v, b) in o.iter_mut().zip(b.0) {
            *v = f(*v, b);
        }
        Plain(o)
    }
    #[inline(always)]
    fn bits(self, f: impl Fn(u32) -> u32) -> Self {
        self.map(|a| f32::from_bits(f(a.to_bits())))
    }
    #[inline(always)]
    fn bits2(self, b: Self, f: impl Fn(u32, u32) -> u32) -> Self {
        self.zip(b, |a, b| f32::from_bits(f(a.to_bits(), b.to_bits())))
    }
    #[inline(always)]
    fn mask(self, b: Self, f: impl Fn(f32, f32) -> bool) -> Self {
        self.zip(b, |a, b| f32::from_bits(if f(a, b) { u32::MAX } else { 0 }))
    }
}

impl<const W: usize> Lanes for Plain<W> {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Plain([x; W])
    }
    #[inline(always)]
    fn splat_bits(b: u32) -> Self {
        Plain([f32::from_bits(b); W])
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.zip(o, |a, b| a + b)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.zip(o, |a, b| a - b)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self.zip(o, |a, b| a * b)
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self.zip(o, |a, b| a / b)
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        let mut o = self.0;
        for ((o, b), c) in o.iter_mut().zip(b.0).zip(c.0) {
            *o = o.mul_add(b, c);
        }
        Plain(o)
    }
    #[inline(always)]
    fn round(self) -> Self {
        self.map(f32::round_ties_even)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> Self {
        self.mask(o, |a, b| a < b)
    }
    #[inline(always)]
    fn le(self, o: Self) -> Self {
        self.mask(o, |a, b| a <= b)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Self {
        self.mask(o, |a, b| a == b)
    }
    #[inline(always)]
    fn is_nan(self) -> Self {
        self.mask(self, |a, _| a.is_nan())
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        self.bits2(o, |a, b| a & b)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        self.bits2(o, |a, b| a | b)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        self.bits2(o, |a, b| a ^ b)
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        self.bits2(o, |a, b| !a & b)
    }
    #[inline(always)]
    fn select(self, a: Self, b: Self) -> Self {
        let mut o = b.0;
        for ((o, m), a) in o.iter_mut().zip(self.0).zip(a.0) {
            if m.to_bits() >> 31 != 0 {
                *o = a;
            }
        }
        Plain(o)
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.0.iter().any(|m| m.to_bits() >> 31 != 0)
    }
    #[inline(always)]
    fn to_i(self) -> Self {
        // What `cvtps2dq` gives: the "integer indefinite" outside the range.
        self.map(|a| {
            let r = a.round_ties_even();
            let i = if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
                r as i32
            } else {
                i32::MIN
            };
            f32::from_bits(i as u32)
        })
    }
    #[inline(always)]
    fn to_f(self) -> Self {
        self.map(|a| a.to_bits() as i32 as f32)
    }
    #[inline(always)]
    fn iadd(self, o: Self) -> Self {
        self.bits2(o, u32::wrapping_add)
    }
    #[inline(always)]
    fn isub(self, o: Self) -> Self {
        self.bits2(o, u32::wrapping_sub)
    }
    #[inline(always)]
    fn shl<const N: i32>(self) -> Self {
        self.bits(|a| a << N)
    }
    #[inline(always)]
    fn sar<const N: i32>(self) -> Self {
        self.bits(|a| ((a as i32) >> N) as u32)
    }
    #[inline(always)]
    fn lookup(self, table: &[f32; 16]) -> Self {
        self.map(|i| table[(i.to_bits() & 15) as usize])
    }
    #[inline(always)]
    fn patch(self, mask: Self, x: Self, f: fn(f32) -> f32) -> Self {
        let mut o = self.0;
        for ((o, m), x) in o.iter_mut().zip(mask.0).zip(x.0) {
            if m.to_bits() >> 31 != 0 {
                *o = f(x);
            }
        }
        Plain(o)
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{F16, F4, F8};

/// The AVX2 lane types. A value of [`F4`] or [`F8`] exists only inside the
/// `#[target_feature(enable = "avx2,fma")]` builds of `builtins/vector.rs`, which run after
/// `is_x86_feature_detected!` found both features: that is the invariant every
/// `// SAFETY:` below relies on (the intrinsics need AVX, AVX2, SSE4.1 or FMA).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Lanes;
    use std::arch::x86_64::*;

    /// 4 lanes in an SSE register (VEX-encoded in the AVX2 builds).
    #[derive(Clone, Copy, Debug)]
    pub(in super::super) struct F4(pub __m128);
    /// 8 lanes in an AVX register.
    #[derive(Clone, Copy, Debug)]
    pub(in super::super) struct F8(pub __m256);
    /// 16 lanes in an AVX-512 register: only inside the `avx512f` builds, which run after
    /// `is_x86_feature_detected!("avx512f")` (and AVX2, FMA) held.
    #[derive(Clone, Copy, Debug)]
    pub(in super::super) struct F16(pub __m512);

    macro_rules! imp {
        ($t:ident, $m:ident, $n:literal $(; $($own:tt)*)?) => {
            impl $t {
                #[inline(always)]
                pub fn load(a: &[f32; $n]) -> Self {
                    // SAFETY: `a` has `$n` lanes.
                    unsafe { Self::load_ptr(a.as_ptr()) }
                }
                #[inline(always)]
                pub fn store(self) -> [f32; $n] {
                    let mut a = [0.0; $n];
                    // SAFETY: `a` has `$n` lanes.
                    unsafe { self.store_ptr(a.as_mut_ptr()) };
                    a
                }
                /// # Safety
                #[doc = concat!("`p` points to ", stringify!($n), " readable `f32`s.")]
                #[inline(always)]
                pub unsafe fn load_ptr(p: *const f32) -> Self {
                    // SAFETY: `p` has `$n` lanes (the caller's promise); AVX2 is present
                    // (module documentation).
                    $t(unsafe { $m::loadu_ps(p) })
                }
                /// # Safety
                #[doc = concat!("`p` points to ", stringify!($n), " writable `f32`s.")]
                #[inline(always)]
                pub unsafe fn store_ptr(self, p: *mut f32) {
                    // SAFETY: `p` has `$n` lanes (the caller's promise); AVX2 is present
                    // (module documentation).
                    unsafe { $m::storeu_ps(p, self.0) }
                }
            }
            // Each body is one intrinsic of the width's module (`w8::add_ps` is
            // `_mm256_add_ps`).
            impl Lanes for $t {
                #[inline(always)]
                fn splat(x: f32) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::set1_ps(x) })
                }
                #[inline(always)]
                fn splat_bits(b: u32) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::castsi_ps($m::set1_epi32(b as i32)) })
                }
                #[inline(always)]
                fn add(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::add_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn sub(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::sub_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn mul(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::mul_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn div(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::div_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn fma(self, b: Self, c: Self) -> Self {
                    // SAFETY: see the module documentation (FMA is present).
                    $t(unsafe { $m::fmadd_ps(self.0, b.0, c.0) })
                }
                #[inline(always)]
                fn round(self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe {
                        $m::round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(self.0)
                    })
                }
                #[inline(always)]
                fn lt(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::cmp_ps::<_CMP_LT_OQ>(self.0, o.0) })
                }
                #[inline(always)]
                fn le(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::cmp_ps::<_CMP_LE_OQ>(self.0, o.0) })
                }
                #[inline(always)]
                fn eq(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::cmp_ps::<_CMP_EQ_OQ>(self.0, o.0) })
                }
                #[inline(always)]
                fn is_nan(self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::cmp_ps::<_CMP_UNORD_Q>(self.0, self.0) })
                }
                #[inline(always)]
                fn and(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::and_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn or(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::or_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn xor(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::xor_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn andnot(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::andnot_ps(self.0, o.0) })
                }
                #[inline(always)]
                fn select(self, a: Self, b: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::blendv_ps(b.0, a.0, self.0) })
                }
                #[inline(always)]
                fn any(self) -> bool {
                    // SAFETY: see the module documentation (AVX2 is present).
                    unsafe { $m::movemask_ps(self.0) != 0 }
                }
                #[inline(always)]
                fn to_i(self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present). The
                    // rounding is MXCSR's, round-to-nearest-even in Rust code.
                    $t(unsafe { $m::castsi_ps($m::cvtps_epi32(self.0)) })
                }
                #[inline(always)]
                fn to_f(self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::cvtepi32_ps($m::castps_si(self.0)) })
                }
                #[inline(always)]
                fn iadd(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe {
                        $m::castsi_ps($m::add_epi32($m::castps_si(self.0), $m::castps_si(o.0)))
                    })
                }
                #[inline(always)]
                fn isub(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe {
                        $m::castsi_ps($m::sub_epi32($m::castps_si(self.0), $m::castps_si(o.0)))
                    })
                }
                #[inline(always)]
                fn shl<const N: i32>(self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::castsi_ps($m::slli_epi32::<N>($m::castps_si(self.0))) })
                }
                #[inline(always)]
                fn sar<const N: i32>(self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::castsi_ps($m::srai_epi32::<N>($m::castps_si(self.0))) })
                }
                #[inline(always)]
                fn lookup(self, table: &[f32; 16]) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present); `table`
                    // has the 16 entries every index in 0..=15 selects.
                    $t(unsafe { $m::lookup16(self.0, table) })
                }
                #[inline(always)]
                fn patch(self, mask: Self, x: Self, f: fn(f32) -> f32) -> Self {
                    if !mask.any() {
                        return self;
                    }
                    let (mut o, m, x) = (self.store(), mask.store(), x.store());
                    for i in 0..$n {
                        if m[i].to_bits() >> 31 != 0 {
                            o[i] = f(x[i]);
                        }
                    }
                    Self::load(&o)
                }
                /// `minps`: `self < o ? self : o`, the default's rule, in one instruction.
                #[inline(always)]
                fn min(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::min_ps(self.0, o.0) })
                }
                /// `maxps`: `self > o ? self : o`, the default's rule, in one instruction.
                #[inline(always)]
                fn max(self, o: Self) -> Self {
                    // SAFETY: see the module documentation (AVX2 is present).
                    $t(unsafe { $m::max_ps(self.0, o.0) })
                }
                $($($own)*)?
            }
        };
    }
    imp!(F4, w4, 4);
    imp!(F8, w8, 8);
    impl F16 {
        /// The 16 lanes of four 128-bit quarters, lane 0 first (the register form of the
        /// 16-lane entry points: JIT code passes its values so).
        #[inline(always)]
        pub fn from_quarters(q: [__m128; 4]) -> Self {
            // SAFETY: AVX-512F is present (the type's documentation).
            unsafe {
                let v = _mm512_castps128_ps512(q[0]);
                let v = _mm512_insertf32x4::<1>(v, q[1]);
                let v = _mm512_insertf32x4::<2>(v, q[2]);
                F16(_mm512_insertf32x4::<3>(v, q[3]))
            }
        }
    }
    imp!(F16, w16, 16;
        #[inline(always)]
        fn scale(self, q: Self) -> Self {
            // SAFETY: AVX-512F is present (the type's documentation). `q` is integral, so
            // `⌊q⌋ = q` and the result is `self · 2^q` rounded once, as the default's.
            F16(unsafe { _mm512_scalef_ps(self.0, q.0) })
        }
    );

    /// The 128-bit intrinsics under the names the macro uses.
    mod w4 {
        pub use std::arch::x86_64::{
            _mm_add_epi32 as add_epi32, _mm_add_ps as add_ps, _mm_and_ps as and_ps,
            _mm_andnot_ps as andnot_ps, _mm_blendv_ps as blendv_ps, _mm_castps_si128 as castps_si,
            _mm_castsi128_ps as castsi_ps, _mm_cmp_ps as cmp_ps, _mm_cvtepi32_ps as cvtepi32_ps,
            _mm_cvtps_epi32 as cvtps_epi32, _mm_div_ps as div_ps, _mm_fmadd_ps as fmadd_ps,
            _mm_loadu_ps as loadu_ps, _mm_max_ps as max_ps, _mm_min_ps as min_ps,
            _mm_movemask_ps as movemask_ps, _mm_mul_ps as mul_ps, _mm_or_ps as or_ps,
            _mm_round_ps as round_ps, _mm_set1_epi32 as set1_epi32, _mm_set1_ps as set1_ps,
            _mm_slli_epi32 as slli_epi32, _mm_srai_epi32 as srai_epi32, _mm_storeu_ps as storeu_ps,
            _mm_sub_epi32 as sub_epi32, _mm_sub_ps as sub_ps, _mm_xor_ps as xor_ps,
        };

        /// Entry `i` of `t` per lane, `i` the lane's bits (0..=15): a gather.
        ///
        /// # Safety
        /// AVX2 is present.
        #[inline(always)]
        pub unsafe fn lookup16(
            idx: std::arch::x86_64::__m128,
            t: &[f32; 16],
        ) -> std::arch::x86_64::__m128 {
            use std::arch::x86_64::*;
            // SAFETY: AVX2 is present (the caller's promise); every index in 0..=15 reads
            // within `t`.
            unsafe { _mm_i32gather_ps::<4>(t.as_ptr(), _mm_castps_si128(idx)) }
        }
    }
    /// The 256-bit intrinsics under the names the macro uses.
    mod w8 {
        use std::arch::x86_64::{__m256, _mm256_set_m128, _mm_loadu_ps};

        /// 8 lanes read as two 128-bit halves: JIT code (Cranelift has no 256-bit
        /// vectors) writes them as two 16-byte stores just before the call, and one
        /// 32-byte load of those cannot be forwarded from the store buffer (a stall of a
        /// dozen cycles or more per call; measured with a copy through the stack: 20 ns
        /// per 8 lanes of `exp` instead of 4). LLVM merges two adjacent loads into one,
        /// so the second half's address goes through an empty `asm!` it cannot see into.
        ///
        /// # Safety
        /// `p` points to 8 readable `f32`s, and AVX is present.
        #[inline(always)]
        pub unsafe fn loadu_ps(p: *const f32) -> __m256 {
            // SAFETY: `p + 4` is within the caller's 8 lanes.
            let mut hi = unsafe { p.add(4) };
            #[expect(
                clippy::pointers_in_nomem_asm_block,
                reason = "the asm reads nothing: it only hides where `hi` points"
            )]
            // SAFETY: an empty template: `hi` is passed through unchanged, nothing else
            // is touched.
            unsafe {
                std::arch::asm!("/* {0} */", inout(reg) hi, options(pure, nomem, nostack, preserves_flags))
            };
            // SAFETY: the caller's promise (8 lanes at `p`, AVX present).
            unsafe { _mm256_set_m128(_mm_loadu_ps(hi), _mm_loadu_ps(p)) }
        }

        /// Entry `i` of `t` per lane, `i` the lane's bits (0..=15): each half of the
        /// table permuted by the indices' low three bits, blended on the fourth.
        ///
        /// # Safety
        /// AVX2 is present.
        #[inline(always)]
        pub unsafe fn lookup16(idx: __m256, t: &[f32; 16]) -> __m256 {
            use std::arch::x86_64::*;
            // SAFETY: AVX2 is present (the caller's promise); `t` has 16 entries, read as
            // two halves of 8.
            unsafe {
                let i = _mm256_castps_si256(idx);
                let lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t.as_ptr()), i);
                let hi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t.as_ptr().add(8)), i);
                _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_slli_epi32::<28>(i)))
            }
        }

        pub use std::arch::x86_64::{
            _mm256_add_epi32 as add_epi32, _mm256_add_ps as add_ps, _mm256_and_ps as and_ps,
            _mm256_andnot_ps as andnot_ps, _mm256_blendv_ps as blendv_ps,
            _mm256_castps_si256 as castps_si, _mm256_castsi256_ps as castsi_ps,
            _mm256_cmp_ps as cmp_ps, _mm256_cvtepi32_ps as cvtepi32_ps,
            _mm256_cvtps_epi32 as cvtps_epi32, _mm256_div_ps as div_ps,
            _mm256_fmadd_ps as fmadd_ps, _mm256_max_ps as max_ps, _mm256_min_ps as min_ps,
            _mm256_movemask_ps as movemask_ps, _mm256_mul_ps as mul_ps, _mm256_or_ps as or_ps,
            _mm256_round_ps as round_ps, _mm256_set1_epi32 as set1_epi32,
            _mm256_set1_ps as set1_ps, _mm256_slli_epi32 as slli_epi32,
            _mm256_srai_epi32 as srai_epi32, _mm256_storeu_ps as storeu_ps,
            _mm256_sub_epi32 as sub_epi32, _mm256_sub_ps as sub_ps, _mm256_xor_ps as xor_ps,
        };
    }

    /// The 512-bit operations under the names the macro uses, from AVX-512F alone: the
    /// comparisons give lane masks (all ones or zeros) as the narrower types do, through a
    /// mask register. Each function is inlined into the `avx512f` builds (module
    /// documentation; callers hold the feature).
    #[allow(clippy::missing_safety_doc)]
    mod w16 {
        use std::arch::x86_64::*;

        /// 16 lanes read as four 128-bit quarters: JIT code writes them as four 16-byte
        /// stores just before the call, and one 64-byte load of those cannot be
        /// forwarded from the store buffer (see `w8::loadu_ps`).
        #[inline(always)]
        pub unsafe fn loadu_ps(p: *const f32) -> __m512 {
            let hide = |mut a: *const f32| -> *const f32 {
                #[expect(
                    clippy::pointers_in_nomem_asm_block,
                    reason = "the asm reads nothing: it only hides where the quarter is"
                )]
                // SAFETY: an empty template: the pointer passes through unchanged.
                unsafe {
                    std::arch::asm!("/* {0} */", inout(reg) a, options(pure, nomem, nostack, preserves_flags))
                };
                a
            };
            // SAFETY: `p` has 16 lanes (the caller's promise), so do its quarters.
            let q = unsafe { [p, hide(p.add(4)), hide(p.add(8)), hide(p.add(12))] };
            // SAFETY: each quarter has 4 lanes; AVX-512F is present.
            unsafe {
                let v = _mm512_castps128_ps512(_mm_loadu_ps(q[0]));
                let v = _mm512_insertf32x4::<1>(v, _mm_loadu_ps(q[1]));
                let v = _mm512_insertf32x4::<2>(v, _mm_loadu_ps(q[2]));
                _mm512_insertf32x4::<3>(v, _mm_loadu_ps(q[3]))
            }
        }
        #[inline(always)]
        fn lanes(k: __mmask16) -> __m512 {
            // SAFETY: AVX-512F is present (module documentation).
            unsafe { _mm512_castsi512_ps(_mm512_maskz_mov_epi32(k, _mm512_set1_epi32(-1))) }
        }
        #[inline(always)]
        fn mask(m: __m512) -> __mmask16 {
            // SAFETY: AVX-512F is present. A lane is true where its sign bit is set.
            unsafe { _mm512_cmplt_epi32_mask(_mm512_castps_si512(m), _mm512_setzero_si512()) }
        }
        #[inline(always)]
        fn bits(f: unsafe fn(__m512i, __m512i) -> __m512i, a: __m512, b: __m512) -> __m512 {
            // SAFETY: AVX-512F is present; `f` is one of its bitwise operations.
            unsafe { _mm512_castsi512_ps(f(_mm512_castps_si512(a), _mm512_castps_si512(b))) }
        }
        #[inline(always)]
        pub unsafe fn and_ps(a: __m512, b: __m512) -> __m512 {
            bits(_mm512_and_si512, a, b)
        }
        #[inline(always)]
        pub unsafe fn or_ps(a: __m512, b: __m512) -> __m512 {
            bits(_mm512_or_si512, a, b)
        }
        #[inline(always)]
        pub unsafe fn xor_ps(a: __m512, b: __m512) -> __m512 {
            bits(_mm512_xor_si512, a, b)
        }
        #[inline(always)]
        pub unsafe fn andnot_ps(a: __m512, b: __m512) -> __m512 {
            bits(_mm512_andnot_si512, a, b)
        }
        /// `m`'s lanes of `b`, the others of `a` (as `blendv`).
        #[inline(always)]
        pub unsafe fn blendv_ps(a: __m512, b: __m512, m: __m512) -> __m512 {
            // SAFETY: AVX-512F is present.
            unsafe { _mm512_mask_blend_ps(mask(m), a, b) }
        }
        #[inline(always)]
        pub unsafe fn movemask_ps(m: __m512) -> i32 {
            i32::from(mask(m))
        }
        #[inline(always)]
        pub unsafe fn cmp_ps<const P: i32>(a: __m512, b: __m512) -> __m512 {
            // SAFETY: AVX-512F is present.
            lanes(unsafe { _mm512_cmp_ps_mask::<P>(a, b) })
        }
        /// `round_ps` with `_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC`: the same
        /// immediate bits mean round to nearest without exceptions to `roundscale` (at 0
        /// fraction bits).
        #[inline(always)]
        pub unsafe fn round_ps<const R: i32>(a: __m512) -> __m512 {
            // SAFETY: AVX-512F is present.
            unsafe { _mm512_roundscale_ps::<R>(a) }
        }
        #[inline(always)]
        pub unsafe fn slli_epi32<const N: i32>(a: __m512i) -> __m512i {
            // SAFETY: AVX-512F is present.
            unsafe { _mm512_sll_epi32(a, _mm_cvtsi32_si128(N)) }
        }
        /// Entry `i` of `t` per lane, `i` the lane's bits (0..=15): one permutation.
        #[inline(always)]
        pub unsafe fn lookup16(idx: __m512, t: &[f32; 16]) -> __m512 {
            // SAFETY: AVX-512F is present; `t` has 16 entries.
            unsafe { _mm512_permutexvar_ps(_mm512_castps_si512(idx), _mm512_loadu_ps(t.as_ptr())) }
        }
        #[inline(always)]
        pub unsafe fn srai_epi32<const N: i32>(a: __m512i) -> __m512i {
            // SAFETY: AVX-512F is present.
            unsafe { _mm512_sra_epi32(a, _mm_cvtsi32_si128(N)) }
        }

        pub use std::arch::x86_64::{
            _mm512_add_epi32 as add_epi32, _mm512_add_ps as add_ps,
            _mm512_castps_si512 as castps_si, _mm512_castsi512_ps as castsi_ps,
            _mm512_cvtepi32_ps as cvtepi32_ps, _mm512_cvtps_epi32 as cvtps_epi32,
            _mm512_div_ps as div_ps, _mm512_fmadd_ps as fmadd_ps, _mm512_max_ps as max_ps,
            _mm512_min_ps as min_ps, _mm512_mul_ps as mul_ps, _mm512_set1_epi32 as set1_epi32,
            _mm512_set1_ps as set1_ps, _mm512_storeu_ps as storeu_ps,
            _mm512_sub_epi32 as sub_epi32, _mm512_sub_ps as sub_ps,
        };
    }
}
