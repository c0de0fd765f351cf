//! The one list of built-ins that generated code calls instead of inlining: name,
//! signature and implementation together. [`all`] is what both sides use: the JIT
//! registers each `addr` under its `name`, codegen declares the signature from `params`/`ret`.
//!
//! Exact operations (`sqrt`, `fma`, `floor`, `fabs`, min/max, integer helpers, …) are not
//! here: they are single Cranelift instructions or short inline sequences
//! (`codegen/extinst.rs`). What is here:
//! - math in double precision: libm (glibc, within 1 ulp) through `std` or [`libm`], and
//!   Ferrite's own code where libm misses the OpenCL bound or its edge cases ([`math`]:
//!   `sinpi`/`cospi`/`tanpi`, `rootn`, `powr`, `remquo`'s 7-bit quotient, `ilogb`'s
//!   constants);
//! - math in single precision: Ferrite's own algorithms, written once over lane arrays
//!   ([`vmath`], in double; `vmathf`, in `f32` lanes through the `simd` lane types for
//!   the hot functions) and called at one lane here, at 4 and 8 lanes through
//!   [`vector`]'s entry points (`ferrite_v8_expf(x: *const f32, out: *mut f32)`, listed
//!   by [`vector_all`]);
//!   where there is none yet, the double function rounded once (see [`math`]);
//! - conversions with a rounding mode Cranelift lacks ([`convert`]);
//! - half-precision loads and stores (`vload_half`, `vstore_half_r*`), and the
//!   vectoriser's whole-vector half conversions by F16C ([`half_lanes`], listed by
//!   [`half_lanes::all`]);
//! - `printf` ([`crate::printf`]);
//! - the address-space lookup of explicit generic casts ([`crate::spaces`]);
//! - image reads, writes and sampling ([`image`]).

pub mod convert;
#[expect(
    unsafe_code,
    reason = "the half conversion entry points read and write the lanes JIT code points \
              at, with F16C intrinsics (called only after the processor was checked)"
)]
pub mod half_lanes;
#[expect(
    unsafe_code,
    reason = "the image library reads and writes the pixels an image argument's descriptor \
              points at, and the stack slots generated code passes"
)]
pub mod image;
#[expect(
    unsafe_code,
    reason = "declarations of, and calls to, C math library functions"
)]
mod libm;
pub mod math;
#[expect(
    unsafe_code,
    reason = "the AVX2 lane types call std::arch intrinsics (their builds run only after \
              the processor was checked for AVX2 and FMA)"
)]
mod simd;
#[expect(
    unsafe_code,
    reason = "the vector entry points read and write the lanes JIT code points at, and \
              call the AVX2 builds after checking the processor has AVX2"
)]
pub mod vector;
pub mod vmath;
mod vmathf;

/// A value type in a built-in's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BTy {
    F32,
    F64,
    I32,
    /// 64-bit integers and addresses.
    I64,
}

trait Abi {
    const TY: BTy;
}
impl Abi for f32 {
    const TY: BTy = BTy::F32;
}
impl Abi for f64 {
    const TY: BTy = BTy::F64;
}
impl Abi for i32 {
    const TY: BTy = BTy::I32;
}
impl Abi for i64 {
    const TY: BTy = BTy::I64;
}
impl Abi for u64 {
    const TY: BTy = BTy::I64;
}

#[derive(Clone, Debug)]
pub struct Builtin {
    /// The symbol name the JIT knows it by.
    pub name: &'static str,
    pub params: &'static [BTy],
    pub ret: BTy,
    /// The `extern "C"` function.
    pub addr: *const u8,
}

macro_rules! builtins {
    ($($name:ident($($a:ident: $t:ty),*) -> $r:ty = $body:expr;)*) => {
        $(
            extern "C" fn $name($($a: $t),*) -> $r { $body }
        )*
        fn rust_list() -> Vec<Builtin> {
            vec![$(Builtin {
                name: stringify!($name),
                params: &[$(<$t as Abi>::TY),*],
                ret: <$r as Abi>::TY,
                addr: $name as *const u8,
            }),*]
        }
    };
}

use math as m;

