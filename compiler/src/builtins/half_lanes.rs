//! Halves widened to `float`s and narrowed back a whole lane vector at a time, by the
//! processor's own conversion instructions (x86's F16C), for the vectoriser's consecutive
//! half loads and stores (`workgroup/vector/half.rs`).
//!
//! Inline, a conversion is ten to fifteen integer and float instructions per four lanes
//! (`codegen/half.rs`): a half saxpy ran at a third of the speed of a `float` one. F16C's
//! `vcvtph2ps`/`vcvtps2ph` convert eight lanes each, so one call per 4, 8 or 16 lanes
//! replaces them. The results are `codegen/half.rs`'s, bit for bit, which the scalar code
//! and every other vector access use:
//! - a signalling NaN stays signalling both ways (F16C quiets it; the quiet bit is put
//!   back);
//! - a NaN `float` narrows to its sign, the top 10 bits of its payload and a low bit if
//!   any lower one was set (F16C drops the lower bits and sets the quiet bit);
//! - every other value a half variable holds is a half exactly, which both convert
//!   exactly.
//!
//! Signatures (`N` = 4, 8 or 16; the arrays need no alignment and may not overlap):
//! - `ferrite_half_widen_N(src: *const u16, dst: *mut f32)`;
//! - `ferrite_half_narrow_N(src: *const f32, dst: *mut u16)`.
//!
//! They exist only where the processor has F16C (and AVX2): [`lookup`] is `None`
//! elsewhere, and the vectoriser keeps its inline conversions.

use super::vector::VectorBuiltin;

/// Whether this processor converts halves itself.
#[cfg(target_arch = "x86_64")]
pub fn available() -> bool {
    std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx2")
}

/// Whether this processor converts halves itself.
#[cfg(not(target_arch = "x86_64"))]
pub fn available() -> bool {
    false
}