/// Nanoseconds since the first read of the process's monotonic clock (`CLOCK_MONOTONIC`,
/// one clock for every core, never going back): what `cl_khr_kernel_clock`'s clocks of
/// every scope read.
fn clock_now() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let nanos = START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos();
    u64::try_from(nanos).unwrap_or(u64::MAX)
}

fn d(x: f32) -> f64 {
    f64::from(x)
}

builtins! {
    // ---- double precision ------------------------------------------------------------
    ferrite_sin(x: f64) -> f64 = x.sin();
    ferrite_cos(x: f64) -> f64 = x.cos();
    ferrite_tan(x: f64) -> f64 = x.tan();
    ferrite_asin(x: f64) -> f64 = x.asin();
    ferrite_acos(x: f64) -> f64 = x.acos();
    ferrite_atan(x: f64) -> f64 = x.atan();
    ferrite_atan2(y: f64, x: f64) -> f64 = y.atan2(x);
    ferrite_sinh(x: f64) -> f64 = x.sinh();
    ferrite_cosh(x: f64) -> f64 = x.cosh();
    ferrite_tanh(x: f64) -> f64 = x.tanh();
    ferrite_asinh(x: f64) -> f64 = libm::asinh(x);
    ferrite_acosh(x: f64) -> f64 = libm::acosh(x);
    ferrite_atanh(x: f64) -> f64 = libm::atanh(x);
    ferrite_sinpi(x: f64) -> f64 = m::sinpi(x);
    ferrite_cospi(x: f64) -> f64 = m::cospi(x);
    ferrite_tanpi(x: f64) -> f64 = m::tanpi(x);
    ferrite_asinpi(x: f64) -> f64 = m::asinpi(x);
    ferrite_acospi(x: f64) -> f64 = m::acospi(x);
    ferrite_atanpi(x: f64) -> f64 = m::atanpi(x);
    ferrite_atan2pi(y: f64, x: f64) -> f64 = m::atan2pi(y, x);
    ferrite_exp(x: f64) -> f64 = x.exp();
    ferrite_exp2(x: f64) -> f64 = x.exp2();
    ferrite_exp10(x: f64) -> f64 = libm::exp10(x);
    ferrite_expm1(x: f64) -> f64 = libm::expm1(x);
    ferrite_log(x: f64) -> f64 = x.ln();
    ferrite_log2(x: f64) -> f64 = x.log2();
    ferrite_log10(x: f64) -> f64 = x.log10();
    ferrite_log1p(x: f64) -> f64 = libm::log1p(x);
    ferrite_cbrt(x: f64) -> f64 = x.cbrt();
    ferrite_pow(x: f64, y: f64) -> f64 = x.powf(y);
    ferrite_powr(x: f64, y: f64) -> f64 = m::powr(x, y);
    ferrite_pown(x: f64, n: i32) -> f64 = m::pown(x, n);
    ferrite_rootn(x: f64, n: i32) -> f64 = m::rootn(x, n);
    ferrite_hypot(x: f64, y: f64) -> f64 = x.hypot(y);
    ferrite_fmod(x: f64, y: f64) -> f64 = x % y;
    ferrite_remainder(x: f64, y: f64) -> f64 = libm::remainder(x, y);
    ferrite_remquo_quo(x: f64, y: f64) -> i32 = m::remquo_quo(x, y);
    ferrite_nextafter(x: f64, y: f64) -> f64 = libm::nextafter(x, y);
    ferrite_erf(x: f64) -> f64 = libm::erf(x);
    ferrite_erfc(x: f64) -> f64 = libm::erfc(x);
    ferrite_tgamma(x: f64) -> f64 = libm::tgamma(x);
    ferrite_lgamma(x: f64) -> f64 = m::lgamma(x);
    ferrite_lgamma_sign(x: f64) -> i32 = m::lgamma_sign(x);
    ferrite_logb(x: f64) -> f64 = libm::logb(x);
    ferrite_ilogb(x: f64) -> i32 = m::ilogb(x);
    ferrite_ldexp(x: f64, n: i32) -> f64 = libm::ldexp(x, n);
    ferrite_frexp_mant(x: f64) -> f64 = m::frexp_mant(x);
    ferrite_frexp_exp(x: f64) -> i32 = m::frexp_exp(x);
    ferrite_round(x: f64) -> f64 = m::round(x);

    // ---- single precision: `vmath` at one lane, else the double function rounded once ---
    ferrite_sinf(x: f32) -> f32 = vector::sinf(x);
    ferrite_cosf(x: f32) -> f32 = vector::cosf(x);
    ferrite_tanf(x: f32) -> f32 = vector::tanf(x);
    ferrite_asinf(x: f32) -> f32 = vector::asinf(x);
    ferrite_acosf(x: f32) -> f32 = vector::acosf(x);
    ferrite_atanf(x: f32) -> f32 = vector::atanf(x);
    ferrite_atan2f(y: f32, x: f32) -> f32 = vector::atan2f(y, x);
    ferrite_sinhf(x: f32) -> f32 = vector::sinhf(x);
    ferrite_coshf(x: f32) -> f32 = vector::coshf(x);
    ferrite_tanhf(x: f32) -> f32 = vector::tanhf(x);
    ferrite_asinhf(x: f32) -> f32 = vector::asinhf(x);
    ferrite_acoshf(x: f32) -> f32 = vector::acoshf(x);
    ferrite_atanhf(x: f32) -> f32 = vector::atanhf(x);
    ferrite_sinpif(x: f32) -> f32 = vector::sinpif(x);
    ferrite_cospif(x: f32) -> f32 = vector::cospif(x);
    ferrite_tanpif(x: f32) -> f32 = vector::tanpif(x);
    ferrite_asinpif(x: f32) -> f32 = vector::asinpif(x);
    ferrite_acospif(x: f32) -> f32 = vector::acospif(x);
    ferrite_atanpif(x: f32) -> f32 = vector::atanpif(x);
    ferrite_atan2pif(y: f32, x: f32) -> f32 = vector::atan2pif(y, x);
    ferrite_expf(x: f32) -> f32 = vector::expf(x);
    ferrite_exp2f(x: f32) -> f32 = vector::exp2f(x);
    ferrite_exp10f(x: f32) -> f32 = vector::exp10f(x);
    ferrite_expm1f(x: f32) -> f32 = vector::expm1f(x);
    ferrite_logf(x: f32) -> f32 = vector::logf(x);
    ferrite_log2f(x: f32) -> f32 = vector::log2f(x);
    ferrite_log10f(x: f32) -> f32 = vector::log10f(x);
    ferrite_log1pf(x: f32) -> f32 = vector::log1pf(x);
    ferrite_cbrtf(x: f32) -> f32 = vector::cbrtf(x);
    ferrite_powf(x: f32, y: f32) -> f32 = vector::powf(x, y);
    ferrite_powrf(x: f32, y: f32) -> f32 = vector::powrf(x, y);
    ferrite_pownf(x: f32, n: i32) -> f32 = vector::pownf(x, n);
    ferrite_rootnf(x: f32, n: i32) -> f32 = m::rootn(d(x), n) as f32;
    ferrite_hypotf(x: f32, y: f32) -> f32 = vector::hypotf(x, y);
    ferrite_fmodf(x: f32, y: f32) -> f32 = x % y;
    ferrite_remainderf(x: f32, y: f32) -> f32 = libm::remainder(d(x), d(y)) as f32;
    ferrite_remquo_quof(x: f32, y: f32) -> i32 = m::remquo_quo(d(x), d(y));
    ferrite_nextafterf(x: f32, y: f32) -> f32 = libm::nextafterf(x, y);
    ferrite_erff(x: f32) -> f32 = vector::erff(x);
    ferrite_erfcf(x: f32) -> f32 = vector::erfcf(x);
    ferrite_tgammaf(x: f32) -> f32 = libm::tgamma(d(x)) as f32;
    ferrite_lgammaf(x: f32) -> f32 = m::lgamma(d(x)) as f32;
    ferrite_lgamma_signf(x: f32) -> i32 = m::lgamma_sign(d(x));
    ferrite_logbf(x: f32) -> f32 = libm::logb(d(x)) as f32;
    ferrite_ilogbf(x: f32) -> i32 = m::ilogb(d(x));
    ferrite_ldexpf(x: f32, n: i32) -> f32 = libm::ldexpf(x, n);
    ferrite_frexp_mantf(x: f32) -> f32 = m::frexp_mant(d(x)) as f32;
    ferrite_frexp_expf(x: f32) -> i32 = m::frexp_exp(d(x));
    ferrite_roundf(x: f32) -> f32 = x.round();

    // ---- conversions with a rounding mode (SPIR-V FPRoundingMode) ----------------------
    ferrite_cvt_f64_f32(x: f64, mode: i32) -> f32 = convert::f64_to_f32(x, mode);
    ferrite_cvt_s64_f32(x: i64, mode: i32) -> f32 = convert::int_to_f32(x.into(), mode);
    ferrite_cvt_u64_f32(x: u64, mode: i32) -> f32 = convert::int_to_f32(x.into(), mode);
    ferrite_cvt_s64_f64(x: i64, mode: i32) -> f64 = convert::int_to_f64(x.into(), mode);
    ferrite_cvt_u64_f64(x: u64, mode: i32) -> f64 = convert::int_to_f64(x.into(), mode);
    ferrite_f64_to_half(x: f64, mode: i32) -> i32 = i32::from(convert::f64_to_half(x, mode));
    ferrite_nextafter_half(x: f32, y: f32) -> f32 = convert::nextafter_half(x, y);

    // ---- printf ---------------------------------------------------------------------
    ferrite_printf(sink: u64, record: u64) -> i32 = crate::printf::record(sink, record);

    // ---- generic casts of another work-item's address ---------------------------------
    ferrite_space_of(addr: u64) -> i32 = crate::spaces::space_of(addr);
    // `OpReadClockKHR` (`codegen/clock.rs`).
    ferrite_clock() -> u64 = clock_now();
}