/// The 16 bits `codegen/half.rs`'s `to_bits` stores for the `float` `x` that holds a half
/// or a NaN: a NaN keeps its sign, the top 10 bits of its payload, and a set low bit if
/// any lower one was set.
pub fn nan_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let abs = b & 0x7fff_ffff;
    let low = u32::from(abs & 0x1fff != 0);
    ((b >> 16) & 0x8000 | 0x7c00 | (abs >> 13) & 0x3ff | low) as u16
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Eight halves at `src` as `float`s at `dst`.
    ///
    /// # Safety
    /// The processor has F16C and AVX2; `src` is readable for 8 `u16`s, `dst` writable
    /// for 8 `f32`s.
    #[target_feature(enable = "avx2,f16c")]
    pub unsafe fn widen8(src: *const u16, dst: *mut f32) {
        // SAFETY: per the caller, 16 readable bytes at `src` (unaligned load) and 32
        // writable at `dst`.
        unsafe {
            let h = _mm_loadu_si128(src.cast());
            let f = _mm256_castps_si256(_mm256_cvtph_ps(h));
            // Signalling NaNs: magnitude bits strictly between 0x7c00 (∞) and 0x7e00
            // (the first quiet NaN). F16C set their quiet bit: clear it.
            let mag = _mm256_and_si256(_mm256_cvtepu16_epi32(h), _mm256_set1_epi32(0x7fff));
            let above_inf = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7c00));
            let below_quiet = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x7e00), mag);
            let snan = _mm256_and_si256(above_inf, below_quiet);
            let quiet = _mm256_and_si256(snan, _mm256_set1_epi32(0x0040_0000));
            let f = _mm256_xor_si256(f, quiet);
            _mm256_storeu_si256(dst.cast(), f);
        }
    }

    /// Four halves at `src` as `float`s at `dst`.
    ///
    /// # Safety
    /// As [`widen8`], for 4 lanes.
    #[target_feature(enable = "avx2,f16c")]
    pub unsafe fn widen4(src: *const u16, dst: *mut f32) {
        // SAFETY: per the caller, 8 readable bytes at `src` and 16 writable at `dst`.
        unsafe {
            let h = _mm_loadl_epi64(src.cast());
            let f = _mm_castps_si128(_mm_cvtph_ps(h));
            let mag = _mm_and_si128(_mm_cvtepu16_epi32(h), _mm_set1_epi32(0x7fff));
            let above_inf = _mm_cmpgt_epi32(mag, _mm_set1_epi32(0x7c00));
            let below_quiet = _mm_cmpgt_epi32(_mm_set1_epi32(0x7e00), mag);
            let snan = _mm_and_si128(above_inf, below_quiet);
            let quiet = _mm_and_si128(snan, _mm_set1_epi32(0x0040_0000));
            _mm_storeu_si128(dst.cast(), _mm_xor_si128(f, quiet));
        }
    }

    /// Eight `float`s at `src` (halves or NaNs) as half bits at `dst`.
    ///
    /// # Safety
    /// The processor has F16C and AVX2; `src` is readable for 8 `f32`s, `dst` writable
    /// for 8 `u16`s.
    #[target_feature(enable = "avx2,f16c")]
    pub unsafe fn narrow8(src: *const f32, dst: *mut u16) {
        // SAFETY: per the caller, 32 readable bytes at `src` and 16 writable at `dst`.
        unsafe {
            // Two 16-byte loads (`F8::load_ptr`): JIT code has just stored the lanes 16
            // bytes at a time, and a 32-byte load of two such stores would wait for them
            // to retire instead of taking their data directly.
            let x = super::super::simd::F8::load_ptr(src).0;
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x);
            _mm_storeu_si128(dst.cast(), h);
            let abs = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7fff_ffff));
            let nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f80_0000));
            let lanes = _mm256_movemask_ps(_mm256_castsi256_ps(nan));
            if lanes != 0 {
                super::fix_nans(src, dst, 8, lanes as u32);
            }
        }
    }

    /// Four `float`s at `src` (halves or NaNs) as half bits at `dst`.
    ///
    /// # Safety
    /// As [`narrow8`], for 4 lanes.
    #[target_feature(enable = "avx2,f16c")]
    pub unsafe fn narrow4(src: *const f32, dst: *mut u16) {
        // SAFETY: per the caller, 16 readable bytes at `src` and 8 writable at `dst`.
        unsafe {
            let x = _mm_loadu_ps(src);
            let h = _mm_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x);
            _mm_storel_epi64(dst.cast(), h);
            let abs = _mm_and_si128(_mm_castps_si128(x), _mm_set1_epi32(0x7fff_ffff));
            let nan = _mm_cmpgt_epi32(abs, _mm_set1_epi32(0x7f80_0000));
            let lanes = _mm_movemask_ps(_mm_castsi128_ps(nan));
            if lanes != 0 {
                super::fix_nans(src, dst, 4, lanes as u32);
            }
        }
    }
}

/// Rewrite the NaN lanes (bits of `lanes`) of `n` narrowed halves with [`nan_bits`].
///
/// # Safety
/// `src` readable for `n` `f32`s, `dst` writable for `n` `u16`s.
#[cfg(target_arch = "x86_64")]
unsafe fn fix_nans(src: *const f32, dst: *mut u16, n: usize, lanes: u32) {
    for k in (0..n).filter(|k| lanes >> k & 1 != 0) {
        // SAFETY: k < n, within both arrays per the caller.
        unsafe {
            dst.add(k)
                .write_unaligned(nan_bits(src.add(k).read_unaligned()))
        };
    }
}

macro_rules! entries {
    ($($name:ident: $f:ident, $lanes:literal, $step:literal, $src:ty, $dst:ty;)*) => {
        $(
            /// An entry point (see the module documentation).
            ///
            /// # Safety
            /// Called only where [`available`] (the JIT registers it only then); the
            /// arrays as the module documentation says.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,f16c")]
            pub unsafe extern "C" fn $name(src: *const $src, dst: *mut $dst) {
                for c in 0..$lanes / $step {
                    // SAFETY: per the caller, F16C and AVX2 are there and the arrays hold
                    // `$lanes` lanes, of which this is the `c`-th group of `$step`.
                    unsafe { x86::$f(src.add(c * $step), dst.add(c * $step)) };
                }
            }
        )*

        /// Every entry point, with the address the JIT calls; none where F16C is missing.
        pub fn all() -> Vec<VectorBuiltin> {
            if !available() {
                return Vec::new();
            }
            #[cfg(target_arch = "x86_64")]
            return vec![$(VectorBuiltin {
                name: stringify!($name),
                base: if stringify!($f).starts_with("widen") { "half_widen" } else { "half_narrow" },
                lanes: $lanes,
                inputs: 1,
                outputs: 1,
                addr: $name as *const u8,
                regs: None,
            },)*];
            #[cfg(not(target_arch = "x86_64"))]
            Vec::new()
        }
    };
}

entries! {
    ferrite_half_widen_4: widen4, 4, 4, u16, f32;
    ferrite_half_widen_8: widen8, 8, 8, u16, f32;
    ferrite_half_widen_16: widen8, 16, 8, u16, f32;
    ferrite_half_narrow_4: narrow4, 4, 4, f32, u16;
    ferrite_half_narrow_8: narrow8, 8, 8, f32, u16;
    ferrite_half_narrow_16: narrow8, 16, 8, f32, u16;
}

/// The entry point that widens (`widen`) or narrows `lanes` lanes, where the processor
/// has F16C.
pub fn lookup(widen: bool, lanes: u32) -> Option<VectorBuiltin> {
    let base = if widen { "half_widen" } else { "half_narrow" };
    all()
        .into_iter()
        .find(|e| e.base == base && e.lanes == lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::convert::half_to_f32;

    /// `dst` of `lanes` lanes filled by the entry point `e` from `src`.
    fn call<S: Copy, D: Copy + Default>(e: &VectorBuiltin, src: &[S]) -> Vec<D> {
        let mut out = vec![D::default(); src.len()];
        for (s, d) in src
            .chunks(e.lanes as usize)
            .zip(out.chunks_mut(e.lanes as usize))
        {
            assert_eq!(s.len(), e.lanes as usize);
            // SAFETY: `all` lists entry points only where F16C is there; `e.addr` is an
            // `unsafe extern "C" fn(*const S, *mut D)` over `e.lanes` lanes, which both
            // chunks hold.
            unsafe {
                let f: unsafe extern "C" fn(*const S, *mut D) = std::mem::transmute(e.addr);
                f(s.as_ptr(), d.as_mut_ptr());
            }
        }
        out
    }

    /// Every half widens to the bits of the exact conversion (signalling NaNs stay
    /// signalling), at every width.
    #[test]
    fn every_half_widens_exactly() {
        if !available() {
            eprintln!("no F16C: the entry points are not used here");
            return;
        }
        let halves: Vec<u16> = (0..=u16::MAX).collect();
        for lanes in [4, 8, 16] {
            let e = lookup(true, lanes).expect("entry point");
            let got: Vec<f32> = call(&e, &halves);
            for (&h, g) in halves.iter().zip(&got) {
                assert_eq!(
                    g.to_bits(),
                    half_to_f32(h).to_bits(),
                    "{lanes} lanes: {h:#06x}"
                );
            }
        }
    }

    /// Every half's `float` narrows back to the half; NaN `float`s (whatever payload)
    /// narrow as the inline code does; at every width, NaNs mixed among numbers.
    #[test]
    fn halves_and_nans_narrow_as_inline() {
        if !available() {
            return;
        }
        let mut floats: Vec<f32> = (0..=u16::MAX).map(half_to_f32).collect();
        // NaNs of both signs, signalling and quiet, payloads with and without low bits.
        for m in (1..1u32 << 23)
            .step_by(4099)
            .chain([1, 0x1fff, 0x2000, 0x40_0000])
        {
            floats.push(f32::from_bits(0x7f80_0000 | m));
            floats.push(f32::from_bits(0xff80_0000 | m));
        }
        floats.truncate(floats.len() / 16 * 16);
        for lanes in [4, 8, 16] {
            let e = lookup(false, lanes).expect("entry point");
            let got: Vec<u16> = call(&e, &floats);
            for (i, (x, &g)) in floats.iter().zip(&got).enumerate() {
                // The first 65,536 are the halves in order (a half's NaN included: its
                // bits are what `nan_bits` gives back).
                let want = if i <= usize::from(u16::MAX) {
                    i as u16
                } else {
                    nan_bits(*x)
                };
                assert_eq!(g, want, "{lanes} lanes: {:#010x}", x.to_bits());
            }
        }
    }
}