/// Every built-in.
pub fn all() -> Vec<Builtin> {
    let mut list = rust_list();
    list.extend(image::list());
    list
}

/// Every vector entry point (`ferrite_v4_expf`, `ferrite_v8_powf`, …): the JIT registers
/// them beside [`all`]; see [`vector`] for the signatures.
pub fn vector_all() -> Vec<vector::VectorBuiltin> {
    vector::all()
}

/// The vector entry point of an OpenCL math function of `f32` by base name and lane count
/// (`("exp", 8)` → `ferrite_v8_expf`), if there is one.
pub fn vector_lookup(base: &str, lanes: u32) -> Option<vector::VectorBuiltin> {
    vector::all()
        .into_iter()
        .find(|b| b.base == base && b.lanes == lanes)
}

/// A built-in by its exact symbol name.
pub fn by_name(name: &str) -> Option<Builtin> {
    all().into_iter().find(|b| b.name == name)
}

/// The built-in for an OpenCL math function of the given element type, by base name
/// (`"sin"` → `ferrite_sinf` for `f32`, `ferrite_sin` for `f64`).
pub fn lookup(base: &str, f64_: bool) -> Option<Builtin> {
    let name = if f64_ {
        format!("ferrite_{base}")
    } else {
        format!("ferrite_{base}f")
    };
    by_name(&name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_unique_and_lookup_finds_both_widths() {
        let all = super::all();
        let mut names: Vec<_> = all.iter().map(|b| b.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for base in ["sin", "pow", "erf", "ldexp", "pown", "sinpi", "remquo_quo"] {
            assert!(super::lookup(base, false).is_some(), "{base}f");
            assert!(super::lookup(base, true).is_some(), "{base}");
        }
        for b in super::vector_all() {
            assert!(!names.contains(&b.name), "{}", b.name);
            let found = super::vector_lookup(b.base, b.lanes).map(|v| v.name);
            assert_eq!(found, Some(b.name));
        }
    }

    /// A local JIT function `call_<name>` of signature `wsig` that `emit` builds from its
    /// parameters and `name`, imported with signature `sig`.
    fn jit_wrapper(
        m: &mut cranelift_jit::JITModule,
        fbc: &mut cranelift_frontend::FunctionBuilderContext,
        (name, sig): (&str, cranelift_codegen::ir::Signature),
        wsig: cranelift_codegen::ir::Signature,
        emit: impl FnOnce(
            &mut cranelift_frontend::FunctionBuilder,
            cranelift_codegen::ir::FuncRef,
            Vec<cranelift_codegen::ir::Value>,
        ),
    ) -> cranelift_module::FuncId {
        use cranelift_codegen::ir::InstBuilder;
        use cranelift_frontend::FunctionBuilder;
        use cranelift_module::{Linkage, Module};
        let callee = m
            .declare_function(name, Linkage::Import, &sig)
            .expect("import");
        let id = m
            .declare_function(&format!("call_{name}"), Linkage::Local, &wsig)
            .expect("wrapper");
        let mut ctx = m.make_context();
        ctx.func.signature = wsig;
        let mut b = FunctionBuilder::new(&mut ctx.func, fbc);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        b.seal_block(block);
        let f = m.declare_func_in_func(callee, b.func);
        let params = b.block_params(block).to_vec();
        emit(&mut b, f, params);
        b.ins().return_(&[]);
        b.finalize(m.target_config());
        m.define_function(id, &mut ctx).expect("define");
        id
    }

    /// The JIT module knows every entry point by name: JIT code that calls each one with
    /// pointers to lane arrays gets what a direct call gets.
    #[test]
    #[expect(
        unsafe_code,
        reason = "calls JIT code and the entry points through function pointers"
    )]
    fn jit_code_calls_every_entry_point() {
        use cranelift_codegen::ir::{types, AbiParam, InstBuilder};
        use cranelift_frontend::FunctionBuilderContext;
        use cranelift_module::Module;
        let isa = crate::jit::host_isa().expect("host ISA");
        let mut m = crate::jit::new_module(isa).expect("JIT module");
        let mut fbc = FunctionBuilderContext::new();
        let mut wrappers = Vec::new();
        for vb in super::vector_all() {
            let mut sig = m.make_signature();
            for _ in 0..vb.inputs + vb.outputs {
                sig.params.push(AbiParam::new(types::I64));
            }
            let id = jit_wrapper(
                &mut m,
                &mut fbc,
                (vb.name, sig.clone()),
                sig,
                |b, f, args| {
                    b.ins().call(f, &args);
                },
            );
            wrappers.push((vb, id));
        }
        m.finalize_definitions().expect("finalize");
        let a: [f32; 16] = [
            0.5, -1.25, 3.0, 0.0, 7.5, -0.75, 2.0, 10.0, 0.125, -3.5, 1.0, 6.25, -0.5, 0.75, 4.0,
            9.0,
        ];
        let b: [f32; 16] = [
            2.0, 3.0, -0.5, 1.5, 0.25, 4.0, -2.0, 0.5, 1.25, 2.0, -1.5, 0.5, 3.0, -0.25, 1.0, 2.5,
        ];
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for (vb, id) in wrappers {
            let jit = m.get_finalized_function(id);
            let (mut o1, mut o2, mut d1, mut d2) = ([0f32; 16], [0f32; 16], [0f32; 16], [0f32; 16]);
            let p = |s: &[f32; 16]| s.as_ptr() as u64;
            let q = |s: &mut [f32; 16]| s.as_mut_ptr() as u64;
            // SAFETY: `jit` and `vb.addr` take `inputs + outputs` pointers (the wrapper was
            // declared so), each to at least `lanes` ≤ 16 `f32`s, all live arrays here.
            unsafe {
                match (vb.inputs, vb.outputs) {
                    (1, 1) => {
                        let f: extern "C" fn(u64, u64) = std::mem::transmute(jit);
                        let g: extern "C" fn(u64, u64) = std::mem::transmute(vb.addr);
                        f(p(&a), q(&mut o1));
                        g(p(&a), q(&mut d1));
                    }
                    (2, 1) => {
                        let f: extern "C" fn(u64, u64, u64) = std::mem::transmute(jit);
                        let g: extern "C" fn(u64, u64, u64) = std::mem::transmute(vb.addr);
                        f(p(&a), p(&b), q(&mut o1));
                        g(p(&a), p(&b), q(&mut d1));
                    }
                    (1, 2) => {
                        let f: extern "C" fn(u64, u64, u64) = std::mem::transmute(jit);
                        let g: extern "C" fn(u64, u64, u64) = std::mem::transmute(vb.addr);
                        f(p(&a), q(&mut o1), q(&mut o2));
                        g(p(&a), q(&mut d1), q(&mut d2));
                    }
                    other => panic!("{}: shape {other:?}", vb.name),
                }
            }
            let n = vb.lanes as usize;
            for i in 0..n {
                assert!(
                    same(o1[i], d1[i]) && same(o2[i], d2[i]),
                    "{} lane {i}",
                    vb.name
                );
            }
            assert!(
                o1[..n].iter().any(|v| *v != 0.0),
                "{}: nothing written",
                vb.name
            );
            assert!(
                o1[n..].iter().all(|v| *v == 0.0),
                "{}: wrote past its lanes",
                vb.name
            );
        }
    }

    /// Every register form of a 16-lane entry point, called from JIT code with the values
    /// loaded as the vectoriser holds them (four `F32X4` per argument), gives the pointer
    /// form's bits, lane for lane, over special values and spread bit patterns.
    #[test]
    #[expect(
        unsafe_code,
        reason = "calls JIT code and the entry points through function pointers"
    )]
    fn jit_code_calls_every_register_form() {
        use cranelift_codegen::ir::{types, AbiParam, InstBuilder};
        use cranelift_frontend::FunctionBuilderContext;
        use cranelift_module::Module;
        let isa = crate::jit::host_isa().expect("host ISA");
        let mut m = crate::jit::new_module(isa).expect("JIT module");
        let mut fbc = FunctionBuilderContext::new();
        let mut wrappers = Vec::new();
        for vb in super::vector_all() {
            let Some(r) = vb.regs else { continue };
            let mut sig = m.make_signature();
            sig.params.extend(crate::codegen::regs_params(vb.inputs));
            let mut wsig = m.make_signature();
            for _ in 0..=vb.inputs {
                wsig.params.push(AbiParam::new(types::I64));
            }
            let id = jit_wrapper(&mut m, &mut fbc, (r.name, sig), wsig, |b, f, ptrs| {
                let mut args = Vec::new();
                for p in &ptrs[..vb.inputs as usize] {
                    for j in 0..4 {
                        let flags = crate::codegen::trusted();
                        args.push(b.ins().load(types::F32X4, flags, *p, 16 * j));
                    }
                }
                args.push(ptrs[vb.inputs as usize]);
                b.ins().call(f, &args);
            });
            wrappers.push((vb, id));
        }
        m.finalize_definitions().expect("finalize");
        let xs = super::vector::tests::inputs();
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        assert!(
            wrappers.len() == 12 || !std::arch::is_x86_feature_detected!("avx512f"),
            "{} register forms",
            wrappers.len()
        );
        for (vb, id) in wrappers {
            let jit = m.get_finalized_function(id);
            for (a, b) in xs.chunks_exact(16).zip(xs.chunks_exact(16).rev()) {
                let (mut o, mut d) = ([0f32; 16], [0f32; 16]);
                // SAFETY: the wrapper takes `inputs` pointers to 16 `f32`s and one to 16
                // writable ones, as `vb.addr` does; all are live arrays here.
                unsafe {
                    if vb.inputs == 1 {
                        let f: extern "C" fn(*const f32, *mut f32) = std::mem::transmute(jit);
                        let g: extern "C" fn(*const f32, *mut f32) = std::mem::transmute(vb.addr);
                        f(a.as_ptr(), o.as_mut_ptr());
                        g(a.as_ptr(), d.as_mut_ptr());
                    } else {
                        let f: extern "C" fn(*const f32, *const f32, *mut f32) =
                            std::mem::transmute(jit);
                        let g: extern "C" fn(*const f32, *const f32, *mut f32) =
                            std::mem::transmute(vb.addr);
                        f(a.as_ptr(), b.as_ptr(), o.as_mut_ptr());
                        g(a.as_ptr(), b.as_ptr(), d.as_mut_ptr());
                    }
                }
                for i in 0..16 {
                    assert!(same(o[i], d[i]), "{} lane {i} of {a:?}", vb.name);
                }
            }
        }
    }
}
